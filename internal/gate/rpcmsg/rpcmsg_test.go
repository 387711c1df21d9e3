package rpcmsg

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/pkg/tooldef"
)

func TestScan(t *testing.T) {
	for _, tc := range []struct {
		in            string
		method, name  string
		id            string
		wantErr       bool
		args, hasMeta bool
	}{
		{in: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"a":1},"_meta":{"progressToken":1}}}`, method: "tools/call", name: "echo", id: "7", args: true, hasMeta: true},
		{in: `{"params":{"name":"echo"},"method":"tools/call","id":"x"}`, method: "tools/call", name: "echo", id: `"x"`},
		{in: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, method: "notifications/initialized"},
		{in: `{"jsonrpc":"2.0","id":1,"result":{}}`, id: "1"},
		// Two parsers could pick different names: refused.
		{in: `{"id":1,"method":"tools/call","params":{"name":"echo","name":"delete_all"}}`, wantErr: true},
		{in: `{"id":1,"method":"tools/call","method":"ping"}`, wantErr: true},
		{in: "{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"e\xffcho\"}}", wantErr: true},
		{in: `[{"id":1,"method":"ping"}]`, wantErr: true},
		{in: `{"id":{},"method":"ping"}`, wantErr: true},
		{in: `{"id":1,"method":"ping"} {}`, wantErr: true},
		{in: `{}`, wantErr: true},
		// A name that is a member's but for case: a loose decoder reads
		// the second id, or the list, as the message's own.
		{in: `{"jsonrpc":"2.0","id":5,"ID":7,"result":{"tools":[]}}`, wantErr: true},
		{in: `{"jsonrpc":"2.0","id":5,"Result":{"tools":[]},"error":{"code":1,"message":"x"}}`, wantErr: true},
		{in: `{"jsonrpc":"2.0","id":5,"reſult":{}}`, wantErr: true},
		{in: `{"jsonrpc":"2.0","id":5,"\u0049D":7,"result":{}}`, wantErr: true},
		{in: `{"jsonrpc":"2.0","METHOD":"tools/list","id":5,"result":{}}`, wantErr: true},
		{in: `{"jsonrpc":"2.0","Error":{},"id":5,"result":{}}`, wantErr: true},
		// Names merely close to a member's pass.
		{in: `{"jsonrpc":"2.0","id":5,"ids":7,"result":{}}`, id: "5"},
	} {
		m, err := Scan([]byte(tc.in))
		if (err != nil) != tc.wantErr {
			t.Errorf("Scan(%s): error %v, want error %v", tc.in, err, tc.wantErr)
			continue
		}
		if err != nil {
			continue
		}
		if m.Method != tc.method || m.Name != tc.name || string(m.ID) != tc.id || (m.Arguments != nil) != tc.args || (m.Meta != nil) != tc.hasMeta {
			t.Errorf("Scan(%s) = %+v", tc.in, m)
		}
	}
}

func TestIDKey(t *testing.T) {
	if IDKey([]byte("1")) != IDKey([]byte("1.0")) || IDKey([]byte(`"a\/b"`)) != IDKey([]byte(`"a/b"`)) || IDKey([]byte(`"1"`)) == IDKey([]byte("1")) {
		t.Fatal("IDKey does not compare ids as JSON-RPC means them")
	}
}

const listMsg = `{"jsonrpc":"2.0","id":3,"result":{"tools":[
  {"name":"keep","description":"kept",  "inputSchema":{"type":"object"},"x-unknown":{"b":2, "a":1}},
  {"name":"drop","inputSchema":{"type":"object"}},
  {"name":"keep2","inputSchema":{"type":"object"}}],
 "nextCursor":"c2","ttlMs":60000,"cacheScope":"public","_meta":{"k":"v"}}}`

func TestFilterListSplicesBytes(t *testing.T) {
	out, res, err := FilterList(nil, []byte(listMsg), ListOptions{
		Keep:  func(l *Listed) bool { return l.Name != "drop" },
		Cache: true, MaxTTLMs: 0,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.NextCursor != "c2" || len(res.Tools) != 3 || !res.Changed {
		t.Fatalf("result %+v", res)
	}
	// The kept tool's bytes are the server's, whitespace and unknown
	// member and all.
	if !bytes.Contains(out, []byte(`{"name":"keep","description":"kept",  "inputSchema":{"type":"object"},"x-unknown":{"b":2, "a":1}}`)) {
		t.Fatalf("kept tool re-encoded: %s", out)
	}
	if bytes.Contains(out, []byte(`"drop"`)) {
		t.Fatalf("dropped tool still there: %s", out)
	}
	if !bytes.Contains(out, []byte(`"cacheScope":"private"`)) || !bytes.Contains(out, []byte(`"ttlMs":0`)) || !bytes.Contains(out, []byte(`"_meta":{"k":"v"}`)) {
		t.Fatalf("cache fields or the rest not as expected: %s", out)
	}
	if !json.Valid(out) {
		t.Fatalf("output is not JSON: %s", out)
	}
	// The fingerprint is pkg/tooldef's, over the definition as sent.
	tl, _ := tooldef.ParseTool([]byte(`{"name":"keep","description":"kept","inputSchema":{"type":"object"},"x-unknown":{"a":1,"b":2}}`))
	if res.Tools[0].Fingerprint != tl.Fingerprint() {
		t.Fatal("fingerprint differs from pkg/tooldef's")
	}
}

func TestFilterListAddsPrivateScope(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}`
	out, _, err := FilterList(nil, []byte(in), ListOptions{Cache: true})
	if err != nil || !strings.Contains(string(out), `{"cacheScope":"private","tools"`) {
		t.Fatalf("%s, %v", out, err)
	}
	// Unchanged input comes back as is.
	out, res, _ := FilterList(nil, []byte(in), ListOptions{Keep: func(*Listed) bool { return true }})
	if string(out) != in || res.Changed {
		t.Fatalf("unchanged list rewritten: %s", out)
	}
}

func TestFilterListRefusesWhatItCannotCheck(t *testing.T) {
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"tools":{}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[],"tools":[]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1}`,
		`not json`,
	} {
		if _, _, err := FilterList(nil, []byte(in), ListOptions{}); err == nil {
			t.Errorf("FilterList(%s) accepted", in)
		}
	}
	// A tool whose definition cannot be read is dropped, never passed.
	in := `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":1},{"name":"ok"}]}}`
	out, res, err := FilterList(nil, []byte(in), ListOptions{Keep: func(*Listed) bool { return true }})
	if err != nil || res.Tools[0].Err == nil || strings.Contains(string(out), `"name":1`) {
		t.Fatalf("%s, %+v, %v", out, res, err)
	}
	// An entry that is no definition still has its name read, when it is
	// a string.
	in = `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"bad","inputSchema":1}]}}`
	if _, res, err := FilterList(nil, []byte(in), ListOptions{Keep: func(*Listed) bool { return true }}); err != nil || res.Tools[0].Err == nil || res.Tools[0].Name != "bad" {
		t.Fatalf("%+v, %v", res, err)
	}
}

func TestClientMeta(t *testing.T) {
	got := string(ClientMeta([]byte(`{"progressToken":5,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"x":{}}}`), "2026-07-28"))
	if strings.Contains(got, "progressToken") || !strings.Contains(got, `"io.modelcontextprotocol/clientCapabilities":{"x":{}}`) || !json.Valid([]byte(got)) {
		t.Fatal(got)
	}
}

// FuzzFilter: whatever a server or an agent sends, the readers never panic,
// and whatever FilterList accepts, its output is valid JSON holding only
// kept tools.
func FuzzFilter(f *testing.F) {
	f.Add([]byte(listMsg))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = Scan(b)
		_ = IDKey(b)
		_ = ClientMeta(b, "2026-07-28")
		out, res, err := FilterList(nil, b, ListOptions{Keep: func(l *Listed) bool { return len(l.Name)%2 == 0 }, Cache: true})
		if err != nil || res.IsError {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("output is not JSON: %q", out)
		}
		_, again, err := FilterList(nil, out, ListOptions{})
		if err != nil {
			t.Fatalf("output does not read back: %v", err)
		}
		for _, l := range again.Tools {
			if len(l.Name)%2 != 0 {
				t.Fatalf("a dropped tool survived: %q", l.Name)
			}
		}
	})
}

// ttlMs reaches the agent as a non-negative integer no greater than the
// gate allows, however the server wrote it.
func TestFilterListNormalisesTTL(t *testing.T) {
	for _, tc := range []struct {
		ttl  string
		max  int64
		want string
	}{
		{`60000`, 100000, `60000`},
		{`60000`, 1500, `1500`},
		{`0`, 0, `0`},
		{`0.9`, 1500, `0`},
		{`1.5e3`, 100000, `1500`},
		{`1e400`, 1500, `0`},
		{`-1e400`, 1500, `0`},
		{`-5`, 1500, `0`},
		{`-0`, 1500, `0`},
		{`99999999999999999999`, 1500, `1500`},
		{`"60000"`, 1500, `0`},
		{`null`, 1500, `0`},
		{`{"ms":1}`, 1500, `0`},
		{`60000`, -1, `0`},
	} {
		in := `{"jsonrpc":"2.0","id":1,"result":{"tools":[],"cacheScope":"public","ttlMs":` + tc.ttl + `}}`
		out, _, err := FilterList(nil, []byte(in), ListOptions{Cache: true, MaxTTLMs: tc.max})
		if err != nil {
			t.Fatalf("ttlMs %s: %v", tc.ttl, err)
		}
		if !strings.Contains(string(out), `"ttlMs":`+tc.want+`}`) || !strings.Contains(string(out), `"cacheScope":"private"`) {
			t.Errorf("ttlMs %s under %d: %s, want ttlMs %s", tc.ttl, tc.max, out, tc.want)
		}
	}
}

// Charge sees what the list costs decoded, and an error from it stops
// FilterList with an error that wraps it.
func TestFilterListCharges(t *testing.T) {
	errBudget := errors.New("over budget")
	var charged int64
	charge := func(n int64) error {
		charged += n
		if charged > 64<<10 {
			return errBudget
		}
		return nil
	}
	in := `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object","x":[` + strings.Repeat("[],", 10000) + `[]]}}]}}`
	if _, _, err := FilterList(nil, []byte(in), ListOptions{Charge: charge}); !errors.Is(err, errBudget) {
		t.Fatalf("a list over its budget: %v", err)
	}
	charged = 0
	in = `{"jsonrpc":"2.0","id":1,"result":{"tools":[` + strings.Repeat(`{"name":"a"},`, 100) + `{"name":"a"}]}}`
	if _, _, err := FilterList(nil, []byte(in), ListOptions{Charge: charge}); !errors.Is(err, errBudget) {
		t.Fatalf("a list of many tiny tools over its budget: %v", err)
	}
	charged = 0
	if _, _, err := FilterList(nil, []byte(listMsg), ListOptions{Charge: charge}); err != nil || charged == 0 {
		t.Fatalf("a small list: charged %d, %v", charged, err)
	}
}

func TestScanReadsURI(t *testing.T) {
	m, err := Scan([]byte(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///a"}}`))
	if err != nil || m.URI != "file:///a" {
		t.Fatalf("%+v %v", m, err)
	}
}
