package conformance

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/gateproto"
)

// Argument rules: the exposed tool carries a Refuse rule on one city, and
// hostile calls, written from the grammar, carry that city where some
// reader of the message may find it. What the servers ran is the oracle.

// The refused city and the rule that refuses it. The city leaves the
// Basic Multilingual Plane, so that its \u escapes include a surrogate
// pair: a decoder that mishandled pairs would read another string.
const (
	refusedCity  = "Atlantis \U0001F30A"
	refusingRule = "conformance/no-sunken-cities"
)

// kindArgsValue: the one city member, spelled exactly, carries the refused
// city with \u escapes in its value.
const kindArgsValue = "arguments.city value"

// argumentKinds are the kinds of hostile call that carry the refused city.
// Each kind of the agent side is read here as "the refused city where that
// kind puts its hostile member": beside the real city, in second
// arguments, in second params, in a call hidden behind another method, in
// a call with a second id or name, in an Mcp-Param header.
var argumentKinds = []string{kindArgsValue, kindArgsMember, kindParamsArgs, kindParamsName, kindParamsNameArgs, kindTopParams, kindTopMethod, kindTopID, kindHeaders}

// refusedCityRule is the rule under test. has() first, so that a call
// without a city is the schema's to refuse, not an evaluation error the
// rule would count as a match: the test then shows the rule refusing by
// its value, not by failing closed.
func refusedCityRule() gateproto.ArgumentRule {
	return gateproto.ArgumentRule{Name: refusingRule, Action: gateproto.RuleRefuse,
		Expression: `has(args.city) && args.city == "` + refusedCity + `"`,
		Message:    "no forecasts for sunken cities"}
}

// refusedCall writes case n of kind: a call of the exposed tool whose
// arguments, as some reader of the message takes them, carry the refused
// city. The real member holds ok-n, the grammar's spelled member the
// refused city; kindArgsValue, kindParamsName, kindTopMethod and kindTopID
// put the refused city in the only arguments there are. The refused city's
// value is written with \u escapes always for kindArgsValue, and at the
// grammar's draw for the others.
func refusedCall(g *grammar, kind, fam, how, gen string, n int) callCase {
	c := callCase{n: n, kind: kind, family: fam, placement: how, headers: map[string]string{}}
	refused := quote(refusedCity)
	if kind == kindArgsValue || g.rng.IntN(2) == 0 {
		refused = `"` + g.escapeText(refusedCity) + `"`
	}
	withMeta := func(ms ...member) []member {
		if gen == genStateless {
			return append([]member{{"_meta", meta}}, ms...)
		}
		return ms
	}
	name := member{"name", quote(toolExposed)}
	okArgs := member{"arguments", object(member{"city", quote(fmt.Sprintf("ok-%d", n))})}
	refusedArgs := object(member{"city", refused})
	method, realName := "tools/call", toolExposed
	params := withMeta(name, okArgs)
	top := func() []member {
		return []member{{"jsonrpc", `"2.0"`}, {"id", strconv.Itoa(n)}, {"method", quote(method)}, {"params", object(params...)}}
	}
	var body []member
	switch kind {
	case kindArgsValue:
		params = withMeta(name, member{"arguments", refusedArgs})
		body = top()
	case kindArgsMember:
		args := place([]member{{"city", quote(fmt.Sprintf("ok-%d", n))}}, "city", how, member{g.spell("city", fam).text, refused})
		params = withMeta(name, member{"arguments", object(args...)})
		body = top()
	case kindParamsArgs:
		params = place(params, "arguments", how, member{g.spell("arguments", fam).text, refusedArgs})
		body = top()
	case kindParamsName:
		params = place(withMeta(name, member{"arguments", refusedArgs}), "name", how, member{g.spell("name", fam).text, quote(toolExposed)})
		body = top()
	case kindParamsNameArgs:
		params = place(params, "name", how, member{g.spell("name", fam).text, quote(toolExposed)}, member{g.spell("arguments", fam).text, refusedArgs})
		body = top()
	case kindTopParams:
		hostile := object(withMeta(name, member{"arguments", refusedArgs})...)
		body = place(top(), "params", how, member{g.spell("params", fam).text, hostile})
	case kindTopMethod:
		// The gate reads a tools/list; a folding server, a tools/call of
		// the refused city.
		method, realName = "tools/list", ""
		params = withMeta(name, member{"arguments", refusedArgs})
		body = place(top(), "method", how, member{g.spell("method", fam).text, `"tools/call"`})
	case kindTopID:
		params = withMeta(name, member{"arguments", refusedArgs})
		body = place(top(), "id", how, member{g.spell("id", fam).text, strconv.Itoa(100000 + n)})
	case kindHeaders:
		// The refused city in a header, as SEP-2243 writes a value a
		// header cannot carry plainly; the body says ok-n.
		body = top()
		c.headers["Mcp-Name"] = toolExposed
		c.headers["Mcp-Param-City"] = "=?base64?" + base64.StdEncoding.EncodeToString([]byte(refusedCity)) + "?="
	default:
		panic("no refused call of kind " + kind)
	}
	if how == placeAlone && (kind == kindParamsName || kind == kindParamsNameArgs || kind == kindTopParams) {
		realName = ""
	}
	c.body = object(body...)
	if gen == genStateless {
		if _, set := c.headers["Mcp-Name"]; !set && realName != "" {
			c.headers["Mcp-Name"] = realName
		}
		c.headers["Mcp-Method"] = method
	}
	return c
}

// refusedCalls writes every kind × family × placement once, as callCases
// does, and the header kind once.
func refusedCalls(g *grammar, gen string, first int) []callCase {
	var out []callCase
	n := first
	for _, kind := range argumentKinds {
		for _, fam := range families {
			for _, how := range placements {
				if kind == kindHeaders && (fam != famCase || how != placeAfter) {
					continue
				}
				out = append(out, refusedCall(g, kind, fam, how, gen, n))
				n++
			}
		}
	}
	return out
}

// cityCall is the plain call n of the exposed tool with city, as a client
// of the generation writes it.
func cityCall(gen string, n int, city string) callCase {
	c := callCase{n: n, kind: "plain", headers: map[string]string{}}
	params := []member{{"name", quote(toolExposed)}, {"arguments", object(member{"city", quote(city)})}}
	if gen == genStateless {
		params = append([]member{{"_meta", meta}}, params...)
		c.headers["Mcp-Name"], c.headers["Mcp-Method"] = toolExposed, "tools/call"
	}
	c.body = object(member{"jsonrpc", `"2.0"`}, member{"id", strconv.Itoa(n)}, member{"method", `"tools/call"`}, member{"params", object(params...)})
	return c
}

// rpcError is the JSON-RPC error among an answer's messages; ok is false
// when the answer holds none.
func rpcError(msgs []json.RawMessage) (code int, message string, ok bool) {
	for _, m := range msgs {
		var r struct {
			Error *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(m, &r) == nil && r.Error != nil {
			return r.Error.Code, r.Error.Message, true
		}
	}
	return 0, "", false
}

// TestArgumentRulesHoldForEveryPeer gives the exposed tool a Refuse rule on
// one city (the built-in floors stay on, as a policy leaves them) and
// calls it through the gate binary on each real server in each generation
// it speaks. A call with another city runs; the plain call with the
// refused city does not, and the agent reads a JSON-RPC error naming the
// rule. Then every hostile call the grammar writes with the refused city
// where a case-insensitive or folding reader finds it — the city member
// spelled otherwise, duplicated, its value in \u escapes, the city in a
// second arguments or params member, a call behind another method or
// another id, an Mcp-Param header — must never make a server run the
// exposed tool with the refused city as the server read it. The gate may
// refuse such a call for ambiguity, or forward the city it read; only the
// server's reading decides. The calls whose only city is the refused one,
// spelled exactly and escaped, must be refused by the rule itself.
func TestArgumentRulesHoldForEveryPeer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the gate binary and real peers")
	}
	peers := append(startGoSDKPeers(t), startMCPGoPeers(t)...)
	peers = append(peers, startTSPeer(t, nodePeers(t)))
	var servers []gateprotoServer
	for i, p := range peers {
		servers = append(servers, gateprotoServer{id: fmt.Sprintf("conformance/peer-%d", i), peer: p, fps: firstListing(t, p.url, p.gen)})
	}
	cfg := newConfig()
	cfg.ArgumentRules = []gateproto.ArgumentRule{refusedCityRule()}
	for _, s := range servers {
		sc := serverConfig(s.id, s.peer.url, s.fps)
		for i := range sc.Tools {
			if sc.Tools[i].Name == toolExposed {
				sc.Tools[i].Rules = []gateproto.ToolRule{{Rule: refusingRule}}
			}
		}
		cfg.Servers = append(cfg.Servers, sc)
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
			fresh := func() []run {
				all := p.runs(t)
				if len(all) < seen {
					t.Fatalf("the server's record shrank")
				}
				out := all[seen:]
				seen = len(all)
				return out
			}
			send := func(cc callCase) []json.RawMessage {
				_, msgs, err := c.post(t.Context(), []byte(cc.body), cc.headers)
				if errors.Is(err, errSessionGone) {
					if err := c.open(t.Context()); err != nil {
						t.Fatalf("initializing again through the gate: %v", err)
					}
					_, msgs, err = c.post(t.Context(), []byte(cc.body), cc.headers)
				}
				if err != nil {
					t.Logf("%v: %v", cc, err)
				}
				return msgs
			}
			benign := func(n int) {
				t.Helper()
				city := fmt.Sprintf("ok-%d", n)
				cc := cityCall(p.gen, n, city)
				msgs := send(cc)
				ran := fresh()
				want := map[string]any{"city": city}
				if len(ran) != 1 || ran[0].Tool != toolExposed || !p.sameArgs(ran[0].Args, want) {
					t.Fatalf("a call of %s with another city through the gate: the server ran %v, want %s %v; the gate answered %s", toolExposed, ran, toolExposed, want, joinMsgs(msgs))
				}
			}
			// refusedByRule checks that a call whose only city is the
			// refused one ran nothing and was answered with the rule's
			// error.
			refusedByRule := func(cc callCase, msgs []json.RawMessage, ran []run) {
				t.Helper()
				if len(ran) != 0 {
					t.Fatalf("%v: the server ran %v", cc, ran)
				}
				if _, msg, ok := rpcError(msgs); !ok || !strings.Contains(msg, refusingRule) {
					t.Fatalf("%v: the gate answered %s, want a JSON-RPC error naming %s", cc, joinMsgs(msgs), refusingRule)
				}
			}
			benign(0)
			plain := cityCall(p.gen, 1, refusedCity)
			msgs := send(plain)
			refusedByRule(plain, msgs, fresh())

			answered := map[string]int{}
			for _, cc := range refusedCalls(g, p.gen, 2) {
				msgs := send(cc)
				ran := fresh()
				if cc.kind == kindArgsValue {
					refusedByRule(cc, msgs, ran)
				}
				// What the gate must have read, by exact names, for the call
				// to run at all: a call of the exposed tool with another city.
				gateRead, callable := judged(cc.body)
				for _, r := range ran {
					serverCity, _ := r.Args["city"].(string)
					switch {
					case r.Tool != toolExposed:
						t.Errorf("%v: the server ran %v", cc, r)
					case serverCity == refusedCity:
						t.Errorf("%v: the server ran %v, which %s refuses; read by exact names the message is a call of %s: %v, with arguments %v; the gate answered %s",
							cc, r, refusingRule, toolExposed, callable, gateRead, joinMsgs(msgs))
					case !callable || gateRead["city"] == refusedCity:
						t.Errorf("%v: the server ran %v where the message, read by exact names, is no call of %s with another city (%v, arguments %v)",
							cc, r, toolExposed, callable, gateRead)
					}
				}
				switch code, msg, isErr := rpcError(msgs); {
				case !isErr && len(ran) > 0:
					answered["ran with another city"]++
				case !isErr:
					answered["answered without an error"]++
				case strings.Contains(msg, refusingRule):
					answered["refused by the rule"]++
				default:
					answered[fmt.Sprintf("refused with %d", code)]++
				}
			}
			benign(1 << 20)
			t.Logf("hostile calls carrying the refused city: %v", answered)
		})
	}
}
