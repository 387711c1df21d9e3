package gate

import (
	"net/http"
	"testing"
)

// TestParamHeadersReadEscapedAnnotations: the shortcut for schemas without
// x-mcp-header must not miss one whose name is written with escapes, which
// the schema's decoder reads as the same name.
func TestParamHeadersReadEscapedAnnotations(t *testing.T) {
	args := []byte(`{"region":"eu-west-1"}`)
	for name, schema := range map[string]string{
		"plain":   `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`,
		"escaped": `{"type":"object","properties":{"region":{"type":"string","x\u002dmcp\u002dheader":"Region"}}}`,
	} {
		h := http.Header{}
		paramHeaders(h, []byte(schema), args)
		if got := h.Get("Mcp-Param-Region"); got != "eu-west-1" {
			t.Errorf("%s: Mcp-Param-Region %q, want eu-west-1", name, got)
		}
	}
	h := http.Header{"Mcp-Param-Region": {"forged"}}
	paramHeaders(h, []byte(`{"type":"object","properties":{"region":{"type":"string"}}}`), args)
	if len(h) != 0 {
		t.Errorf("a schema without annotations left headers %v", h)
	}
}
