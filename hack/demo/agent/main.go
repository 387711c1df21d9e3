// Command agent is the demo's AI agent, reduced to its MCP client: it
// connects to the gate with the official Go SDK, as any agent would, and
// lists or calls tools, printing what the gate let through. It also turns
// the gate's audit log into a table (audit), for the demo's output.
//
//	agent -url URL list
//	agent -url URL call TOOL [key=value ...]
//	agent audit GATE-LOG
//	agent wait
//
// wait blocks until SIGTERM or SIGINT and exits 0: an image has no shell
// and no sleep, so a pod's agent container runs `agent wait` to stay up
// while a test runs `kubectl exec POD -- /agent -url URL list` in it.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	url := flag.String("url", "", "the gate's URL of one server")
	timeout := flag.Duration("timeout", 2*time.Minute, "how long a call may take, a held one included")
	flag.Parse()
	if err := run(*url, *timeout, flag.Args()); err != nil {
		fmt.Fprintf(os.Stderr, "agent: %v\n", err)
		os.Exit(1)
	}
}

func run(url string, timeout time.Duration, args []string) error {
	if len(args) == 0 {
		return errors.New("usage: agent -url URL list | call TOOL [key=value ...] | audit FILE | wait")
	}
	if args[0] == "wait" {
		if len(args) != 1 {
			return errors.New("usage: agent wait")
		}
		return wait()
	}
	if args[0] == "audit" {
		if len(args) != 2 {
			return errors.New("usage: agent audit GATE-LOG")
		}
		return audit(args[1])
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "demo-agent", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", url, err)
	}
	defer cs.Close()
	switch args[0] {
	case "list":
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			return err
		}
		w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "TOOL\tDESCRIPTION")
		for _, t := range res.Tools {
			fmt.Fprintf(w, "%s\t%s\n", t.Name, shorten(t.Description, 70))
		}
		return w.Flush()
	case "call":
		if len(args) < 2 {
			return errors.New("usage: agent call TOOL [key=value ...]")
		}
		arguments := map[string]any{}
		for _, kv := range args[2:] {
			k, v, _ := strings.Cut(kv, "=")
			var n float64
			if _, err := fmt.Sscan(v, &n); err == nil {
				arguments[k] = n
			} else {
				arguments[k] = v
			}
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: args[1], Arguments: arguments})
		if err != nil {
			fmt.Printf("%s: refused: %v\n", args[1], err)
			return nil
		}
		var b strings.Builder
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				b.WriteString(t.Text)
			}
		}
		if res.IsError {
			fmt.Printf("%s: error: %s\n", args[1], shorten(b.String(), 100))
		} else {
			fmt.Printf("%s: %s\n", args[1], shorten(b.String(), 100))
		}
		return nil
	}
	return fmt.Errorf("unknown command %q", args[0])
}

// wait blocks until SIGTERM or SIGINT. It says on stderr when it waits, as
// a signal sent before then may find it without its handler.
func wait() error {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	fmt.Fprintln(os.Stderr, "agent: waiting for SIGTERM or SIGINT")
	<-stop
	return nil
}

// audit prints the gate's decision lines (toolgate.decision) as a table.
func audit(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "SERVER\tTOOL\tLEVEL\tDECISION\tREASON\tDECIDED BY")
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l map[string]any
		if json.Unmarshal(sc.Bytes(), &l) != nil || l["msg"] != "toolgate.decision" {
			continue
		}
		get := func(k string) string {
			if v, ok := l[k]; ok {
				return fmt.Sprint(v)
			}
			return "-"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", get("server"), get("tool"), get("level"), get("decision"), shorten(get("reason"), 50), get("decidedBy"))
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return w.Flush()
}

func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n-1] + "…"
	}
	return s
}
