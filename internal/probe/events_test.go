package probe

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// rewrite runs a stream through the event rewriter, with a tools/list
// call in flight when list is set.
func rewrite(data []byte, list bool) (string, *catalogue, error) {
	m := &meter{limits: DefaultLimits}
	cat := newCatalogue(DefaultLimits, m)
	if list {
		cat.current = int64(2)
	}
	out, err := io.ReadAll(newEventRewriter(io.NopCloser(bytes.NewReader(data)), cat, DefaultLimits))
	return string(out), cat, err
}

func TestEventRewriter(t *testing.T) {
	page := `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"c"}}`
	for _, tc := range []struct {
		name, in string
		list     bool
		want     string
		tools    int
	}{
		{"endpoint passes", "event: endpoint\ndata: /post?s=1\n\n", false, "event: endpoint\ndata: /post?s=1\n\n", 0},
		{"a message is re-encoded", "event: message\nid: 7\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"x\":1}}\n\n", false,
			"event: message\nid: 7\ndata: {\"id\":1,\"jsonrpc\":\"2.0\",\"result\":{\"x\":1}}\n\n", 0},
		{"a page loses its tools", "data: " + page + "\n\n", true,
			"event: message\ndata: {\"id\":2,\"jsonrpc\":\"2.0\",\"result\":{\"tools\":[],\"nextCursor\":\"c\"}}\n\n", 1},
		{"data over several lines", "event: message\ndata: {\"jsonrpc\":\"2.0\",\n: a comment\ndata: \"id\":1,\r\ndata: \"result\":{}}\n\n", false,
			"event: message\ndata: {\"id\":1,\"jsonrpc\":\"2.0\",\"result\":{}}\n\n", 0},
		{"a priming event", "id: 1\ndata:\n\n", false, "id: 1\n\n", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, cat, err := rewrite([]byte(tc.in), tc.list)
			if err != nil && !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if len(cat.tools) != tc.tools {
				t.Errorf("%d tools decoded, want %d", len(cat.tools), tc.tools)
			}
		})
	}
}

// FuzzEventRewriter: whatever the stream, the rewriter does not panic,
// and every message it passes on is valid JSON.
func FuzzEventRewriter(f *testing.F) {
	f.Add([]byte("event: endpoint\ndata: /post\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"), false)
	f.Add([]byte("data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":[{\"name\":\"a\"}]}}\n\n"), true)
	f.Add([]byte("data: {\"a\":1,\"a\":2}\n\n"), false)
	f.Add([]byte(": c\nid: 1\n\ndata:\n\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, list bool) {
		out, _, _ := rewrite(data, list)
		for _, event := range strings.Split(out, "\n\n") {
			if !strings.HasPrefix(event, "event: message\n") {
				continue // other events pass as they are; the SDK ignores them
			}
			for _, line := range strings.Split(event, "\n") {
				if rest, ok := strings.CutPrefix(line, "data: "); ok && !json.Valid([]byte(rest)) {
					t.Errorf("passed on a message that is not JSON: %q", line)
				}
			}
		}
	})
}
