package transcript

import (
	"errors"
	"strings"
	"testing"
)

// said renders what Read found as "line method" per message, skipped ones
// prefixed with "skip", so that a table can state a session's whole
// judgement in one string.
func said(r *Recording) string {
	var parts []string
	for _, s := range r.Said {
		parts = append(parts, strings.TrimSpace(itoa(s.Line)+" "+s.Method))
	}
	for _, s := range r.Skipped {
		parts = append(parts, "skip "+itoa(s.Line)+" "+s.Method)
	}
	return strings.Join(parts, "; ")
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func TestReadShapes(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		shape    Shape
		want     string
		message  string // the first Said's Message, when it is not the input
	}{
		{"bare result", `{"content":[{"type":"text","text":"hi"}]}`, ShapeResult, "0 tools/call", `{"result":{"content":[{"type":"text","text":"hi"}]}}`},
		{"bare structured result, pretty-printed", "{\n  \"structuredContent\": {\"a\": 1}\n}\n", ShapeResult, "0 tools/call", ""},
		{"response", `{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`, ShapeMessage, "0", ""},
		{"log notification", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`, ShapeMessage, "0 notifications/message", ""},
		{"sampling request", `{"jsonrpc":"2.0","id":"s","method":"sampling/createMessage","params":{}}`, ShapeMessage, "0 sampling/createMessage", ""},
		{"error response", `{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}`, ShapeMessage, "0", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Read([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if r.Shape != tc.shape || said(r) != tc.want {
				t.Fatalf("shape %s, said %q; want %s, %q", r.Shape, said(r), tc.shape, tc.want)
			}
			if tc.message != "" && string(r.Said[0].Message) != tc.message {
				t.Errorf("message %s, want %s", r.Said[0].Message, tc.message)
			}
		})
	}
}

// TestSessionDirections states, per session, which lines are the
// server's (scanned, with the method they belong to) and which are
// skipped.
func TestSessionDirections(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"a call and its result", []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_issue"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		}, "2 tools/call; skip 1 tools/call"},
		{"the answers to initialize and tools/list are judged otherwise", []string{
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`,
			`{"jsonrpc":"2.0","id":0,"result":{"instructions":"x"}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`,
		}, "skip 1 initialize; skip 2 initialize; skip 3 notifications/initialized; skip 4 tools/list; skip 5 tools/list"},
		{"the server's request is scanned, the client's answer is not", []string{
			`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}}`,
			`{"jsonrpc":"2.0","id":"s1","result":{"role":"assistant","content":{"type":"text","text":"x"}}}`,
		}, "1 sampling/createMessage; skip 2 sampling/createMessage"},
		{"an answer to a request not recorded is the server's", []string{
			`{"jsonrpc":"2.0","id":9,"result":{"content":[]}}`,
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"x"}}`,
		}, "1; 2 notifications/message"},
		{"an id pending on both sides: the answer may be the server's", []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":1,"method":"roots/list"}`,
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`,
		}, "2 roots/list; 3 tools/list; skip 1 tools/list"},
		{"an id answered once is forgotten", []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
		}, "3; skip 1 tools/list; skip 2 tools/list"},
		{"a string id is not a number id", []string{
			`{"jsonrpc":"2.0","id":"1","method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`,
		}, "2; skip 1 tools/list"},
		{"either side's messages are scanned", []string{
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1,"message":"x"}}`,
			`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":4,"result":{}}`,
		}, "1 notifications/progress; 2 ping; 3 ping"},
		{"blank lines and CRLF", []string{
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"x"}}` + "\r",
			"",
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"y"}}`,
		}, "1 notifications/message; 3 notifications/message"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Read([]byte(strings.Join(tc.lines, "\n") + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			if r.Shape != ShapeSession || said(r) != tc.want {
				t.Fatalf("shape %s\n got %q\nwant %q", r.Shape, said(r), tc.want)
			}
			for _, s := range r.Said {
				if want := strings.TrimSuffix(tc.lines[s.Line-1], "\r"); string(s.Message) != want {
					t.Errorf("line %d: message %s, want the line itself", s.Line, s.Message)
				}
			}
		})
	}
}

// TestReadErrors: every refusal names where and what, and none panics.
func TestReadErrors(t *testing.T) {
	session := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"x"}}` + "\n"
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", "", "the file is empty: want a CallToolResult"},
		{"blank", " \n\t\n", "the file is empty"},
		{"not JSON", "not json", "line 1, column 2: not valid JSON: invalid character"},
		{"cut short", `{"content":[{"type":"text","text":"a`, "line 1, column 37: not valid JSON: the JSON ends early"},
		{"bad session line", session + session + `{"jsonrpc":"2.0",,}` + "\n" + session, "line 3, column 18: not valid JSON"},
		{"a session line that is no message", session + `{"content":[]}` + "\n", `line 2: no JSON-RPC message here (no "method" and no "id"): each line of a session is one JSON-RPC message`},
		{"a session line that is a batch", session + `[` + strings.TrimSpace(session) + `]` + "\n", "line 2: a JSON-RPC batch"},
		{"a single batch", `[` + strings.TrimSpace(session) + `]`, "JSON array; a JSON-RPC batch is refused by the gate whole"},
		{"a string", `"hello"`, "the file is a JSON string: want a CallToolResult"},
		{"an object of neither shape", `{"tools":[]}`, `neither a CallToolResult (it has no "content" or "structuredContent") nor a JSON-RPC message`},
		{"an empty object", `{}`, "the object is empty"},
		{"content not an array", `{"content":"text"}`, `"content" is a JSON string: a CallToolResult's content is an array`},
		{"structured content not an object", `{"structuredContent":[1]}`, `"structuredContent" is a JSON array`},
		{"duplicate name in a result", "{\"content\":[\n {\"type\":\"text\",\"text\":\"a\",\"text\":\"b\"}]}", "line 2, column 28: duplicate object member name at /content/0/text"},
		{"duplicate name in a session line", session + `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"x","data":"y"}}` + "\n", "line 2, column 72: duplicate object member name at /params/data"},
		{"invalid UTF-8", "{\"content\":[{\"type\":\"text\",\"text\":\"\xff\"}]}", "line 1, column 36: invalid UTF-8 at /content/0/text"},
		{"the agent's request alone", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`, "the message is a tools/call request, which the agent sends, not something a server says"},
		{"a folded member name", `{"jsonrpc":"2.0","id":1,"Result":{"content":[]}}`, "differs from a JSON-RPC member's only in case"},
		{"an id of the wrong kind", `{"jsonrpc":"2.0","id":{},"result":{}}`, "message id is neither a string nor a number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Read([]byte(tc.in))
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, %v; want an error containing %q", r, err, tc.want)
			}
		})
	}
}

// FuzzRead: no input panics, and every message Read returns is what the
// gate's parser reads as one message.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"hi"}]}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}` + "\n" + `{"jsonrpc":"2.0","id":1,"result":{}}`))
	f.Add([]byte("{\n\"a\":\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Read(data)
		if err != nil {
			return
		}
		if len(r.Said)+len(r.Skipped) == 0 {
			t.Fatalf("nothing read from %q", data)
		}
	})
}
