package gate

import (
	"sync"

	"github.com/toolgate/toolgate/internal/gate/argjudge"
	"github.com/toolgate/toolgate/internal/gate/decide"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/pkg/argfloor"
)

// What a call's arguments say beyond their schema. The configuration's
// argument rules are compiled when it is applied (argjudge.Compile: once
// per configuration, and once per expression across configurations
// through the gate's cache), never per call. A call of a tool that names rules, or of
// any tool while the floors are on, is judged once its arguments passed
// the schema (judge): its arguments are decoded once, every rule that
// applies is evaluated against them, and the floors the tool's schema
// plan names are looked up. The judgement is one fact of decide.Call,
// which alone says what comes of it: arguments only ever tighten.

// floorPlans keeps each approved definition's floor plan, by fingerprint:
// reading a schema for what its calls could widen costs far more than a
// lookup, and a fingerprint names one schema.
type floorPlans struct {
	mu    sync.Mutex
	plans map[string]*argfloor.Plan
}

// maxFloorPlans bounds floorPlans; past it, it starts afresh.
const maxFloorPlans = 4096

func (f *floorPlans) plan(fingerprint string, schema []byte) *argfloor.Plan {
	f.mu.Lock()
	p, ok := f.plans[fingerprint]
	f.mu.Unlock()
	if ok {
		return p
	}
	p = argfloor.Analyze(schemaOrLoose(schema))
	f.mu.Lock()
	if f.plans == nil || len(f.plans) >= maxFloorPlans {
		f.plans = map[string]*argfloor.Plan{}
	}
	f.plans[fingerprint] = p
	f.mu.Unlock()
	return p
}

// judge applies the argument rules that name the tool t and the built-in
// floors to a call's raw arguments, already checked against schema, the
// approved definition's inputSchema (argjudge.Judge), and counts what
// matched.
func (g *Gate) judge(st *state, ss *serverState, t *gateproto.Tool, schema, raw []byte) decide.ArgumentJudgement {
	c := argjudge.Call{Namespace: st.cfg.Namespace, Pod: st.cfg.Pod, Agent: st.cfg.Agent, Server: ss.cfg.ID, Tool: t, Arguments: raw}
	if !st.cfg.ArgumentFloorsOff {
		c.Floors = g.floors.plan(t.Fingerprint, schema)
	}
	res := argjudge.Judge(st.rules, c)
	for _, m := range res.Matches {
		g.metrics.ArgumentRules.WithLabelValues(ss.cfg.ID, m.Rule, m.Outcome).Inc()
		if m.Outcome == "failed" {
			g.log.Info("an argument rule could not be evaluated on a call's arguments; counted as matched", "rule", m.Rule, "tool", t.Name, "error", m.Err)
		}
	}
	for _, f := range res.Floors {
		g.metrics.ArgumentFloors.WithLabelValues(ss.cfg.ID, string(f.Signal)).Inc()
	}
	return res.ArgumentJudgement
}
