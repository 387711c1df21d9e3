package offline

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	toolgatev1alpha1 "github.com/toolgate/toolgate/api/v1alpha1"
	"github.com/toolgate/toolgate/internal/gate/argcheck"
	"github.com/toolgate/toolgate/internal/gate/argjudge"
	"github.com/toolgate/toolgate/internal/gate/decide"
	"github.com/toolgate/toolgate/internal/gateproto"
	"github.com/toolgate/toolgate/internal/mcpshape"
	"github.com/toolgate/toolgate/internal/policy"
	"github.com/toolgate/toolgate/pkg/argfloor"
	"github.com/toolgate/toolgate/pkg/argrule"
	"github.com/toolgate/toolgate/pkg/clip"
	"github.com/toolgate/toolgate/pkg/namefold"
	"github.com/toolgate/toolgate/pkg/risk"
	"github.com/toolgate/toolgate/pkg/tooldef"
	"github.com/toolgate/toolgate/pkg/vet"
)

// CheckCallResult is one call's judgement in the JSON of `toolgate
// check-call`: one object a line, one line a call, in the order of the
// calls. Fields are only ever added.
type CheckCallResult struct {
	// File is the call file as given, "<stdin>" for standard input; Line
	// the line the call starts on.
	File string `json:"file"`
	Line int    `json:"line"`
	// Server is "namespace/name" of the MCPServer the call was judged
	// for; Tool the tool it calls.
	Server string `json:"server"`
	Tool   string `json:"tool"`
	// Verdict is the gate's word for what it does with the call (forward,
	// hold, refuse, audit-forward, audit-forward-unheld); Reason the
	// audit line's reason; EnforceWould, in Audit, what Enforce would do.
	Verdict      string `json:"verdict"`
	Reason       string `json:"reason,omitempty"`
	EnforceWould string `json:"enforceWould,omitempty"`
	// Why says it in words: the refusal the agent would read, why a
	// person is asked, or what Audit let through.
	Why string `json:"why"`
	// HeldBy, for a call held (or one Audit forwarded unheld), is
	// Designation, ArgumentRule or ArgumentLevel, as a held call on a
	// ToolPin says.
	HeldBy string `json:"heldBy,omitempty"`
	// Rule is the argument rule that refused or held the call, or raised
	// its level ("policy/rule").
	Rule string `json:"rule,omitempty"`
	// Level is the tool's level; CallLevel the call's after its
	// arguments, and Raised what raised it, when something did.
	Level     string `json:"level,omitempty"`
	CallLevel string `json:"callLevel,omitempty"`
	Raised    string `json:"raised,omitempty"`
	// Rules are the argument rules that apply to the tool, each with what
	// it made of the call; Floors the argument floors the call met.
	Rules  []CheckCallRule  `json:"rules"`
	Floors []argfloor.Floor `json:"floors"`
	// Expected is -expect, and AsExpected whether the verdict is it; both
	// absent without -expect.
	Expected   string `json:"expected,omitempty"`
	AsExpected *bool  `json:"asExpected,omitempty"`
}

// CheckCallRule is one argument rule that applies to the called tool.
type CheckCallRule struct {
	// Rule is "policy/rule"; Action Refuse, Hold or RaiseLevel (with
	// Level).
	Rule   string `json:"rule"`
	Action string `json:"action"`
	Level  string `json:"level,omitempty"`
	// Outcome is matched, not-matched, failed (the expression could not be
	// evaluated on these arguments and counts as matched), unevaluable
	// (the rule cannot be evaluated for this tool: the gate refuses the
	// call) or not-judged (the call was decided before its arguments were
	// judged).
	Outcome string `json:"outcome"`
	// Error says why, for failed and unevaluable; Problems are every
	// problem the operator would report for the rule and this tool.
	Error    string   `json:"error,omitempty"`
	Problems []string `json:"problems,omitempty"`
}

// Outcomes of an argument rule in CheckCallRule.
const (
	ruleMatched     = "matched"
	ruleNotMatched  = "not-matched"
	ruleFailed      = "failed"
	ruleUnevaluable = "unevaluable"
	ruleNotJudged   = "not-judged"
)

const checkCallUsage = `Usage: toolgate check-call -policy FILE -call FILE [flags]

Judges saved tools/call requests as a gate would under the ToolPolicies of
-policy, taken together as the policies that select one pod: their argument
rules, the built-in argument floors, the ceiling and the approval rules. -call
holds a JSON-RPC tools/call request or {"name":…,"arguments":…}, or JSON lines
of either, each judged in turn. -tools gives the called tool's definition, as
a tools/list capture that "toolgate score" reads: its inputSchema, and its
level and category scored as score scores them. Without -tools, -level gives
the tool's level and nothing checks the arguments but that they are an object.
"-" is standard input, for one of the files.

Exit status 0; with -expect, 1 when a call's verdict is not the one expected;
2 on bad flags or a file that cannot be read.`

// verdicts are the words -expect takes: the gate's verdicts on a call.
var verdicts = []decide.Verdict{decide.Forward, decide.Hold, decide.Refuse, decide.AuditForward, decide.AuditForwardUnheld}

type checkCallFlags struct {
	policy, call, tools string
	server, namespace   string
	pod, serviceAccount string
	labels              map[string]string
	level, expect       string
	output              string
	// defaultCeiling and ceilingCap are the cluster's, as the operator's
	// --default-max-level and --max-level-cap set them.
	defaultCeiling, ceilingCap string
}

func runCheckCall(program string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("toolgate check-call", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := checkCallFlags{labels: map[string]string{}}
	fs.StringVar(&f.policy, "policy", "", "the ToolPolicies, YAML or JSON, several separated by \"---\" (required)")
	fs.StringVar(&f.call, "call", "", "the tools/call requests to judge: one JSON message, or JSON lines (required)")
	fs.StringVar(&f.tools, "tools", "", "a saved tools/list result holding the called tools' definitions")
	fs.StringVar(&f.server, "server", "", "NS/NAME of the MCPServer called (default: the one server the policies reference)")
	fs.StringVar(&f.namespace, "namespace", "", "the agent pod's namespace (default: the policies')")
	fs.StringVar(&f.pod, "pod", "", "the agent pod's name, as rules read agent.pod")
	fs.StringVar(&f.serviceAccount, "service-account", "default", "the agent pod's service account")
	fs.Func("label", "KEY=VALUE: a label of the agent pod (repeatable)", func(v string) error {
		k, val, ok := strings.Cut(v, "=")
		if !ok || k == "" {
			return fmt.Errorf("%q: want KEY=VALUE", v)
		}
		f.labels[k] = val
		return nil
	})
	fs.StringVar(&f.level, "level", "", "the called tool's level, L0–L5 (required without -tools; with it, in place of the scored level)")
	fs.StringVar(&f.expect, "expect", "", "exit 1 unless every call's verdict is this: forward, hold, refuse, audit-forward or audit-forward-unheld")
	fs.StringVar(&f.output, "o", "text", "output format: text, or json (one object a line)")
	fs.StringVar(&f.defaultCeiling, "default-max-level", "", "the cluster's ceiling for a policy that names no maxLevel, as the operator's --default-max-level (default L3)")
	fs.StringVar(&f.ceilingCap, "max-level-cap", "", "the cluster's cap on every ceiling, as the operator's --max-level-cap (default none)")
	fs.Usage = func() {
		fmt.Fprint(stderr, usageAs(program, checkCallUsage)+"\n\nFlags:\n")
		printFlags(fs, stderr)
	}
	if err := parseInterspersed(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "toolgate check-call: "+format+"\n", a...)
		return ExitUsage
	}
	switch {
	case fs.NArg() > 0:
		return fail("unexpected argument %q: the files are named by -policy, -call and -tools", fs.Arg(0))
	case f.policy == "" || f.call == "":
		return fail("-policy and -call are required")
	case f.output != "text" && f.output != "json":
		return fail("-o %q: want text or json", f.output)
	case f.expect != "" && !slices.Contains(verdicts, decide.Verdict(f.expect)):
		return fail("-expect %q: want forward, hold, refuse, audit-forward or audit-forward-unheld", f.expect)
	case f.tools == "" && f.level == "":
		return fail("-level is required without -tools: nothing else says the tool's level")
	}
	stdinUsed := 0
	for _, name := range []string{f.policy, f.call, f.tools} {
		if name == "-" {
			stdinUsed++
		}
	}
	if stdinUsed > 1 {
		return fail("standard input (\"-\") can be read only once")
	}
	var level risk.Level = -1
	if f.level != "" {
		l, err := risk.ParseLevel(f.level)
		if err != nil {
			return fail("-level: %v", err)
		}
		level = l
	}
	if f.server != "" {
		if _, _, err := gateproto.SplitServerID(f.server); err != nil {
			return fail("-server: %v", err)
		}
	}

	data, err := readLimited(f.policy, stdin, maxPolicyBytes)
	if err != nil {
		return fail("-policy %v", err)
	}
	policies, err := readPolicies(displayName(f.policy), data)
	if err != nil {
		return fail("-policy %v", err)
	}
	for flagName, v := range map[string]string{"-default-max-level": f.defaultCeiling, "-max-level-cap": f.ceilingCap} {
		if v != "" && !toolgatev1alpha1.Level(v).Valid() {
			return fail("%s %q: want L0 … L5", flagName, v)
		}
	}
	set := combineUnder(policies, toolgatev1alpha1.Level(f.defaultCeiling), toolgatev1alpha1.Level(f.ceilingCap))
	server := f.server
	if server == "" {
		if len(set.servers) != 1 {
			return fail("the policies reference %d MCPServers (%s): name the one called with -server NS/NAME", len(set.servers), strings.Join(slices.Sorted(maps.Keys(set.servers)), ", "))
		}
		server = slices.Collect(maps.Keys(set.servers))[0]
	}
	namespace := f.namespace
	switch {
	case namespace == "" && set.namespace != "":
		namespace = set.namespace
	case namespace == "":
		namespace = "default"
	case set.namespace != "" && namespace != set.namespace:
		fmt.Fprintf(stderr, "toolgate check-call: warning: the policies are of namespace %s, which selects no pod of namespace %s; judged as if it did\n", set.namespace, namespace)
	}
	if len(f.labels) > 0 {
		if out := set.unselecting(f.labels); len(out) > 0 {
			fmt.Fprintf(stderr, "toolgate check-call: warning: the podSelector of %s selects no pod with these labels; judged as if it did\n", strings.Join(out, ", "))
		}
	}
	for _, r := range set.rules {
		if r.Problem != nil {
			fmt.Fprintf(stderr, "toolgate check-call: warning: argument rule %s cannot be evaluated: %s: %s; the gate refuses every call of the tools it names\n", r.Name(), r.Problem.Kind, r.Problem.Message)
		}
	}

	var catalogue *scoredCatalogue
	if f.tools != "" {
		cat, err := readCatalogue(f.tools, stdin, tooldef.DefaultLimits)
		if err != nil {
			return fail("-tools %v", err)
		}
		catalogue = scoreCatalogue(server, cat)
	}
	data, err = readLimited(f.call, stdin, tooldef.DefaultLimits.MaxBytes)
	if err != nil {
		return fail("-call %v", err)
	}
	calls, err := readCalls(data)
	if err != nil {
		return fail("-call %s: %v", displayName(f.call), err)
	}

	j := &callJudge{
		set: set, server: server, catalogue: catalogue, level: level,
		agent:    agentIdentity{namespace: namespace, pod: f.pod, agent: &gateproto.Agent{ServiceAccount: f.serviceAccount, Labels: f.labels}},
		compiled: argjudge.Compile(policy.GateRules(set.rules), nil),
		checker:  argcheck.NewChecker(0),
	}
	results := make([]CheckCallResult, 0, len(calls))
	var differ []string
	for _, c := range calls {
		r := j.judge(c)
		r.File = displayName(f.call)
		if f.expect != "" {
			ok := r.Verdict == f.expect
			r.Expected, r.AsExpected = f.expect, &ok
			if !ok {
				differ = append(differ, fmt.Sprintf("%s (%s)", location(r.File, r.Line), r.Verdict))
			}
		}
		results = append(results, r)
	}

	if f.output == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		for _, r := range results {
			if err := enc.Encode(r); err != nil {
				return fail("%v", err)
			}
		}
	} else {
		writeCheckCallText(stdout, results)
	}
	if len(differ) > 0 {
		fmt.Fprintf(stderr, "toolgate check-call: %s not %s: %s\n", plural(len(differ), "call"), f.expect, strings.Join(differ, ", "))
		return ExitPolicy
	}
	return ExitOK
}

func displayName(name string) string {
	if name == "-" {
		return "<stdin>"
	}
	return name
}

// readLimited reads one file ("-" is stdin) of at most limit bytes;
// errors name the file.
func readLimited(name string, stdin io.Reader, limit int64) ([]byte, error) {
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, unwrapPathError(err))
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return nil, fmt.Errorf("%s: is a directory, want a file", name)
		}
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", displayName(name), err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than the limit of %d bytes", displayName(name), limit)
	}
	return data, nil
}

// savedCall is one tools/call as saved: the tool it names and its raw
// arguments (nil when it gives none).
type savedCall struct {
	line      int
	name      string
	arguments []byte
	// ambiguous is why the gate would not read the message at all: member
	// names a case-insensitive decoder reads as others.
	ambiguous error
}

// readCalls reads one JSON value, or several (JSON lines), each a
// JSON-RPC tools/call request or its params alone.
func readCalls(data []byte) ([]savedCall, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true))
	var calls []savedCall
	for {
		start := dec.InputOffset()
		v, err := dec.ReadValue()
		if errors.Is(err, io.EOF) {
			break
		}
		line := lineAt(data, start)
		if err != nil {
			return nil, fmt.Errorf("line %d: not valid JSON: %w", line, err)
		}
		c, err := parseCall(v)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		c.line = line
		calls = append(calls, c)
	}
	if len(calls) == 0 {
		return nil, errors.New("no call in the file")
	}
	return calls, nil
}

// lineAt is the line of the first byte after offset that is not white
// space: where the value read from offset starts.
func lineAt(data []byte, offset int64) int {
	i := int(offset)
	for i < len(data) && strings.IndexByte(" \t\r\n", data[i]) >= 0 {
		i++
	}
	return bytes.Count(data[:i], []byte("\n")) + 1
}

// parseCall reads one saved call. The form is told by its members: a
// JSON-RPC message has a method; otherwise the value is the params.
func parseCall(v jsontext.Value) (savedCall, error) {
	var head struct {
		JSONRPC *string        `json:"jsonrpc"`
		Method  *string        `json:"method"`
		Params  jsontext.Value `json:"params"`
	}
	if v.Kind() != '{' {
		return savedCall{}, errors.New("want a tools/call request or its params, a JSON object")
	}
	// Repeated names are the gate's to refuse, below, as it refuses them.
	lenient := jsontext.AllowDuplicateNames(true)
	if err := jsonv2.Unmarshal(v, &head, lenient); err != nil {
		return savedCall{}, fmt.Errorf("not a tools/call request: %w", err)
	}
	level, params := mcpshape.RequestParams, v
	if head.Method != nil || head.JSONRPC != nil {
		if head.Method == nil || *head.Method != "tools/call" {
			return savedCall{}, errors.New(`a JSON-RPC message whose method is not "tools/call"`)
		}
		if head.Params.Kind() != '{' {
			return savedCall{}, errors.New("a tools/call request without params")
		}
		level, params = mcpshape.Request, head.Params
	}
	var p struct {
		Name      *string        `json:"name"`
		Arguments jsontext.Value `json:"arguments"`
	}
	if err := jsonv2.Unmarshal(params, &p, lenient); err != nil {
		return savedCall{}, fmt.Errorf("not a tools/call request: %w", err)
	}
	if p.Name == nil || *p.Name == "" {
		return savedCall{}, errors.New("the call names no tool (params.name)")
	}
	c := savedCall{name: *p.Name}
	if len(p.Arguments) > 0 {
		c.arguments = bytes.Clone(p.Arguments)
	}
	if err := namefold.Check(v, level); err != nil {
		c.ambiguous = err
	}
	return c, nil
}

// scoredCatalogue is a -tools capture, scored as `toolgate score` scores
// it: what the operator would pin for each tool.
type scoredCatalogue struct {
	reports map[string]vet.ToolReport
	tools   map[string]*tooldef.Tool
}

func scoreCatalogue(server string, cat *tooldef.Catalogue) *scoredCatalogue {
	report := vet.Vet([]vet.Server{{Name: server, Catalogue: cat}})
	s := &scoredCatalogue{reports: map[string]vet.ToolReport{}, tools: map[string]*tooldef.Tool{}}
	for _, t := range report.Tools {
		if _, dup := s.reports[t.Name]; !dup {
			s.reports[t.Name] = t
		}
	}
	for _, t := range cat.Tools {
		if _, dup := s.tools[t.Name]; !dup {
			s.tools[t.Name] = t
		}
	}
	return s
}

// agentIdentity is the agent pod as argument rules read it.
type agentIdentity struct {
	namespace, pod string
	agent          *gateproto.Agent
}

// callJudge judges calls as the gate does under the configuration the
// operator would make of the policies for one server of one pod.
type callJudge struct {
	set       policySet
	server    string
	catalogue *scoredCatalogue
	// level is -level, -1 when not given.
	level    risk.Level
	agent    agentIdentity
	compiled argjudge.Rules
	checker  *argcheck.Checker
}

// looseSchema stands for a tool whose definition states no inputSchema,
// or is not known: the gate checks only that the arguments are an object.
var looseSchema = []byte(`{"type":"object"}`)

// unknownFingerprint stands for the definition of a tool no -tools
// capture gave: the gate decides only on a tool it has a fingerprint for.
const unknownFingerprint = "sha256:0000000000000000000000000000000000000000000000000000000000000000"

// calledTool is the configuration's entry for the called tool, as the
// operator would make it (package policy), and its approved inputSchema;
// nil, with why, when the configuration would have no entry.
func (j *callJudge) calledTool(name string) (t *gateproto.Tool, schema []byte, problems map[string][]string, why string) {
	t = &gateproto.Tool{Name: name, Fingerprint: unknownFingerprint, Decision: gateproto.DecisionExposed}
	var minTrust int
	if j.catalogue != nil {
		rep, ok := j.catalogue.reports[name]
		def := j.catalogue.tools[name]
		if !ok || def == nil {
			return nil, nil, nil, fmt.Sprintf("the -tools capture has no tool %q: the server does not offer it, and no pin holds it", name)
		}
		t.Fingerprint, t.Level = rep.Fingerprint, rep.Level
		t.Category, t.BlastRadius, t.Reversibility = rep.Risk.Category, rep.Risk.BlastRadius, rep.Risk.Reversibility
		minTrust = rep.Risk.MinTrustLevel
		// The schema as the pin keeps it: the canonical definition's.
		schema, _ = argcheck.InputSchema(def.Canonical())
		if schema == nil {
			schema = []byte{}
		}
	}
	if j.level >= 0 {
		t.Level = j.level.String()
	}
	level := toolgatev1alpha1.Level(t.Level)
	withhold := func(r gateproto.Reason, msg string) {
		t.Decision, t.Reason, t.Message = gateproto.DecisionWithheld, r, msg
		// What a policy chose, another could have chosen otherwise: Audit
		// forwards it.
		t.AuditForwardable = j.set.mode == gateproto.ModeAudit
	}
	switch p := j.set.notListed(j.server, name); {
	case p != "":
		withhold(gateproto.ReasonNotListed, fmt.Sprintf("not in policy %s's tool list for %s", p, j.server))
	case level.Compare(j.set.ceiling) > 0:
		withhold(gateproto.ReasonAboveCeiling, fmt.Sprintf("level %s above ceiling %s", level, j.set.ceiling))
	case minTrust > int(j.set.trust):
		withhold(gateproto.ReasonTrustLevel, fmt.Sprintf("needs agent trust %d, the agents have %d", minTrust, j.set.trust))
	default:
		for _, r := range j.set.approvals {
			if r.Matches(j.server, level, toolgatev1alpha1.Category(t.Category), name) {
				t.Decision, t.ApprovalRule = gateproto.DecisionApprovalGated, r.Name
				break
			}
		}
	}
	if t.Decision == gateproto.DecisionWithheld && !t.AuditForwardable {
		return t, schema, nil, ""
	}
	problems = map[string][]string{}
	for _, r := range j.set.rules {
		if !r.Applies(j.server, name) {
			continue
		}
		ref := gateproto.ToolRule{Rule: r.Name()}
		switch {
		case r.Problem != nil:
			ref.Problem = r.Problem.Message
			problems[ref.Rule] = []string{string(r.Problem.Kind) + ": " + r.Problem.Message}
		case schema != nil:
			// As the operator checks a rule against the pinned schema of
			// every tool it names; the first problem is the gate's.
			for _, p := range argrule.Check(r.Spec.Expression, schema) {
				problems[ref.Rule] = append(problems[ref.Rule], string(p.Kind)+": "+p.Message)
			}
			if ps := problems[ref.Rule]; len(ps) > 0 {
				ref.Problem = ps[0]
			}
		}
		ref.Problem = clip.String(ref.Problem, gateproto.MaxMessageLength)
		t.Rules = append(t.Rules, ref)
	}
	return t, schema, problems, ""
}

// judge decides one call as decide.Call does in the gate, gathering the
// facts it asks for: the arguments checked against the schema, then
// judged by the rules and floors.
func (j *callJudge) judge(c savedCall) CheckCallResult {
	r := CheckCallResult{Line: c.line, Server: j.server, Tool: c.name, Rules: []CheckCallRule{}, Floors: []argfloor.Floor{}}
	if c.ambiguous != nil {
		r.Verdict, r.Reason = string(decide.Refuse), string(decide.ReasonAmbiguousMessage)
		r.Why = "the gate cannot tell which tool or arguments the message names: " + c.ambiguous.Error()
		return r
	}
	f := decide.CallFacts{Mode: j.set.mode, Server: decide.ServerReady, Ceiling: string(j.set.ceiling), ApprovalLevel: string(j.set.approvalLevel)}
	var unknownWhy string
	var schema []byte
	var problems map[string][]string
	if _, referenced := j.set.servers[j.server]; !referenced {
		f.Server, unknownWhy = decide.ServerGone, fmt.Sprintf("the policies do not reference MCPServer %s", j.server)
	} else {
		f.Tool, schema, problems, unknownWhy = j.calledTool(c.name)
	}
	t := f.Tool
	if t != nil {
		r.Level = t.Level
		f.Observed = decide.Observation{Current: true, Fingerprint: t.Fingerprint}
		f.Arguments = decide.Checked(j.checker.Check(t.Fingerprint, func() []byte { return orLoose(schema) }, c.arguments))
	}
	out := decide.Call(f)
	var judged *argjudge.Result
	if out.Missing == decide.MissingArgumentJudgement {
		call := argjudge.Call{Namespace: j.agent.namespace, Pod: j.agent.pod, Agent: j.agent.agent, Server: j.server, Tool: t, Arguments: c.arguments}
		if !j.set.floorsOff {
			call.Floors = argfloor.Analyze(orLoose(schema))
		}
		res := argjudge.Judge(j.compiled, call)
		judged = &res
		f.Judgement = res.ArgumentJudgement
		out = decide.Call(f)
	}
	r.Verdict, r.Reason, r.EnforceWould = string(out.Verdict), string(out.Reason), string(out.EnforceWould)
	if t != nil {
		r.Rules = ruleOutcomes(t, j.compiled, judged, problems)
	}
	if judged != nil {
		jg := judged.ArgumentJudgement
		r.CallLevel, r.Raised = jg.Level, jg.Raised
		r.Floors = append(r.Floors, judged.Floors...)
		switch {
		case jg.Unevaluable != nil:
			r.Rule = jg.Unevaluable.Rule
		case jg.Refuse != nil:
			r.Rule = jg.Refuse.Rule
		}
	}
	enforced := out
	if out.EnforceWould != "" {
		fe := f
		fe.Mode = gateproto.ModeEnforce
		enforced = decide.Call(fe)
	}
	if enforced.Verdict == decide.Hold {
		h := decide.Held(f)
		r.HeldBy, r.Why = heldByWord(h.By), h.Reason
		if h.Rule != "" {
			r.Rule = h.Rule
		}
	} else if r.Rule == "" && judged != nil && enforced.Reason == decide.ReasonArgumentLevel {
		r.Rule = judged.RaisedBy
	}
	switch enforced.Verdict {
	case decide.Forward:
		r.Why = "the gate forwards the call"
	case decide.Refuse:
		r.Why = refusalWhy(enforced, t, unknownWhy)
	}
	if out.EnforceWould != "" {
		r.Why = fmt.Sprintf("Audit forwards what Enforce would %s: %s", out.EnforceWould, r.Why)
	}
	return r
}

func orLoose(schema []byte) []byte {
	if len(schema) == 0 || string(schema) == "null" {
		return looseSchema
	}
	return schema
}

// heldByWord is a held call's reason in the ToolPin's words.
func heldByWord(by string) string {
	switch by {
	case gateproto.HeldByRule:
		return string(toolgatev1alpha1.HeldByArgumentRule)
	case gateproto.HeldByLevel:
		return string(toolgatev1alpha1.HeldByArgumentLevel)
	}
	return string(toolgatev1alpha1.HeldByDesignation)
}

// refusalWhy says why a call is refused, in more words than the agent is
// given: a tool the configuration withholds is "not available" to the
// agent, while the pipeline is told what withholds it.
func refusalWhy(out decide.Outcome, t *gateproto.Tool, unknownWhy string) string {
	switch {
	case out.Reason == decide.ReasonUnknown && unknownWhy != "":
		return unknownWhy
	case t != nil && out.Reason == decide.FromConfig(t.Reason) && t.Message != "":
		return t.Message
	}
	return strings.TrimPrefix(out.Message, "toolgate: ")
}

// ruleOutcomes lists the rules that apply to t, in the order the tool
// names them, each with what it made of the call.
func ruleOutcomes(t *gateproto.Tool, compiled argjudge.Rules, judged *argjudge.Result, problems map[string][]string) []CheckCallRule {
	out := make([]CheckCallRule, 0, len(t.Rules))
	for _, ref := range t.Rules {
		cr := CheckCallRule{Rule: ref.Rule, Outcome: ruleNotJudged, Problems: problems[ref.Rule]}
		if r := compiled[ref.Rule]; r != nil {
			cr.Action, cr.Level = string(r.Spec.Action), r.Spec.Level
		}
		if judged != nil {
			cr.Outcome = ruleNotMatched
			for _, m := range judged.Matches {
				if m.Rule == ref.Rule {
					cr.Outcome, cr.Error = m.Outcome, m.Err
				}
			}
		} else if ref.Problem != "" {
			cr.Outcome, cr.Error = ruleUnevaluable, ref.Problem
		}
		out = append(out, cr)
	}
	return out
}

// writeCheckCallText writes each call's judgement, then a count of the
// verdicts.
func writeCheckCallText(w io.Writer, results []CheckCallResult) {
	counts := map[string]int{}
	var differ int
	for _, r := range results {
		counts[r.Verdict]++
		head := fmt.Sprintf("%s: %s on %s: %s", location(r.File, r.Line), Printable(r.Tool), r.Server, r.Verdict)
		if r.Reason != "" {
			head += " (" + r.Reason + ")"
		}
		if r.EnforceWould != "" {
			head += ", Enforce would " + r.EnforceWould
		}
		fmt.Fprintln(w, head)
		fmt.Fprintf(w, "  why:    %s\n", Printable(r.Why))
		if r.HeldBy != "" {
			held := r.HeldBy
			if r.Rule != "" {
				held += " " + r.Rule
			}
			fmt.Fprintf(w, "  held:   %s\n", held)
		}
		if r.Level != "" || r.CallLevel != "" {
			lvl := orNone(r.Level)
			if r.CallLevel != "" && r.CallLevel != r.Level {
				lvl += " → " + r.CallLevel
			}
			if r.Raised != "" {
				lvl += " (" + Printable(r.Raised) + ")"
			}
			fmt.Fprintf(w, "  level:  %s\n", lvl)
		}
		for _, rule := range r.Rules {
			line := rule.Rule + " " + rule.Outcome
			if rule.Action != "" {
				line += " (" + rule.Action
				if rule.Level != "" {
					line += " " + rule.Level
				}
				line += ")"
			}
			if rule.Error != "" {
				line += ": " + Printable(rule.Error)
			}
			fmt.Fprintf(w, "  rule:   %s\n", line)
			// The first problem is the one the gate gives; the others the
			// operator reports beside it.
			for _, p := range rule.Problems[min(1, len(rule.Problems)):] {
				fmt.Fprintf(w, "          also %s\n", Printable(p))
			}
		}
		for _, fl := range r.Floors {
			fmt.Fprintf(w, "  floor:  %s at %s (%s): %s\n", fl.Signal, Printable(fl.Path), fl.Level, Printable(fl.Detail))
		}
		if r.AsExpected != nil && !*r.AsExpected {
			fmt.Fprintf(w, "  expected %s\n", r.Expected)
			differ++
		}
	}
	var parts []string
	for _, v := range verdicts {
		if n := counts[string(v)]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, v))
		}
	}
	fmt.Fprintf(w, "%s judged: %s", plural(len(results), "call"), strings.Join(parts, ", "))
	if differ > 0 {
		fmt.Fprintf(w, "; %d not as expected", differ)
	}
	fmt.Fprintln(w)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
