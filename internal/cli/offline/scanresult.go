package offline

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/internal/transcript"
	"github.com/toolgate/toolgate/pkg/resultscan"
	"github.com/toolgate/toolgate/pkg/tooldef"
)

// ScanResultEntry is one scanned message in the JSON of `toolgate
// scan-result`: every message a server said, clean or not, so that a
// pipeline sees what was judged.
type ScanResultEntry struct {
	// File is the file as given, "<stdin>" for standard input.
	File string `json:"file"`
	// Line is the line the message starts on, for a session.
	Line int `json:"line,omitempty"`
	// Method is the message's own, or the one of the request it answers
	// (tools/call for a bare CallToolResult); absent when not known.
	Method string `json:"method,omitempty"`
	// Findings are the scan's, with their field and byte span.
	Findings []resultscan.Finding `json:"findings"`
	// Scanned and Unscanned are the bytes of text examined and left past
	// --max-bytes.
	Scanned   int64 `json:"scanned"`
	Unscanned int64 `json:"unscanned"`
}

// DefaultMaxFileBytes bounds a file scan-result reads: sessions are larger
// than catalogues, and every byte is held while it is read.
const DefaultMaxFileBytes = 256 << 20

const scanResultUsage = `Usage: toolgate scan-result [flags] FILE...

Scans saved tool results, JSON-RPC messages and recorded sessions (JSON lines,
one message a line) as the gate scans what servers say. "-" is standard input.
Exit status 0 when everything said is clean, 1 when something was found or
left unscanned, 2 on bad flags or a file that cannot be read.`

func runScanResult(program string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("toolgate scan-result", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		output       = fs.String("o", "text", "output format: text or json")
		maxBytes     = fs.Int64("max-bytes", resultscan.DefaultMaxBytes, "text examined per message, as the gate's bound; the rest is unscanned")
		maxFileBytes = fs.Int64("max-file-bytes", DefaultMaxFileBytes, "largest file accepted, in bytes")
		tools        []string
		toolsFrom    []string
	)
	fs.Func("tools", "comma-separated names of the agent's tools, for tool solicitation (repeatable)", func(v string) error {
		for _, name := range strings.Split(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				tools = append(tools, name)
			}
		}
		return nil
	})
	fs.Func("tools-from", "a saved tools/list result or response whose tools are the agent's (repeatable: one per server)", func(v string) error {
		toolsFrom = append(toolsFrom, v)
		return nil
	})
	fs.Usage = func() {
		fmt.Fprint(stderr, usageAs(program, scanResultUsage)+"\n\nFlags:\n")
		printFlags(fs, stderr)
	}
	if err := parseInterspersed(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "toolgate scan-result: "+format+"\n", a...)
		return ExitUsage
	}
	if *output != "text" && *output != "json" {
		return fail("-o %q: want text or json", *output)
	}
	if *maxBytes <= 0 {
		return fail("--max-bytes %d: want a positive number of bytes", *maxBytes)
	}
	if *maxFileBytes <= 0 {
		return fail("--max-file-bytes %d: want a positive number of bytes", *maxFileBytes)
	}
	files := fs.Args()
	if len(files) == 0 {
		return fail("want at least one FILE (\"-\" for standard input)")
	}
	stdinUsed := false
	for _, f := range append(append([]string{}, toolsFrom...), files...) {
		if f == "-" {
			if stdinUsed {
				return fail("standard input (\"-\") can be read only once")
			}
			stdinUsed = true
		}
	}
	for _, file := range toolsFrom {
		cat, err := readCatalogue(file, stdin, tooldef.DefaultLimits)
		if err != nil {
			return fail("--tools-from %v", err)
		}
		for _, t := range cat.Tools {
			tools = append(tools, t.Name)
		}
	}

	scanner := resultscan.New(resultscan.Options{AgentTools: tools, MaxBytes: *maxBytes})
	entries := []ScanResultEntry{}
	var skipped, bad int
	for _, file := range files {
		display := file
		if file == "-" {
			display = "<stdin>"
		}
		rec, err := readRecording(file, stdin, *maxFileBytes)
		if err != nil {
			// Stop at nothing: the other files are still judged, and the
			// exit status says one could not be.
			fmt.Fprintf(stderr, "toolgate scan-result: %s: %v\n", display, err)
			bad++
			continue
		}
		skipped += len(rec.Skipped)
		for _, s := range rec.Said {
			var r resultscan.Report
			if err := scanner.Message(&r, s.Message); err != nil {
				// transcript.Read read it strictly already; a message the
				// scan cannot walk is not passed as clean.
				fmt.Fprintf(stderr, "toolgate scan-result: %s: %v\n", location(display, s.Line), err)
				bad++
				continue
			}
			e := ScanResultEntry{File: display, Line: s.Line, Method: s.Method, Findings: r.Findings, Scanned: r.Scanned, Unscanned: r.Unscanned}
			if e.Findings == nil {
				e.Findings = []resultscan.Finding{}
			}
			entries = append(entries, e)
		}
	}

	if *output == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(entries); err != nil {
			return fail("%v", err)
		}
	} else {
		writeScanResultText(stdout, entries, skipped, bad, *maxBytes)
	}
	switch {
	case bad > 0:
		return ExitUsage
	case !allClean(entries):
		return ExitPolicy
	}
	return ExitOK
}

func allClean(entries []ScanResultEntry) bool {
	for _, e := range entries {
		if len(e.Findings) > 0 || e.Unscanned > 0 {
			return false
		}
	}
	return true
}

// readRecording reads one file ("-" is stdin) within maxFileBytes.
func readRecording(name string, stdin io.Reader, maxFileBytes int64) (*transcript.Recording, error) {
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, unwrapPathError(err)
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return nil, errors.New("is a directory, want a JSON file")
		}
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > maxFileBytes {
		return nil, fmt.Errorf("larger than the limit of %d bytes (--max-file-bytes)", maxFileBytes)
	}
	return transcript.Read(data)
}

func location(file string, line int) string {
	if line == 0 {
		return file
	}
	return file + ":" + strconv.Itoa(line)
}

// writeScanResultText writes one line per finding and per message with
// text left unscanned, then a count; bad is the files (or messages) that
// could not be read, whose errors went to standard error.
func writeScanResultText(w io.Writer, entries []ScanResultEntry, skipped, bad int, maxBytes int64) {
	findings, flagged := 0, 0
	var unscanned int64
	for _, e := range entries {
		where := location(e.File, e.Line)
		method := ""
		if e.Method != "" {
			method = " (" + Printable(e.Method) + ")"
		}
		for _, f := range e.Findings {
			fmt.Fprintf(w, "%s: %s in %s%s: %s\n", where, f.Signal, f.Field, method, f.Excerpt)
		}
		if e.Unscanned > 0 {
			fmt.Fprintf(w, "%s: %d bytes of text past the bound of %d (--max-bytes) not scanned%s: not known to be clean\n", where, e.Unscanned, maxBytes, method)
		}
		findings += len(e.Findings)
		if len(e.Findings) > 0 || e.Unscanned > 0 {
			flagged++
		}
		unscanned += e.Unscanned
	}
	fmt.Fprintf(w, "%s scanned: %s in %s", plural(len(entries), "message"), plural(findings, "finding"), plural(flagged, "message"))
	if unscanned > 0 {
		fmt.Fprintf(w, ", %d bytes unscanned", unscanned)
	}
	if skipped > 0 {
		fmt.Fprintf(w, "; %s not scanned: the agent's own, or answers the gate judges otherwise", plural(skipped, "message"))
	}
	if bad > 0 {
		fmt.Fprintf(w, "; %s could not be read (see the errors)", plural(bad, "input"))
	}
	fmt.Fprintln(w)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
