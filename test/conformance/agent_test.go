package conformance

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Agent side: hostile tools/call requests, written from the grammar, sent
// through the gate to real servers. What the servers ran is the oracle.

// Kinds of hostile call: where the spelled member goes and what it says.
const (
	kindParamsName     = "params.name"           // a second name, of the withheld or the gated tool
	kindParamsArgs     = "params.arguments"      // second arguments
	kindParamsNameArgs = "params.name+arguments" // both, calling the withheld tool
	kindTopParams      = "params"                // second params, calling the withheld tool
	kindTopMethod      = "method"                // a tools/list to the gate, a tools/call to a folding server
	kindTopID          = "id"                    // a second id
	kindArgsMember     = "arguments.city"        // a second city inside the arguments
	kindHeaders        = "headers"               // the agent's Mcp-Name, Mcp-Method and Mcp-Param-* headers
)

// callCase is one hostile call.
type callCase struct {
	n                 int
	kind              string
	family, placement string
	body              string
	headers           map[string]string
}

func (c callCase) String() string {
	var h []string
	for k, v := range c.headers {
		h = append(h, k+": "+v)
	}
	s := fmt.Sprintf("%s/%s/%s: %s", c.kind, c.family, c.placement, c.body)
	if len(h) > 0 {
		s += " with headers " + strings.Join(h, ", ")
	}
	return s
}

// callCases writes every kind × family × placement once, spelled afresh
// from the grammar, for a server of the generation.
func callCases(g *grammar, kinds []string, gen string, first int) []callCase {
	var out []callCase
	n := first
	for _, kind := range kinds {
		for _, fam := range families {
			for _, how := range placements {
				if kind == kindHeaders && (fam != famCase || how != placeAfter) {
					continue // one header case per draw is enough: header names are case-insensitive anyway
				}
				out = append(out, buildCall(g, kind, fam, how, gen, n))
				n++
			}
		}
	}
	return out
}

// buildCall writes case n.
func buildCall(g *grammar, kind, fam, how, gen string, n int) callCase {
	ok, evil := fmt.Sprintf("ok-%d", n), fmt.Sprintf("evil-%d", n)
	c := callCase{n: n, kind: kind, family: fam, placement: how, headers: map[string]string{}}
	hostileTool := pick(g, []string{toolWithheld, toolGated})
	hostileArgs := object(member{argName[hostileTool], quote(evil)})
	withMeta := func(ms ...member) []member {
		if gen == genStateless {
			return append([]member{{"_meta", meta}}, ms...)
		}
		return ms
	}
	args := []member{{"city", quote(ok)}}
	method := "tools/call"
	realName := toolExposed
	var params []member
	var top []member
	build := func() {
		top = []member{{"jsonrpc", `"2.0"`}, {"id", strconv.Itoa(n)}, {"method", quote(method)}, {"params", object(params...)}}
	}
	if kind == kindArgsMember {
		sp := g.spell("city", fam)
		args = place(args, "city", how, member{sp.text, quote(evil)})
	}
	params = withMeta(member{"name", quote(toolExposed)}, member{"arguments", object(args...)})
	switch kind {
	case kindParamsName:
		sp := g.spell("name", fam)
		params = place(params, "name", how, member{sp.text, quote(hostileTool)})
		if how == placeAlone {
			realName = ""
		}
	case kindParamsArgs:
		sp := g.spell("arguments", fam)
		params = place(params, "arguments", how, member{sp.text, object(member{"city", quote(evil)})})
	case kindParamsNameArgs:
		spN, spA := g.spell("name", fam), g.spell("arguments", fam)
		params = place(params, "name", how, member{spN.text, quote(hostileTool)}, member{spA.text, hostileArgs})
		if how == placeAlone {
			realName = ""
		}
	}
	build()
	switch kind {
	case kindTopParams:
		sp := g.spell("params", fam)
		hostile := object(withMeta(member{"name", quote(hostileTool)}, member{"arguments", hostileArgs})...)
		top = place(top, "params", how, member{sp.text, hostile})
		if how == placeAlone {
			realName = ""
		}
	case kindTopMethod:
		// The gate reads a tools/list; a folding server, a tools/call of
		// the hostile tool.
		method, realName = "tools/list", ""
		params = withMeta(member{"name", quote(hostileTool)}, member{"arguments", hostileArgs})
		build()
		sp := g.spell("method", fam)
		top = place(top, "method", how, member{sp.text, `"tools/call"`})
	case kindTopID:
		sp := g.spell("id", fam)
		top = place(top, "id", how, member{sp.text, strconv.Itoa(100000 + n)})
	case kindHeaders:
		c.headers["Mcp-Name"] = hostileTool
		c.headers["Mcp-Param-City"] = evil
		c.headers["Mcp-Param-"+strings.ToUpper(argName[hostileTool][:1])+argName[hostileTool][1:]] = evil
	}
	c.body = object(top...)
	if gen == genStateless {
		// A client of the stateless revision repeats the method and the
		// tool in headers, from the message it sends; a hostile one may
		// say otherwise (kindHeaders set Mcp-Name already).
		if _, set := c.headers["Mcp-Name"]; !set && realName != "" {
			c.headers["Mcp-Name"] = realName
		}
		c.headers["Mcp-Method"] = method
	}
	return c
}

// agentKinds are the kinds of hostile call the suite sends. A kind joins
// the list once the gate passes it with every peer.
var agentKinds = []string{kindParamsName, kindParamsArgs, kindParamsNameArgs, kindTopParams, kindTopMethod, kindTopID, kindHeaders, kindArgsMember}

// TestHostileCallsNeverRunWhatTheGateRefused sends every kind of hostile
// call through the gate binary to each real server in each generation it
// speaks: the Go SDK and mcp-go (session-based and stateless) and the
// TypeScript SDK (session-based). After each call it reads what the server
// ran: the withheld tool never, the gated tool never (the gate has no
// approver, so no call of it may run), and the exposed tool only with the
// city in the arguments the gate read. A benign call before and after the
// hostile ones must run, so that a server that ran nothing at all cannot
// pass.
func TestHostileCallsNeverRunWhatTheGateRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the gate binary and real peers")
	}
	peers := append(startGoSDKPeers(t), startMCPGoPeers(t)...)
	peers = append(peers, startTSPeer(t, nodePeers(t)))
	runHostileCalls(t, peers, agentKinds)
}

func runHostileCalls(t *testing.T, peers []peer, kinds []string) {
	var servers []gateprotoServer
	for i, p := range peers {
		servers = append(servers, gateprotoServer{id: fmt.Sprintf("conformance/peer-%d", i), peer: p, fps: firstListing(t, p.url, p.gen)})
	}
	cfg := newConfig()
	for _, s := range servers {
		cfg.Servers = append(cfg.Servers, serverConfig(s.id, s.peer.url, s.fps))
	}
	gp := startGate(t, cfg)
	g := newGrammar(seed(t))
	for _, s := range servers {
		t.Run(s.peer.name, func(t *testing.T) {
			p := s.peer
			c := newRawClient(gp.url(s.id), p.gen)
			if err := c.open(t.Context()); err != nil {
				t.Fatalf("initializing through the gate: %v", err)
			}
			seen := len(p.runs(t))
			// check returns what the server ran since the last check.
			check := func() []run {
				all := p.runs(t)
				if len(all) < seen {
					t.Fatalf("the server's record shrank")
				}
				fresh := all[seen:]
				seen = len(all)
				return fresh
			}
			send := func(cc callCase) error {
				_, _, err := c.post(t.Context(), []byte(cc.body), cc.headers)
				if errors.Is(err, errSessionGone) {
					if err := c.open(t.Context()); err != nil {
						t.Fatalf("initializing again through the gate: %v", err)
					}
					_, _, err = c.post(t.Context(), []byte(cc.body), cc.headers)
				}
				return err
			}
			benign := func(n int) {
				t.Helper()
				cc := buildCall(g, "benign", "", "", p.gen, n)
				if err := send(cc); err != nil {
					t.Fatalf("a benign call: %v", err)
				}
				ran := check()
				want, _ := judged(cc.body)
				if len(ran) != 1 || ran[0].Tool != toolExposed || !p.sameArgs(ran[0].Args, want) {
					t.Fatalf("a benign call of %s through the gate: the server ran %v, want %s %v", toolExposed, ran, toolExposed, want)
				}
			}
			benign(0)
			failures := map[string][]string{}
			var order []string
			for _, cc := range callCases(g, kinds, p.gen, 1) {
				if err := send(cc); err != nil {
					t.Logf("%v: %v", cc, err)
				}
				want, callable := judged(cc.body)
				for _, r := range check() {
					var why string
					switch {
					case r.Tool != toolExposed:
						why = fmt.Sprintf("ran %v", r)
					case !callable:
						why = fmt.Sprintf("ran %v where the message, read by exact names, is no call of it", r)
					case !p.sameArgs(r.Args, want):
						why = fmt.Sprintf("ran %v where the arguments, read by exact names, are %v", r, want)
					default:
						continue
					}
					key := cc.kind + "/" + cc.family
					if failures[key] == nil {
						order = append(order, key)
					}
					failures[key] = append(failures[key], fmt.Sprintf("%s: %s", why, cc))
				}
			}
			benign(1 << 20)
			for _, key := range order {
				f := failures[key]
				t.Errorf("%s: %d hostile calls ran what the gate did not read, e.g. %s", key, len(f), f[0])
			}
		})
	}
}

// judged reads a call as the gate must: members by their exact names
// (escapes decoded), duplicates refused. callable is true when that reading
// is a tools/call of the exposed tool; args are then its arguments ({}
// when absent).
func judged(body string) (args map[string]any, callable bool) {
	var top map[string]jsontext.Value
	if jsonv2.Unmarshal([]byte(body), &top) != nil {
		return nil, false
	}
	var method, name string
	var params map[string]jsontext.Value
	if jsonv2.Unmarshal(top["method"], &method) != nil || method != "tools/call" ||
		jsonv2.Unmarshal(top["params"], &params) != nil ||
		jsonv2.Unmarshal(params["name"], &name) != nil || name != toolExposed {
		return nil, false
	}
	args = map[string]any{}
	if raw, ok := params["arguments"]; ok {
		if jsonv2.Unmarshal(raw, &args) != nil {
			return nil, false
		}
	}
	return args, true
}

type gateprotoServer struct {
	id   string
	peer peer
	fps  map[string]string
}
