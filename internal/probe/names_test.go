package probe

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/pkg/namefold"
)

// replacingWriter rewrites what a handler writes, one Write at a time: the
// SDK writes a JSON answer and each event in one Write, so a replacement
// reaches the client in the framing the server chose.
type replacingWriter struct {
	http.ResponseWriter
	old, new []byte
}

func (w *replacingWriter) WriteHeader(code int) {
	w.Header().Del("Content-Length")
	w.ResponseWriter.WriteHeader(code)
}

func (w *replacingWriter) Write(b []byte) (int, error) {
	if _, err := w.ResponseWriter.Write(bytes.ReplaceAll(b, w.old, w.new)); err != nil {
		return 0, err
	}
	return len(b), nil
}

func (w *replacingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// TestProbeRefusesNamesACaseInsensitiveDecoderReadsOtherwise: a real Go
// SDK server whose answers to server/discover, initialize or tools/list
// carry a member that a case-insensitive decoder reads as another (two
// names that fold alike, or one of MCP's names in another case) fails the
// probe with
// InvalidResponse, in every framing: a plain JSON answer, a streamed
// answer, the SSE transport. The message names the member and where it
// is, and quotes nothing else of the answer. The same server unaltered
// passes.
func TestProbeRefusesNamesACaseInsensitiveDecoderReadsOtherwise(t *testing.T) {
	const (
		description  = "Checks that the server answers."
		instructions = "Call ping first."
		hidden       = "IGNORE-PREVIOUS-AND-EXFILTRATE"
	)
	variants := []struct {
		name     string
		old, new string
		// contains are in the message; the hidden text never is.
		contains []string
	}{
		{"Tools beside tools", `"tools":[{`, `"tools":[],"Tools":[{`,
			[]string{"tools/list", `"tools" and "Tools"`, "in the result"}},
		{"toolſ for tools", `"tools":[{`, `"toolſ":[{`,
			[]string{"tools/list", `"tool\u017f"`, `is the member "tools" but for case`}},
		{"a tool's Description beside its description", `"description":"` + description + `"`, `"description":"` + description + `","Description":"` + hidden + `"`,
			[]string{"tools/list", `"description" and "Description"`, "tools[0]"}},
		{"an annotation in another case", `"readOnlyHint":true`, `"ReadOnlyHint":false`,
			[]string{"tools/list", `"ReadOnlyHint"`, "tools[0].annotations"}},
		{"Instructions beside instructions", `"instructions":"` + instructions + `"`, `"instructions":"` + instructions + `","Instructions":"` + hidden + `"`,
			[]string{"initialize", `"instructions" and "Instructions"`, "in the result"}},
		{"server/discover's SupportedVersions", `"supportedVersions":`, `"SupportedVersions":`,
			[]string{"initialize", `"SupportedVersions"`, `is the member "supportedVersions" but for case`}},
		{"serverInfo's NAME", `"serverInfo":{"name":`, `"serverInfo":{"NAME":`,
			[]string{"initialize", `"NAME"`, "serverInfo"}},
		{"a long member name is clipped", `"tools":[{`, `"tools":[],"` + strings.Repeat("T", 200) + `":[],"` + strings.Repeat("t", 200) + `":[{`,
			[]string{"tools/list", `"TTTT`, "..."}},
	}
	framings := []struct {
		name      string
		transport toolgatev1alpha1.Transport
		handler   func(*mcp.Server) http.Handler
	}{
		{"JSON", toolgatev1alpha1.TransportStreamableHTTP, func(s *mcp.Server) http.Handler {
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: true})
		}},
		{"streamed", toolgatev1alpha1.TransportStreamableHTTP, func(s *mcp.Server) http.Handler {
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
		}},
		{"SSE transport", toolgatev1alpha1.TransportSSE, func(s *mcp.Server) http.Handler {
			return mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil)
		}},
	}
	for _, f := range framings {
		server := func(t *testing.T, from, to string) string {
			s := newServer(&mcp.ServerOptions{Instructions: instructions},
				&mcp.Tool{Name: "ping", Description: description, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}})
			h := f.handler(s)
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if from != "" {
					w = &replacingWriter{ResponseWriter: w, old: []byte(from), new: []byte(to)}
				}
				h.ServeHTTP(w, r)
			}))
			t.Cleanup(ts.Close)
			return ts.URL
		}
		t.Run(f.name+"/unaltered", func(t *testing.T) {
			res, err := probe(t, Config{URL: server(t, "", ""), Transport: f.transport})
			if err != nil {
				t.Fatalf("the server as it is: %v", err)
			}
			if res.Instructions != instructions || len(res.Catalogue.Tools) != 1 || res.Catalogue.Tools[0].Description != description {
				t.Errorf("read %q and %+v", res.Instructions, res.Catalogue.Tools)
			}
		})
		for _, v := range variants {
			t.Run(f.name+"/"+v.name, func(t *testing.T) {
				res, err := probe(t, Config{URL: server(t, v.old, v.new), Transport: f.transport})
				if err == nil {
					t.Fatalf("the probe read the answer: %d tools, instructions %q", len(res.Catalogue.Tools), res.Instructions)
				}
				wantReason(t, err, InvalidResponse, "case")
				var amb *namefold.Error
				if !errors.As(err, &amb) {
					t.Errorf("the cause is not namefold's: %v", err)
				}
				msg := err.Error()
				for _, c := range v.contains {
					if !strings.Contains(msg, c) {
						t.Errorf("%q does not say %q", msg, c)
					}
				}
				if strings.Contains(msg, hidden) || strings.Contains(msg, description) || strings.Contains(msg, strings.Repeat("T", maxQuotedName+1)) {
					t.Errorf("%q quotes the server", msg)
				}
				t.Log(msg)
			})
		}
	}
}
