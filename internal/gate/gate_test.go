package gate

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/gate/decide"
	"github.com/toolgate/toolgate/internal/gateproto"
)

var catalogue = map[string]string{
	"echo":       "Echoes its text.",
	"deploy":     "Deploys the service.",
	"delete_all": "Deletes every record.",
	"secret":     "Reads a secret.",
	"ghost":      "A tool the configuration does not know.",
}

func standardConfig(t *testing.T, mode gateproto.Mode, u *upstream, fps map[string]string) *gateproto.Config {
	return config(t, mode, u, fps,
		exposed("echo"), gated(),
		withheld("delete_all", gateproto.ReasonAboveCeiling, true),
		withheld("secret", gateproto.ReasonNotListed, false))
}

func mustContainRefusal(t *testing.T, err error, what string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: the call went through", what)
	}
	if !strings.Contains(err.Error(), decide.NotAvailable) {
		t.Fatalf("%s: refused with %q, want %q", what, err, decide.NotAvailable)
	}
}

func TestEnforceInEveryGeneration(t *testing.T) {
	for _, gen := range generations {
		t.Run(string(gen), func(t *testing.T) {
			s := newMCPServer(catalogue)
			u := startUpstream(t, gen, s)
			fps := fingerprints(t, s)
			g := startGate(t, Options{})
			if err := g.Apply(standardConfig(t, gateproto.ModeEnforce, u, fps)); err != nil {
				t.Fatal(err)
			}
			a := connect(t, gen, g.url())

			// A call before any list: the gate lists the server itself.
			if out, err := a.call(t, "echo"); err != nil || out != "echo:hi" {
				t.Fatalf("echo before listing: %q, %v", out, err)
			}
			if got, want := a.listNames(t), []string{"deploy", "echo"}; !slices.Equal(got, want) {
				t.Fatalf("listed %v, want %v", got, want)
			}
			mustContainRefusal(t, callErr(a, t, "delete_all"), "above the ceiling")
			mustContainRefusal(t, callErr(a, t, "secret"), "not listed by the policy")
			mustContainRefusal(t, callErr(a, t, "ghost"), "unknown to the configuration")
			mustContainRefusal(t, callErr(a, t, "nosuchtool"), "offered by no one")
			if _, err := a.call(t, "deploy"); err == nil || !strings.Contains(err.Error(), "approval required") {
				t.Fatalf("gated call with the default approver: %v", err)
			}
			if l := g.audit.find("delete_all", decide.Refuse); l == nil || l["reason"] != string(gateproto.ReasonAboveCeiling) || l["namespace"] != "agents" || l["pod"] != "agent-0" {
				t.Fatalf("audit line of the refused call: %v", l)
			}
			if l := g.audit.find("echo", decide.Forward); l == nil || l["level"] != "L2" || l["fingerprint"] != fps["echo"] {
				t.Fatalf("audit line of the forwarded call: %v", l)
			}
		})
	}
}

func callErr(a *agent, t *testing.T, name string) error {
	_, err := a.call(t, name)
	return err
}

func TestNoConfigExposesNothing(t *testing.T) {
	g := startGate(t, Options{})
	resp, err := g.srv.Client().Post(g.url(), "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 503 {
		t.Fatalf("status %d, want 503", resp.StatusCode)
	}
	if _, ok := g.Applied(); ok {
		t.Fatal("a gate with no configuration says it has one")
	}
	// A configuration that fails validation is refused whole.
	bad := &gateproto.Config{Version: gateproto.Version, Mode: gateproto.ModeEnforce, Revision: "x"}
	if err := g.Apply(bad); err == nil {
		t.Fatal("an invalid configuration was applied")
	}
	if _, ok := g.Applied(); ok {
		t.Fatal("an invalid configuration was applied")
	}
	_ = context.Background()
}

// toolGauges returns toolgate_gate_tools by "server state".
func toolGauges(t *testing.T, g *testGate) map[string]float64 {
	t.Helper()
	families, err := g.Metrics().Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "toolgate_gate_tools" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			out[labels["server"]+" "+labels["state"]] = m.GetGauge().GetValue()
		}
	}
	return out
}

func TestToolGaugesFollowTheConfiguration(t *testing.T) {
	s := newMCPServer(catalogue)
	u := startUpstream(t, genStateless, s)
	fps := fingerprints(t, s)
	g := startGate(t, Options{})
	both := standardConfig(t, gateproto.ModeEnforce, u, fps)
	other := both.Servers[0]
	other.ID = "tools/other"
	other.Tools = []gateproto.Tool{other.Tools[0]}
	both.Servers = append(both.Servers, other)
	both.Revision = both.ComputeRevision()
	if err := g.Apply(both); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		testServerID + " exposed": 2, testServerID + " withheld": 2,
		"tools/other exposed": 1, "tools/other withheld": 0,
	}
	if got := toolGauges(t, g); !maps.Equal(got, want) {
		t.Fatalf("gauges %v, want %v", got, want)
	}

	// tools/other leaves the configuration: its gauges go with it, the
	// remaining server's stay.
	if err := g.Apply(standardConfig(t, gateproto.ModeEnforce, u, fps)); err != nil {
		t.Fatal(err)
	}
	delete(want, "tools/other exposed")
	delete(want, "tools/other withheld")
	if got := toolGauges(t, g); !maps.Equal(got, want) {
		t.Fatalf("after tools/other left the configuration: gauges %v, want %v", got, want)
	}
	// A list of the remaining server still sets its own.
	a := connect(t, genStateless, g.url())
	if got := a.listNames(t); !slices.Equal(got, []string{"deploy", "echo"}) {
		t.Fatalf("listed %v", got)
	}
	if got := toolGauges(t, g); !maps.Equal(got, want) {
		t.Fatalf("after a list: gauges %v, want %v", got, want)
	}
}
