package mcpshape

import (
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgate/toolgate/pkg/namefold"
)

func TestLevels(t *testing.T) {
	for _, tc := range []struct {
		name  string
		level *namefold.Level
		msg   string
		path  string // "" when the message passes
	}{
		{"plain list", ListResponse, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","description":"d","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}],"nextCursor":"c"}}`, ""},
		{"Tools beside tools", ListResponse, `{"jsonrpc":"2.0","id":1,"result":{"tools":[],"Tools":[{"name":"x"}]}}`, "/result"},
		{"toolſ", ListResponse, `{"jsonrpc":"2.0","id":1,"result":{"toolſ":[{"name":"x"}]}}`, "/result"},
		{"a tool's Description", ListResponse, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"x","description":"a","Description":"b"}]}}`, "/result/tools/0"},
		{"a tool's INPUTSCHEMA alone", ListResponse, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"x","INPUTSCHEMA":{}}]}}`, "/result/tools/0"},
		{"an annotation in another case", ListResponse, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"x","annotations":{"ReadOnlyHint":true}}]}}`, "/result/tools/0/annotations"},
		{"Result at the top", ListResponse, `{"jsonrpc":"2.0","id":1,"Result":{"tools":[]}}`, ""},
		{"an error's Code", Message, `{"jsonrpc":"2.0","id":1,"error":{"Code":1,"message":"m"}}`, "/error"},
		{"a schema may name properties in any case once", ListResponse, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"x","inputSchema":{"properties":{"Tools":{},"Name":{}}}}]}}`, ""},
		{"plain initialize", InitializeResponse, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"},"instructions":"i"}}`, ""},
		{"Instructions", InitializeResponse, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"},"Instructions":"i"}}`, "/result"},
		{"serverInfo's NAME", InitializeResponse, `{"jsonrpc":"2.0","id":0,"result":{"serverInfo":{"NAME":"s"}}}`, "/result/serverInfo"},
		{"capabilities' Tools", InitializeResponse, `{"jsonrpc":"2.0","id":0,"result":{"capabilities":{"Tools":{}}}}`, "/result/capabilities"},
		{"discover's Instructions", DiscoverResponse, `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{},"INSTRUCTIONS":"i"}}`, "/result"},
		{"a call", Request, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"Name":1}}}`, ""},
		{"a call's Arguments", Request, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","Arguments":{}}}`, "/params"},
		{"a list's cursor in another case", Request, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"CURSOR":"c"}}`, "/params"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := namefold.Check([]byte(tc.msg), tc.level)
			if tc.name == "Result at the top" {
				// A top-level member in another case is refused at the
				// top, with an empty path.
				var e *namefold.Error
				if !errors.As(err, &e) || e.Path != "" || !e.Defined {
					t.Fatalf("got %v, want Result refused at the top", err)
				}
				return
			}
			if tc.path == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var e *namefold.Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want a *namefold.Error", err)
			}
			if e.Path != tc.path {
				t.Errorf("path %q, want %q", e.Path, tc.path)
			}
		})
	}
}

// TestLevelsNameWhatTheSDKReads keeps the levels in step with the MCP Go
// SDK, a decoder that matches names case-insensitively: every member its
// types read at a level is a name the level defines, so a server cannot
// reach one of them by another case unnoticed.
func TestLevelsNameWhatTheSDKReads(t *testing.T) {
	for _, tc := range []struct {
		level *namefold.Level
		typ   any
	}{
		{ListResult, mcp.ListToolsResult{}},
		{Tool, mcp.Tool{}},
		{Annotations, mcp.ToolAnnotations{}},
		{InitializeResult, mcp.InitializeResult{}},
		{ServerInfo, mcp.Implementation{}},
		{Capabilities, mcp.ServerCapabilities{}},
		{RequestParams, mcp.CallToolParams{}},
		{DiscoverResult, mcp.DiscoverResult{}},
		{DiscoverResult, mcp.Cacheable{}},
	} {
		typ := reflect.TypeOf(tc.typ)
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if _, ok := tc.level.Members[name]; !ok {
				t.Errorf("%s: the SDK reads %q, which its level does not define", typ.Name(), name)
			}
		}
	}
	if _, ok := ListResponse.Members["result"]; !ok || ListResponse.Members["result"] != ListResult {
		t.Error("ListResponse's result is not ListResult")
	}
	if InitializeResponse.Members["result"] != InitializeResult {
		t.Error("InitializeResponse's result is not InitializeResult")
	}
}

func TestResponseTo(t *testing.T) {
	if ResponseTo("tools/list") != ListResponse || ResponseTo("initialize") != InitializeResponse || ResponseTo("server/discover") != DiscoverResponse || ResponseTo("ping") != Message {
		t.Error("ResponseTo picks the wrong level")
	}
}

// TestImportsNoKubernetes keeps the package light: the gate imports it.
func TestImportsNoKubernetes(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatal("go list -deps listed nothing")
	}
	for _, dep := range deps {
		if strings.HasPrefix(dep, "k8s.io/") || strings.HasPrefix(dep, "sigs.k8s.io/") || strings.Contains(dep, "/api/v1alpha1") {
			t.Errorf("internal/mcpshape depends on %s", dep)
		}
	}
}
