package hostile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Shape is what a hostile catalogue is made of.
type Shape int

const (
	// SmallValues makes each tool's input schema an enum of thousands of
	// empty objects, three bytes each on the wire and a map each decoded.
	SmallValues Shape = iota
	// LongStrings makes each tool's description one long string.
	LongStrings
)

// Catalogue is a paged tools/list catalogue, each page a JSON result.
type Catalogue struct {
	Pages [][]byte
}

// NewCatalogue builds pages of tools of about toolBytes each, toolsPerPage
// to a page.
func NewCatalogue(shape Shape, pages, toolsPerPage, toolBytes int) *Catalogue {
	c := &Catalogue{}
	for p := range pages {
		cursor := ""
		if p < pages-1 {
			cursor = "page-" + strconv.Itoa(p+1)
		}
		c.Pages = append(c.Pages, page(shape, p*toolsPerPage, toolsPerPage, toolBytes, cursor))
	}
	return c
}

// AtTheBounds is the largest catalogue the probe must read within its memory budget, at the default
// bounds: four pages of 125 tools (500, the default maxTools) of about
// 61 KB each, 7.6 MB a page (the response cap is 8 MiB).
func AtTheBounds(shape Shape) *Catalogue { return NewCatalogue(shape, 4, 125, 61_000) }

// Bytes is the catalogue's size on the wire.
func (c *Catalogue) Bytes() int {
	n := 0
	for _, p := range c.Pages {
		n += len(p)
	}
	return n
}

func page(shape Shape, first, tools, size int, cursor string) []byte {
	var b bytes.Buffer
	b.Grow(tools * size)
	b.WriteString(`{"tools":[`)
	for i := range tools {
		if i > 0 {
			b.WriteByte(',')
		}
		start := b.Len()
		fmt.Fprintf(&b, `{"name":"tool_%04d","description":"`, first+i)
		switch shape {
		case SmallValues:
			b.WriteString(`Takes one of many values.","inputSchema":{"type":"object","properties":{"p":{"type":"array","items":{"enum":[{}`)
			for b.Len()-start < size-16 {
				b.WriteString(`,{}`)
			}
			b.WriteString(`]}}}}}`)
		default:
			for b.Len()-start < size-64 {
				b.WriteString("Reads a record. ")
			}
			b.WriteString(`","inputSchema":{"type":"object"}}`)
		}
	}
	b.WriteString(`]`)
	if cursor != "" {
		fmt.Fprintf(&b, `,"nextCursor":%q`, cursor)
	}
	b.WriteString(`}`)
	return b.Bytes()
}

// Handler serves the catalogue over streamable HTTP, statelessly: plain
// JSON answers, or server-sent events when events is set.
func Handler(c *Catalogue, events bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
				Cursor          string `json:"cursor"`
			} `json:"params"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		var result []byte
		switch req.Method {
		case "initialize":
			result, _ = json.Marshal(map[string]any{
				"protocolVersion": req.Params.ProtocolVersion,
				"capabilities":    map[string]any{"tools": map[string]any{}},
				"serverInfo":      map[string]any{"name": "hostile", "version": "1"},
			})
		case "tools/list":
			p := 0
			if req.Params.Cursor != "" {
				rest, ok := strings.CutPrefix(req.Params.Cursor, "page-")
				n, err := strconv.Atoi(rest)
				if !ok || err != nil || n < 0 || n >= len(c.Pages) {
					http.Error(w, "bad cursor", http.StatusBadRequest)
					return
				}
				p = n
			}
			result = c.Pages[p]
		default:
			if len(req.ID) == 0 { // a notification
				w.WriteHeader(http.StatusAccepted)
				return
			}
			result = []byte(`{}`)
		}
		prefix := `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":`
		if events {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, "event: message\ndata: "+prefix)
			w.Write(result)
			_, _ = io.WriteString(w, "}\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(prefix)+len(result)+1))
		_, _ = io.WriteString(w, prefix)
		w.Write(result)
		_, _ = io.WriteString(w, "}")
	})
}
