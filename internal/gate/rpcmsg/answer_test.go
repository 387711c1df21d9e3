package rpcmsg

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestAnswerCheck(t *testing.T) {
	big := strings.Repeat(`{"type":"text","text":"a \"quoted\" } ] { [ \\ line"},`, 2000)
	for _, tc := range []struct {
		name string
		id   string // the request's raw id
		body string
		ok   bool
	}{
		{name: "result", id: `7`, body: `{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`, ok: true},
		{name: "error", id: `7`, body: `{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"no"}}`, ok: true},
		{name: "string id", id: `"a-1"`, body: `{"jsonrpc":"2.0","result":{},"id":"a-1"}`, ok: true},
		{name: "id re-escaped", id: `"a/b"`, body: `{"jsonrpc":"2.0","id":"a\/b","result":{}}`, ok: true},
		{name: "id written 1.0", id: `1`, body: `{"jsonrpc":"2.0","id":1.0,"result":{}}`, ok: true},
		{name: "whitespace around", id: `1`, body: " \r\n\t{ \"id\" : 1 , \"result\" : { } }\n\n", ok: true},
		{name: "large nested result", id: `1`, body: `{"jsonrpc":"2.0","id":1,"result":{"content":[` + big + `{}]}}`, ok: true},
		{name: "result null", id: `1`, body: `{"id":1,"result":null}`, ok: true},
		{name: "long other member", id: `1`, body: `{"id":1,"` + strings.Repeat("k", 200) + `":1,"result":{}}`, ok: true},
		{name: "name escaped as another", id: `1`, body: `{"id":1,"resul\u0074x":1,"result":{}}`, ok: true},

		{name: "another id", id: `7`, body: `{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}`},
		{name: "string for number", id: `7`, body: `{"jsonrpc":"2.0","id":"7","result":{}}`},
		{name: "batch", id: `7`, body: `[{"jsonrpc":"2.0","id":7,"result":{}}]`},
		{name: "a request", id: `7`, body: `{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{}}`},
		{name: "a notification", id: `7`, body: `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`},
		{name: "method after the result", id: `7`, body: `{"jsonrpc":"2.0","id":7,"result":{},"method":"x"}`},
		{name: "two ids", id: `7`, body: `{"jsonrpc":"2.0","id":7,"id":3,"result":{}}`},
		{name: "two ids, one escaped", id: `7`, body: `{"jsonrpc":"2.0","id":7,"\u0069d":3,"result":{}}`},
		{name: "escaped id only, another", id: `7`, body: `{"jsonrpc":"2.0","\u0069\u0064":3,"result":{}}`},
		{name: "id in another case", id: `7`, body: `{"jsonrpc":"2.0","id":7,"ID":3,"result":{}}`},
		{name: "result folded with long s", id: `7`, body: `{"jsonrpc":"2.0","id":7,"re\u017fult":{},"error":{}}`},
		{name: "result and error", id: `7`, body: `{"jsonrpc":"2.0","id":7,"result":{},"error":{"code":1,"message":"m"}}`},
		{name: "two results", id: `7`, body: `{"jsonrpc":"2.0","id":7,"result":{},"result":{"tools":[]}}`},
		{name: "no outcome", id: `7`, body: `{"jsonrpc":"2.0","id":7}`},
		{name: "no id", id: `7`, body: `{"jsonrpc":"2.0","result":{}}`},
		{name: "null id", id: `7`, body: `{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}`},
		{name: "object id", id: `7`, body: `{"jsonrpc":"2.0","id":{"a":7},"result":{}}`},
		{name: "trailing object", id: `7`, body: `{"jsonrpc":"2.0","id":7,"result":{}}{"jsonrpc":"2.0","id":3,"result":{}}`},
		{name: "trailing garbage", id: `7`, body: `{"jsonrpc":"2.0","id":7,"result":{}}x`},
		{name: "ends early", id: `7`, body: `{"jsonrpc":"2.0","id":7,"result":{"content":[`},
		{name: "empty", id: `7`, body: ``},
		{name: "spaces", id: `7`, body: "  \n"},
		{name: "not an object", id: `7`, body: `"id"`},
		{name: "closer mismatched", id: `7`, body: `{"id":7,"result":{"a":[1}],"id":3}`},
		{name: "trailing comma", id: `7`, body: `{"id":7,"result":{},}`},
		{name: "control byte in a name", id: `7`, body: "{\"i\nd\":7,\"result\":{}}"},
		{name: "bad escape", id: `7`, body: `{"id":7,"result":{},"\q":1}`},
		{name: "id far too long", id: `7`, body: `{"id":7` + strings.Repeat("0", 200) + `,"result":{}}`},
		{name: "too deep", id: `7`, body: `{"id":7,"result":` + strings.Repeat("[", maxAnswerDepth) + strings.Repeat("]", maxAnswerDepth) + `}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckAnswer([]byte(tc.body), []byte(tc.id))
			if (err == nil) != tc.ok {
				t.Fatalf("CheckAnswer = %v, want ok %v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrBadAnswer) {
				t.Fatalf("error %v does not wrap ErrBadAnswer", err)
			}
			// Fed a byte at a time, the check decides the same.
			c := NewAnswerCheck([]byte(tc.id))
			var werr error
			for i := range len(tc.body) {
				if werr = c.Write([]byte{tc.body[i]}); werr != nil {
					break
				}
			}
			if werr == nil {
				werr = c.Close()
			}
			if !errors.Is(werr, err) && !(werr == nil && err == nil) {
				t.Fatalf("byte by byte: %v, whole: %v", werr, err)
			}
			if got := referenceAnswer([]byte(tc.body), []byte(tc.id)); json.Valid([]byte(tc.body)) && got != tc.ok {
				t.Fatalf("the reference reads it %v", got)
			}
		})
	}
}

// A refusal is known as early as the bytes that cause it: nothing after
// them needs to be read, and none of them written.
func TestAnswerCheckRefusesEarly(t *testing.T) {
	for body, refusedAt := range map[string]int{
		`[{"id":1,"result":{}}]`:                0,
		`{"id":1,"method":"x","params":{}}`:     len(`{"id":1,"method"`) - 1,
		`{"id":3,"result":{"tools":[]}}`:        len(`{"id":3`),
		`{"id":1,"result":{},"result":{}}`:      len(`{"id":1,"result":{},"result"`) - 1,
		`{"id":1,"result":{}} {"id":1}`:         len(`{"id":1,"result":{}} `),
		`{"id":1,"\u0069d":1,"result":{}}`:      len(`{"id":1,"\u0069d"`) - 1,
		`{"ID":1,"id":1,"result":{"x":"y"}}`:    len(`{"ID"`) - 1,
		`{"id":"1","result":{"x":"y"}} trail`:   len(`{"id":"1"`) - 1,
		`{"id":1,"result":{"a":[1}]}`:           len(`{"id":1,"result":{"a":[1}`) - 1,
		`{"id":1,"result":{}}` + "\x00":         len(`{"id":1,"result":{}}`),
		`{"id":1,"result":{}}` + `,{"id":1}`:    len(`{"id":1,"result":{}}`),
		`{"id":1,"result":{}, "method":"ping"}`: len(`{"id":1,"result":{}, "method"`) - 1,
	} {
		c := NewAnswerCheck([]byte("1"))
		for i := range len(body) {
			if err := c.Write([]byte{body[i]}); err != nil {
				if i != refusedAt {
					t.Errorf("%q refused at byte %d (%q), want %d: %v", body, i, body[i], refusedAt, err)
				}
				break
			}
			if i == len(body)-1 {
				t.Errorf("%q not refused while written: %v", body, c.Close())
			}
		}
	}
}

// referenceAnswer is the strict reading of an answer: encoding/json reads
// the object's members (escapes decoded, as the agent's client does), and
// the id is compared as the gate compares ids. It applies the check's two
// bounds (nesting and the id's length).
func referenceAnswer(body, requestID []byte) bool {
	if !json.Valid(body) || nesting(body) > maxAnswerDepth {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	ids, outcomes := 0, 0
	var id json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return false
		}
		switch name {
		case "id":
			ids++
			id = v
		case "result", "error":
			outcomes++
		case "method":
			return false
		default:
			for _, member := range []string{"jsonrpc", "id", "result", "error", "method", "params"} {
				if name != member && strings.EqualFold(name, member) {
					return false
				}
			}
		}
	}
	if ids != 1 || outcomes != 1 || len(id) > MaxAnswerIDBytes(requestID) {
		return false
	}
	if k := id[0]; k != '"' && k != '-' && (k < '0' || k > '9') {
		return false
	}
	return IDKey(id) == IDKey(requestID)
}

// nesting is the deepest nesting of a valid JSON document.
func nesting(b []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// FuzzAnswerCheck: whatever a server sends, the check never panics, decides
// the same however the body is cut, accepts every body the strict reading
// accepts, and of valid JSON accepts nothing else.
func FuzzAnswerCheck(f *testing.F) {
	for _, s := range []struct{ body, id string }{
		{`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"x"}]}}`, `7`},
		{`{"jsonrpc":"2.0","id":"a\/b","error":{"code":1,"message":"m"}}`, `"a/b"`},
		{`{"jsonrpc":"2.0","\u0069d":1,"id":1,"result":{}}`, `1`},
		{`[{"jsonrpc":"2.0","id":1,"result":{}}]`, `1`},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `1`},
		{`{"jsonrpc":"2.0","Id":1,"reſult":{}} `, `1`},
		{`{"id":1e0,"result":{"a":["}",{"b":"\"]"}]}}`, `1`},
	} {
		f.Add([]byte(s.body), s.id, uint16(len(s.body)/2))
	}
	f.Fuzz(func(t *testing.T, body []byte, requestID string, cut uint16) {
		if m, err := Scan([]byte(`{"jsonrpc":"2.0","method":"tools/call","id":` + requestID + `}`)); err != nil || string(m.ID) != requestID {
			return // not an id the gate would forward a request with
		}
		want := []byte(requestID)
		whole := CheckAnswer(body, want)
		c := NewAnswerCheck(want)
		at := int(cut) % (len(body) + 1)
		err := c.Write(body[:at])
		if err == nil {
			err = c.Write(body[at:])
		}
		if err == nil {
			err = c.Close()
		}
		if (err == nil) != (whole == nil) {
			t.Fatalf("cut at %d: %v, whole: %v", at, err, whole)
		}
		ref := referenceAnswer(body, want)
		if ref && whole != nil {
			t.Fatalf("refused what the strict reading accepts: %v", whole)
		}
		if !ref && whole == nil && json.Valid(body) {
			t.Fatal("accepted valid JSON the strict reading refuses")
		}
	})
}

// BenchmarkAnswerCheck is the check over a 1 MiB tools/call result, fed as
// the gate reads it.
func BenchmarkAnswerCheck(b *testing.B) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[` + strings.Repeat(`{"type":"text","text":"a line of text with \"quotes\" in it"},`, 1<<20/52) + `{}]}}`)
	c := NewAnswerCheck([]byte("1"))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		c.Reset([]byte("1"))
		for p := body; len(p) > 0; {
			n := min(len(p), 32<<10)
			if err := c.Write(p[:n]); err != nil {
				b.Fatal(err)
			}
			p = p[n:]
		}
		if err := c.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
