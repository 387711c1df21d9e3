package gate

import (
	"bytes"
	"encoding/base64"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// headerParamPrefix starts the headers of the stateless revision (SEP-2243)
// that repeat a call's arguments: a property of the tool's inputSchema
// annotated x-mcp-header is sent as Mcp-Param-{annotation} too, so that
// infrastructure may route on it. A server checks them against the body.
const headerParamPrefix = "Mcp-Param-"

// headerSchema is what an inputSchema says of x-mcp-header: the
// annotation of each property, nested properties included.
type headerSchema struct {
	Header     jsontext.Value          `json:"x-mcp-header"`
	Properties map[string]headerSchema `json:"properties"`
}

// maxHeaderParams bounds the Mcp-Param-* headers of one call: a schema is
// the server's to write, and each header costs the server's parser.
const maxHeaderParams = 32

// paramHeaders writes the Mcp-Param-* headers of a call from what the gate
// judged — the pinned definition's inputSchema (schema, raw JSON) and the
// call's arguments (raw JSON) — never from the agent's own headers: a
// header that said something the body does not would be a second meaning
// of the call. A value of a type SEP-2243 does not allow in a header
// (an object, an array, a fraction, an integer beyond 2^53) gets no header,
// as the official SDK's client does.
func paramHeaders(h http.Header, schema, arguments []byte) {
	for k := range h {
		if strings.HasPrefix(k, headerParamPrefix) {
			delete(h, k)
		}
	}
	if len(schema) == 0 || len(arguments) == 0 || !mayAnnotateHeaders(schema) {
		return
	}
	var s headerSchema
	if json.Unmarshal(schema, &s, json.RejectUnknownMembers(false)) != nil || len(s.Properties) == 0 {
		return
	}
	var args map[string]jsontext.Value
	if json.Unmarshal(arguments, &args) != nil {
		return
	}
	n := 0
	var walk func(props map[string]headerSchema, args map[string]jsontext.Value, depth int)
	walk = func(props map[string]headerSchema, args map[string]jsontext.Value, depth int) {
		for name, p := range props {
			v, ok := args[name]
			if !ok || n >= maxHeaderParams {
				continue
			}
			var header string
			if len(p.Header) > 0 && json.Unmarshal(p.Header, &header) == nil && validHeaderName(header) {
				if value, ok := headerParamValue(v); ok {
					h.Set(headerParamPrefix+header, value)
					n++
				}
			}
			if len(p.Properties) > 0 && depth < 8 && v.Kind() == '{' {
				var nested map[string]jsontext.Value
				if json.Unmarshal(v, &nested) == nil {
					walk(p.Properties, nested, depth+1)
				}
			}
		}
	}
	walk(s.Properties, args, 0)
}

// mayAnnotateHeaders reports whether a schema can hold an x-mcp-header
// annotation at all: most hold none, and for them every call would decode
// the schema and the arguments for nothing. A member name reaches the
// decoder either as written or through \u escapes, so a schema with
// neither the name as written nor any escape of that kind holds none.
func mayAnnotateHeaders(schema []byte) bool {
	return bytes.Contains(schema, []byte("x-mcp-header")) || bytes.Contains(schema, []byte(`\u`))
}

// validHeaderName reports whether an x-mcp-header annotation can name a
// header: a token of visible ASCII without separators.
func validHeaderName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// headerParamValue is a primitive argument as SEP-2243 writes it in a
// header: a string as is, unless a header cannot carry it plainly (then
// Base64 in the =?base64?…?= wrapper), a boolean as true or false, an
// integer within ±(2^53−1) in decimal.
func headerParamValue(v jsontext.Value) (string, bool) {
	switch v.Kind() {
	case '"':
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", false
		}
		if needsBase64(s) {
			return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=", true
		}
		return s, true
	case 't':
		return "true", true
	case 'f':
		return "false", true
	case '0':
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53-1 {
			return "", false
		}
		return strconv.FormatInt(int64(f), 10), true
	}
	return "", false
}

func needsBase64(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == ' ' || s[0] == '\t' || s[len(s)-1] == ' ' || s[len(s)-1] == '\t' {
		return true
	}
	for i := range len(s) {
		if s[i] < 0x20 || s[i] > 0x7e {
			return true
		}
	}
	return strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?=")
}
