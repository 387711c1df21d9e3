package offline

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestParseInterspersed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		level    string
		json     bool
		wantArgs []string
	}{
		{name: "flags first", args: []string{"--max-level", "L3", "a.json"}, level: "L3", wantArgs: []string{"a.json"}},
		{name: "flags after the file", args: []string{"a.json", "--max-level", "L3"}, level: "L3", wantArgs: []string{"a.json"}},
		{name: "flags between files", args: []string{"a.json", "-json", "b.json", "-max-level=L2"}, level: "L2", json: true, wantArgs: []string{"a.json", "b.json"}},
		{name: "standard input is an argument", args: []string{"-", "--max-level", "L1"}, level: "L1", wantArgs: []string{"-"}},
		{name: "a double dash ends the flags", args: []string{"a.json", "--", "--max-level", "L3"}, wantArgs: []string{"a.json", "--max-level", "L3"}},
		{name: "no arguments", args: []string{"-json"}, json: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			level := fs.String("max-level", "", "")
			asJSON := fs.Bool("json", false, "")
			if err := parseInterspersed(fs, tc.args); err != nil {
				t.Fatal(err)
			}
			if *level != tc.level || *asJSON != tc.json || !slices.Equal(fs.Args(), tc.wantArgs) {
				t.Errorf("level %q, json %v, args %q; want %q, %v, %q", *level, *asJSON, fs.Args(), tc.level, tc.json, tc.wantArgs)
			}
		})
	}
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.String("max-level", "", "")
	if err := parseInterspersed(fs, []string{"a.json", "--no-such-flag"}); err == nil {
		t.Error("an unknown flag after a file was accepted")
	}
}

// TestHelpReadsLikeKubectl: the offline verbs' help names long flags with
// two dashes and puts each meaning beside its flag.
func TestHelpReadsLikeKubectl(t *testing.T) {
	var out, errOut strings.Builder
	if code := Run([]string{"score", "--help"}, strings.NewReader(""), &out, &errOut); code != ExitOK {
		t.Fatalf("score --help: exit %d", code)
	}
	help := errOut.String() + out.String()
	for _, want := range []string{"      --max-level string ", "  -o string ", `(default "table")`, "(default 5000)"} {
		if !strings.Contains(help, want) {
			t.Errorf("the help lacks %q:\n%s", want, help)
		}
	}
	if strings.Contains(help, "\n  -max-level") {
		t.Errorf("the help still names a long flag with one dash:\n%s", help)
	}
}
