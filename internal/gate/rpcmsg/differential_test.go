package rpcmsg

import (
	"bytes"
	stdjson "encoding/json"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The differential property the gate rests on: whatever a message it
// accepts says to the gate, it says the same to a peer whose decoder
// matches member names case-insensitively with Unicode folding, last match
// winning — Go's encoding/json, which mark3labs/mcp-go and many servers
// decode with. The fuzz targets below check it against encoding/json
// itself, for the request path (a tools/call as judged and as forwarded)
// and the list path (a filtered tools/list as an agent reads it).

// looseCall is a tools/call as encoding/json reads it.
type looseCall struct {
	Method string `json:"method"`
	Params struct {
		Name      string             `json:"name"`
		Arguments stdjson.RawMessage `json:"arguments"`
		Meta      stdjson.RawMessage `json:"_meta"`
	} `json:"params"`
}

func sameJSON(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	va, vb := jsontext.Value(bytes.Clone(a)), jsontext.Value(bytes.Clone(b))
	errA := va.Canonicalize()
	errB := vb.Canonicalize()
	return errA == nil && errB == nil && bytes.Equal(va, vb)
}

func FuzzCallReading(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Paris"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","Name":"delete_repository"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","argumentſ":{"x":1}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"},"Params":{"name":"b"}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"n\u0061me":"a","_meta":{"progressToken":1}}}`,
		`{"id":2,"method":"tools/call","params":{"name":"a","arguments":{"repo":"x","Repo":"y"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Scan(b)
		if err != nil || m.Method != MethodToolsCall || m.ID == nil {
			return
		}
		if CheckRequest(b) != nil {
			return
		}
		for _, msg := range [][]byte{b, CallRequest(m.ID, &m)} {
			var loose looseCall
			if stdjson.Unmarshal(msg, &loose) != nil {
				// A peer that cannot read the message runs nothing.
				continue
			}
			if loose.Method != m.Method || loose.Params.Name != m.Name {
				t.Fatalf("the gate read %q %q, encoding/json reads %q %q in %s", m.Method, m.Name, loose.Method, loose.Params.Name, msg)
			}
			if !sameJSON(loose.Params.Arguments, m.Arguments) {
				t.Fatalf("the gate read arguments %s, encoding/json reads %s in %s", m.Arguments, loose.Params.Arguments, msg)
			}
			if !sameJSON(loose.Params.Meta, m.Meta) {
				t.Fatalf("the gate read _meta %s, encoding/json reads %s in %s", m.Meta, loose.Params.Meta, msg)
			}
		}
	})
}

// looseTool is a tool as encoding/json reads it.
type looseTool struct {
	Name        string             `json:"name"`
	Description string             `json:"description"`
	InputSchema stdjson.RawMessage `json:"inputSchema"`
}

type looseList struct {
	Result struct {
		Tools []looseTool `json:"tools"`
	} `json:"result"`
}

func FuzzListReading(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","description":"A.","inputSchema":{"type":"object"}},{"name":"bb","inputSchema":{}}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{}}],"Tools":[{"name":"a","description":"poison","inputSchema":{}}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"toolſ":[{"name":"a","inputSchema":{}}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","description":"x","DESCRIPTION":"y","inputSchema":{}}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[]},"Result":{"tools":[{"name":"z","inputSchema":{}}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// Keep the tools whose names have an odd length: some are cut.
		out, res, err := FilterList(nil, b, ListOptions{Keep: func(l *Listed) bool { return len(l.Name)%2 == 1 }})
		if err != nil || res.IsError {
			return
		}
		var want []looseTool
		for _, l := range res.Tools {
			if !l.Kept {
				continue
			}
			var exact looseTool
			// json v2 matches names exactly, as the gate does.
			if json.Unmarshal(l.Raw, &exact) != nil {
				return
			}
			want = append(want, exact)
		}
		var loose looseList
		if stdjson.Unmarshal(out, &loose) != nil {
			return
		}
		got := loose.Result.Tools
		if len(got) != len(want) {
			t.Fatalf("the gate kept %d tools, encoding/json reads %d in %s", len(want), len(got), out)
		}
		for i := range got {
			if got[i].Name != want[i].Name || got[i].Description != want[i].Description || !sameJSON(got[i].InputSchema, want[i].InputSchema) {
				t.Fatalf("the gate kept %+v, encoding/json reads %+v in %s", want[i], got[i], out)
			}
		}
	})
}
