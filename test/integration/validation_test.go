package integration

import (
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// validServer is an MCPServer spec that the API server accepts; the cases
// below break one thing at a time.
const validServer = `
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: %s, namespace: default}
spec:
  endpoint: {url: "https://mcp.example.com/mcp"}
`

// TestValidObjectsAreAccepted guards the cases below: each bad object must
// be rejected for the reason named, not because the base object is wrong.
func TestValidObjectsAreAccepted(t *testing.T) {
	ctx := testContext(t)
	for _, manifest := range []string{
		fmt.Sprintf(validServer, "valid-url"),
		`
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: valid-service, namespace: default}
spec:
  endpoint: {service: {name: mcp, port: 8080}}
  transport: SSE
  auth: {headersFrom: {name: mcp-headers}}
  tls: {ca: {configMap: {name: ca, key: ca.crt}}, serverName: mcp.internal}
  probe: {interval: 1m, timeout: 20s, maxTools: 100}
  consumers: {from: All}
`,
		// Durations as Go writes them, units combined and fractions too.
		`
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: valid-compound-durations, namespace: default}
spec:
  endpoint: {url: "https://mcp.example.com/mcp"}
  probe: {interval: 1h30m, timeout: 1500ms}
`,
		`
apiVersion: toolgate.dev/v1alpha1
kind: ToolPolicy
metadata: {name: valid-fractional-timeout, namespace: default}
spec:
  servers: [{namespace: tools, name: github}]
  approval: {categories: [delete], timeout: 1.5h}
`,
		`
apiVersion: toolgate.dev/v1alpha1
kind: ToolPolicy
metadata: {name: valid-policy, namespace: default}
spec:
  servers: [{namespace: tools, name: github}]
  approval: {tools: [{server: tools/github, name: delete_repository}]}
`,
		`
apiVersion: toolgate.dev/v1alpha1
kind: ToolPolicy
metadata: {name: valid-result-scan, namespace: default}
spec:
  servers: [{namespace: tools, name: github}]
  resultScan:
    action: Redact
    overrides:
    - {server: tools/github, action: Withhold}
    - {tool: fetch_url, action: Hold}
    - {server: tools/github, tool: get_issue, action: Record}
`,
		`
apiVersion: toolgate.dev/v1alpha1
kind: ToolPin
metadata: {name: valid-pin, namespace: default}
spec:
  serverRef: {name: github}
  toolName: delete_repository
`,
	} {
		obj := fromYAML(t, manifest)
		if err := env.Client.Create(ctx, obj); err != nil {
			t.Errorf("creating valid %s %s: %v", obj.GetKind(), obj.GetName(), err)
			continue
		}
		deleteOnCleanup(t, obj)
	}

	// Defaults are applied by the API server, so every reader sees the same
	// effective spec.
	obj := fromYAML(t, fmt.Sprintf(validServer, "defaults"))
	if err := env.Client.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	deleteOnCleanup(t, obj)
	spec := obj.Object["spec"].(map[string]any)
	want := map[string]any{"transport": "StreamableHTTP", "catalogTrust": "Unknown", "firstUse": "TrustOnFirstUse"}
	for k, v := range want {
		if spec[k] != v {
			t.Errorf("default spec.%s = %v, want %v", k, spec[k], v)
		}
	}
	probe := spec["probe"].(map[string]any)
	if probe["interval"] != "5m" || probe["timeout"] != "30s" || probe["maxTools"] != int64(500) {
		t.Errorf("default spec.probe = %v, want interval 5m, timeout 30s, maxTools 500", probe)
	}
	if consumers := spec["consumers"].(map[string]any); consumers["from"] != "Same" {
		t.Errorf("default spec.consumers.from = %v, want Same", consumers["from"])
	}
}

// TestInvalidObjectsAreRejected checks that each rule of the schema rejects
// its bad object with a message that names the field and what to do.
func TestInvalidObjectsAreRejected(t *testing.T) {
	ctx := testContext(t)
	cases := []struct {
		name     string
		manifest string
		want     string
	}{
		{"endpoint with both service and url", `
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: both-endpoints, namespace: default}
spec:
  endpoint: {url: "https://mcp.example.com/mcp", service: {name: mcp, port: 80}}
`, "set exactly one of endpoint.service and endpoint.url"},
		{"endpoint with neither", `
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: no-endpoint, namespace: default}
spec:
  endpoint: {}
`, "set exactly one of endpoint.service and endpoint.url"},
		{"url with another scheme", `
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: ftp-url, namespace: default}
spec:
  endpoint: {url: "ftp://mcp.example.com/mcp"}
`, "endpoint.url must be an absolute http:// or https:// URL with a host"},
		{"url that is not a url", `
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: bad-url, namespace: default}
spec:
  endpoint: {url: "mcp server on port 80"}
`, "endpoint.url must be an absolute http:// or https:// URL with a host"},
		{"service port out of range", `
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: bad-port, namespace: default}
spec:
  endpoint: {service: {name: mcp, port: 70000}}
`, "spec.endpoint.service.port: Invalid value: 70000: spec.endpoint.service.port in body should be less than or equal to 65535"},
		{"service path without a slash", `
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: bad-path, namespace: default}
spec:
  endpoint: {service: {name: mcp, port: 80, path: mcp}}
`, "endpoint.service.path must be an absolute path such as /mcp, without spaces, query or fragment"},
		{"unknown transport", `
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: bad-transport, namespace: default}
spec:
  endpoint: {url: "https://mcp.example.com/mcp"}
  transport: WebSocket
`, `spec.transport: Unsupported value: "WebSocket": supported values: "StreamableHTTP", "SSE"`},
		{"empty auth", `
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: empty-auth, namespace: default}
spec:
  endpoint: {url: "https://mcp.example.com/mcp"}
  auth: {}
`, "auth needs bearerToken or headersFrom"},
		{"ca from both a secret and a configmap", `
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: two-cas, namespace: default}
spec:
  endpoint: {url: "https://mcp.example.com/mcp"}
  tls: {ca: {secret: {name: a, key: ca.crt}, configMap: {name: b, key: ca.crt}}}
`, "set exactly one of tls.ca.secret and tls.ca.configMap"},
		{"probe interval too short", `
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: fast-probe, namespace: default}
spec:
  endpoint: {url: "https://mcp.example.com/mcp"}
  probe: {interval: 1s}
`, "probe.interval must be between 10s and 24h"},
		{"probe interval in words", `
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: worded-interval, namespace: default}
spec:
  endpoint: {url: "https://mcp.example.com/mcp"}
  probe: {interval: 5 minutes}
`, "probe.interval must be a duration such as 30s, 5m or 1h"},
		{"probe timeout in words beside an interval", `
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: worded-timeout, namespace: default}
spec:
  endpoint: {url: "https://mcp.example.com/mcp"}
  probe: {interval: 5m, timeout: half a minute}
`, "probe.timeout must be a duration such as 30s, 5m or 1h"},
		{"probe interval with a unit Go does not know", `
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: daily-probe, namespace: default}
spec:
  endpoint: {url: "https://mcp.example.com/mcp"}
  probe: {interval: 1d}
`, "probe.interval must be a duration such as 30s, 5m or 1h"},
		{"probe timeout not shorter than interval", `
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: slow-probe, namespace: default}
spec:
  endpoint: {url: "https://mcp.example.com/mcp"}
  probe: {interval: 30s, timeout: 1m}
`, "probe.timeout must be shorter than probe.interval"},
		{"too many tools allowed", `
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: huge-catalogue, namespace: default}
spec:
  endpoint: {url: "https://mcp.example.com/mcp"}
  probe: {maxTools: 100000}
`, "spec.probe.maxTools in body should be less than or equal to 5000"},
		{"consumer selector missing", `
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: no-selector, namespace: default}
spec:
  endpoint: {url: "https://mcp.example.com/mcp"}
  consumers: {from: Selector}
`, "consumers.selector is required when consumers.from is Selector, and allowed only then"},
		{"consumer selector where it does not apply", `
apiVersion: toolgate.dev/v1alpha1
kind: MCPServer
metadata: {name: stray-selector, namespace: default}
spec:
  endpoint: {url: "https://mcp.example.com/mcp"}
  consumers: {from: All, selector: {matchLabels: {team: a}}}
`, "consumers.selector is required when consumers.from is Selector, and allowed only then"},
		{"pin override with nothing to override", `
apiVersion: toolgate.dev/v1alpha1
kind: ToolPin
metadata: {name: empty-override, namespace: default}
spec:
  serverRef: {name: github}
  toolName: list_issues
  override: {reason: looks fine}
`, "override must set at least one of level, category and blastRadius"},
		{"pin override without a reason", `
apiVersion: toolgate.dev/v1alpha1
kind: ToolPin
metadata: {name: unexplained-override, namespace: default}
spec:
  serverRef: {name: github}
  toolName: list_issues
  override: {level: L1}
`, "spec.override.reason: Required value"},
		{"pin with an unknown level", `
apiVersion: toolgate.dev/v1alpha1
kind: ToolPin
metadata: {name: bad-level, namespace: default}
spec:
  serverRef: {name: github}
  toolName: list_issues
  override: {level: L9, reason: typo}
`, `spec.override.level: Unsupported value: "L9"`},
		{"pin with an overlong tool name", `
apiVersion: toolgate.dev/v1alpha1
kind: ToolPin
metadata: {name: long-name, namespace: default}
spec:
  serverRef: {name: github}
  toolName: ` + strings.Repeat("x", 129) + `
`, "spec.toolName: Too long: may not be more than 128"},
		{"policy without servers", `
apiVersion: toolgate.dev/v1alpha1
kind: ToolPolicy
metadata: {name: no-servers, namespace: default}
spec:
  servers: []
`, "spec.servers: Invalid value: 0: spec.servers in body should have at least 1 items"},
		{"policy listing a server twice", `
apiVersion: toolgate.dev/v1alpha1
kind: ToolPolicy
metadata: {name: twice, namespace: default}
spec:
  servers: [{namespace: tools, name: github}, {namespace: tools, name: github}]
`, "spec.servers[1]: Duplicate value"},
		{"policy with empty approval rules", `
apiVersion: toolgate.dev/v1alpha1
kind: ToolPolicy
metadata: {name: empty-approval, namespace: default}
spec:
  servers: [{namespace: tools, name: github}]
  approval: {timeout: 5m}
`, "approval needs at least one of minLevel, categories and tools"},
		{"policy approving above its ceiling", `
apiVersion: toolgate.dev/v1alpha1
kind: ToolPolicy
metadata: {name: unreachable-approval, namespace: default}
spec:
  servers: [{namespace: tools, name: github}]
  maxLevel: L3
  approval: {minLevel: L4}
`, "approval.minLevel above maxLevel can never apply: tools above maxLevel are withheld"},
		{"policy approval timeout too long", `
apiVersion: toolgate.dev/v1alpha1
kind: ToolPolicy
metadata: {name: forever, namespace: default}
spec:
  servers: [{namespace: tools, name: github}]
  approval: {categories: [delete], timeout: 48h}
`, "approval.timeout must be between 10s and 24h"},
		{"policy approval timeout in words", `
apiVersion: toolgate.dev/v1alpha1
kind: ToolPolicy
metadata: {name: worded-timeout, namespace: default}
spec:
  servers: [{namespace: tools, name: github}]
  approval: {categories: [delete], timeout: 10 minutes}
`, "approval.timeout must be a duration such as 30s, 5m or 1h"},
		{"policy trust level out of range", `
apiVersion: toolgate.dev/v1alpha1
kind: ToolPolicy
metadata: {name: too-trusting, namespace: default}
spec:
  servers: [{namespace: tools, name: github}]
  agentTrustLevel: 9
`, "spec.agentTrustLevel in body should be less than or equal to 5"},
		{"policy with an unknown mode", `
apiVersion: toolgate.dev/v1alpha1
kind: ToolPolicy
metadata: {name: bad-mode, namespace: default}
spec:
  servers: [{namespace: tools, name: github}]
  mode: Permissive
`, `spec.mode: Unsupported value: "Permissive": supported values: "Enforce", "Audit"`},
		{"policy tool reference to a malformed server", `
apiVersion: toolgate.dev/v1alpha1
kind: ToolPolicy
metadata: {name: bad-ref, namespace: default}
spec:
  servers: [{namespace: tools, name: github}]
  approval: {tools: [{server: github, name: delete_repository}]}
`, `spec.approval.tools[0].server: Invalid value: "github": server must be "namespace/name" of an MCPServer`},
		{"result scan override naming neither server nor tool", `
apiVersion: toolgate.dev/v1alpha1
kind: ToolPolicy
metadata: {name: override-of-nothing, namespace: default}
spec:
  servers: [{namespace: tools, name: github}]
  resultScan: {overrides: [{action: Hold}]}
`, "spec.resultScan.overrides[0]: Invalid value: an override names a server, a tool or both; for every server and tool, set resultScan.action instead"},
		{"result scan with an unknown action", `
apiVersion: toolgate.dev/v1alpha1
kind: ToolPolicy
metadata: {name: bad-result-action, namespace: default}
spec:
  servers: [{namespace: tools, name: github}]
  resultScan: {action: Quarantine}
`, `spec.resultScan.action: Unsupported value: "Quarantine": supported values: "Record", "Redact", "Withhold", "Hold"`},
		{"result scan override with an unknown action", `
apiVersion: toolgate.dev/v1alpha1
kind: ToolPolicy
metadata: {name: bad-override-action, namespace: default}
spec:
  servers: [{namespace: tools, name: github}]
  resultScan: {overrides: [{tool: fetch_url, action: hold}]}
`, `spec.resultScan.overrides[0].action: Unsupported value: "hold"`},
		{"result scan override without an action", `
apiVersion: toolgate.dev/v1alpha1
kind: ToolPolicy
metadata: {name: override-without-action, namespace: default}
spec:
  servers: [{namespace: tools, name: github}]
  resultScan: {overrides: [{tool: fetch_url}]}
`, `spec.resultScan.overrides[0].action: Required value`},
		{"result scan override naming a malformed server", `
apiVersion: toolgate.dev/v1alpha1
kind: ToolPolicy
metadata: {name: override-bad-server, namespace: default}
spec:
  servers: [{namespace: tools, name: github}]
  resultScan: {overrides: [{server: github, action: Redact}]}
`, `spec.resultScan.overrides[0].server: Invalid value: "github": server must be "namespace/name" of an MCPServer`},
		{"result scan with too many overrides", `
apiVersion: toolgate.dev/v1alpha1
kind: ToolPolicy
metadata: {name: override-flood, namespace: default}
spec:
  servers: [{namespace: tools, name: github}]
  resultScan: {overrides: [` + strings.TrimSuffix(strings.Repeat("{tool: t, action: Redact},", 65), ",") + `]}
`, "spec.resultScan.overrides: Too many: 65: must have at most 64 items"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := fromYAML(t, tc.manifest)
			err := env.Client.Create(ctx, obj)
			if err == nil {
				_ = env.Client.Delete(ctx, obj)
				t.Fatalf("the API server accepted the invalid %s; want an error containing %q", obj.GetKind(), tc.want)
			}
			if !apierrors.IsInvalid(err) {
				t.Fatalf("want an Invalid error, got %v", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error does not explain the problem:\n got: %v\nwant: ...%s...", err, tc.want)
			}
			// A rule that fails to evaluate says how CEL failed, not what
			// the user got wrong: every rule must be guarded against that.
			for _, internal := range []string{"conversion", "no such overload", "evaluation error", "invalid duration"} {
				if strings.Contains(err.Error(), internal) {
					t.Errorf("the error speaks of a rule that could not be evaluated (%q), not of the value: %v", internal, err)
				}
			}
			t.Logf("rejected: %v", err)
		})
	}
}

// TestPinReferencesAreImmutable checks that a pin can never be moved to
// another server or tool, which would carry its approvals along.
func TestPinReferencesAreImmutable(t *testing.T) {
	ctx := testContext(t)
	pin := fromYAML(t, `
apiVersion: toolgate.dev/v1alpha1
kind: ToolPin
metadata: {name: immutable-pin, namespace: default}
spec:
  serverRef: {name: github}
  toolName: delete_repository
`)
	if err := env.Client.Create(ctx, pin); err != nil {
		t.Fatal(err)
	}
	deleteOnCleanup(t, pin)

	for _, tc := range []struct {
		patch string
		want  string
	}{
		{`{"spec":{"serverRef":{"name":"gitlab"}}}`, "serverRef is immutable: a pin belongs to one server for life"},
		{`{"spec":{"toolName":"list_issues"}}`, "toolName is immutable: a pin is about one tool for life"},
	} {
		err := env.Client.Patch(ctx, pin.DeepCopy(), client.RawPatch("application/merge-patch+json", []byte(tc.patch)))
		if err == nil {
			t.Errorf("patch %s was accepted; want %q", tc.patch, tc.want)
			continue
		}
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("patch %s: got %v, want an Invalid error containing %q", tc.patch, err, tc.want)
		}
	}
}
