package argfloor

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/toolgate/toolgate/pkg/namefold"
)

// Bounds of the analysis, so that a hostile schema costs the gate a
// bounded amount of work once, and every call a bounded walk.
const (
	// maxDepth is how deep in nested objects and arrays parameters are
	// read: options.build.force is three levels.
	maxDepth = 8
	// maxNodes bounds the parameters a plan holds.
	maxNodes = 2048
	// maxRefs bounds the $ref lookups of one analysis.
	maxRefs = 256
)

// role is what a parameter's value is read for; a parameter may have
// several.
type role uint16

const (
	// roleFlag: a flag whose set value forces or widens (node.flag).
	roleFlag role = 1 << iota
	// roleEnumForce: an enumerated option whose values include a forcing
	// variant (git reset's mode "hard").
	roleEnumForce
	// roleSelector: a selector, filter or condition: an empty one, a
	// wildcard, "all" or an always-true condition selects everything.
	roleSelector
	// roleIdentifier: names the thing acted on: a wildcard or "all"
	// names everything.
	roleIdentifier
	// roleSearch: a search string: a lone wildcard matches everything.
	roleSearch
	// roleStatement: carries a statement of a query language.
	roleStatement
	// roleCommand: a command line, or one element of an argument vector.
	roleCommand
	// roleFlagMap: an object whose member names are flags
	// ({"force": true, "all-namespaces": true}).
	roleFlagMap
	// roleOperation: the operation of a tool that does several
	// (mode: "list"), read to tell a call that reads from one that
	// changes state.
	roleOperation
)

// node is one parameter of a plan, or an object or array holding some.
type node struct {
	// name is the parameter's name as the schema spells it, for paths.
	name  string
	roles role
	flag  flagClass
	// def is the declared default as the call would carry it ("true",
	// "false", or a string's text); hasDef says there is one. A value
	// equal to the default means what leaving the argument out means.
	def    string
	hasDef bool
	// saidDefault is a default the description states ("(default: all)"),
	// lower-cased; it exempts reach values the same way.
	saidDefault string
	// condition says a selector's string is a condition (where: "…"),
	// read for one that is always true.
	condition bool
	// enum holds the enumerated string values: an option the server
	// offers is its vocabulary, not a widening (state: all).
	enum map[string]bool
	// forceValues are the enumerated values that force (roleEnumForce).
	forceValues map[string]bool
	// readOperations are the enumerated operations that read
	// (roleOperation).
	readOperations map[string]bool
	// children are the members of an object, by their folded names.
	children map[string]*node
	// items is the element of an array.
	items *node
}

// Plan is what a tool's input schema says to look at in its calls. The
// zero Plan, and a nil one, look at nothing.
type Plan struct {
	root *node
	// signals is the set of signals the plan looks for, one bit each.
	signals uint8
	// readByDefault says a call that names no operation reads: the
	// operation's default is one that reads.
	readByDefault bool
}

// Empty reports whether calls of the tool have nothing to look at: its
// Evaluate returns nil without reading the arguments.
func (p *Plan) Empty() bool { return p == nil || p.root == nil }

// Analyze reads a tool's inputSchema once and returns what to look at in
// its calls: which parameters (by path) are flags of which kind,
// selectors, identifiers, statements or command lines. A schema it cannot
// read, or one with nothing to look at, gives an empty Plan.
func Analyze(inputSchema []byte) *Plan {
	var schema any
	dec := json.NewDecoder(bytes.NewReader(inputSchema))
	dec.UseNumber()
	if err := dec.Decode(&schema); err != nil {
		return &Plan{}
	}
	obj, _ := schema.(map[string]any)
	if obj == nil {
		return &Plan{}
	}
	a := &analysis{root: obj}
	root := &node{}
	a.object(root, obj, 0)
	if root.children == nil {
		return &Plan{}
	}
	p := &Plan{root: root, signals: root.allSignals()}
	for _, c := range root.children {
		if c.roles&roleOperation != 0 && c.hasDef && c.readOperations[c.def] {
			p.readByDefault = true
		}
	}
	if p.signals == 0 {
		return &Plan{}
	}
	return p
}

// allSignals is the set of signals n and the parameters inside it can
// raise.
func (n *node) allSignals() uint8 {
	s := n.signalSet()
	for _, c := range n.children {
		s |= c.allSignals()
	}
	if n.items != nil {
		s |= n.items.allSignals()
	}
	return s
}

// analysis is the state of one Analyze.
type analysis struct {
	root  map[string]any
	nodes int
	refs  int
}

// facts are what one parameter's schema says, merged over its anyOf,
// oneOf and allOf variants and its $ref.
type facts struct {
	types       map[string]bool
	description string
	def         any
	hasDef      bool
	enum        []any
	properties  []map[string]any
	additional  bool // additionalProperties true or a schema
	items       []map[string]any
}

// collect gathers the facts of schema s into f.
func (a *analysis) collect(f *facts, s map[string]any, depth int) {
	if s == nil || depth > maxDepth {
		return
	}
	if ref, ok := s["$ref"].(string); ok {
		if target := a.resolve(ref); target != nil {
			a.collect(f, target, depth+1)
		}
	}
	switch t := s["type"].(type) {
	case string:
		f.addType(t)
	case []any:
		for _, x := range t {
			if ts, ok := x.(string); ok {
				f.addType(ts)
			}
		}
	}
	if d, ok := s["description"].(string); ok && f.description == "" {
		f.description = d
	}
	if d, ok := s["default"]; ok && !f.hasDef {
		f.def, f.hasDef = d, true
	}
	if e, ok := s["enum"].([]any); ok {
		f.enum = append(f.enum, e...)
	}
	if c, ok := s["const"]; ok {
		f.enum = append(f.enum, c)
	}
	if p, ok := s["properties"].(map[string]any); ok {
		f.properties = append(f.properties, p)
	}
	switch ap := s["additionalProperties"].(type) {
	case bool:
		f.additional = f.additional || ap
	case map[string]any:
		f.additional = true
	}
	switch it := s["items"].(type) {
	case map[string]any:
		f.items = append(f.items, it)
	case []any: // draft-04 tuple form
		for _, x := range it {
			if m, ok := x.(map[string]any); ok {
				f.items = append(f.items, m)
			}
		}
	}
	if it, ok := s["prefixItems"].([]any); ok {
		for _, x := range it {
			if m, ok := x.(map[string]any); ok {
				f.items = append(f.items, m)
			}
		}
	}
	for _, key := range [...]string{"anyOf", "oneOf", "allOf"} {
		variants, _ := s[key].([]any)
		for _, v := range variants {
			if m, ok := v.(map[string]any); ok {
				a.collect(f, m, depth+1)
			}
		}
	}
}

func (f *facts) addType(t string) {
	if f.types == nil {
		f.types = map[string]bool{}
	}
	f.types[t] = true
}

// untyped reports a parameter that declares no type: any value.
func (f *facts) untyped() bool { return len(f.types) == 0 }

func (f *facts) is(t string) bool { return f.types[t] || f.untyped() }

// resolve follows a local JSON pointer ("#/$defs/Filter"); remote
// references are not fetched.
func (a *analysis) resolve(ref string) map[string]any {
	if a.refs++; a.refs > maxRefs || !strings.HasPrefix(ref, "#") {
		return nil
	}
	var cur any = a.root
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#"), "/") {
		if part == "" {
			continue
		}
		part = strings.NewReplacer("~1", "/", "~0", "~").Replace(part)
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[part]
	}
	m, _ := cur.(map[string]any)
	return m
}

// object fills n with the parameters of object schema s.
func (a *analysis) object(n *node, s map[string]any, depth int) {
	var f facts
	a.collect(&f, s, depth)
	a.members(n, &f, depth)
}

// members adds the declared properties in f to n; a member that has
// nothing to look at is left out.
func (a *analysis) members(n *node, f *facts, depth int) {
	for _, props := range f.properties {
		// Sorted, so that a plan, and which of two names folding alike is
		// read, are the same on every run.
		for _, name := range slices.Sorted(maps.Keys(props)) {
			ps, _ := props[name].(map[string]any)
			if ps == nil || a.nodes >= maxNodes {
				continue
			}
			key := namefold.Key(name)
			if n.children != nil && n.children[key] != nil {
				continue // a name two variants declare: the first one's reading
			}
			child := a.parameter(name, ps, depth+1)
			if child == nil {
				continue
			}
			if n.children == nil {
				n.children = map[string]*node{}
			}
			n.children[key] = child
		}
	}
}

// parameter reads one parameter's schema: its roles, and the parameters
// inside it. It returns nil when there is nothing to look at.
func (a *analysis) parameter(name string, s map[string]any, depth int) *node {
	if depth > maxDepth {
		return nil
	}
	a.nodes++
	var f facts
	a.collect(&f, s, depth)
	n := &node{name: name}
	words := splitWords(name)
	readRoles(n, words, &f, false)
	if f.is("object") {
		a.members(n, &f, depth)
	}
	if f.is("array") && len(f.items) > 0 {
		n.items = a.element(name, words, f.items, depth+1)
	}
	if n.roles == 0 && n.children == nil && n.items == nil {
		return nil
	}
	return n
}

// element reads the element schema of an array parameter: an object's
// members, or — for an array of strings — the roles the array's name
// gives its elements (ids: ["*"], args: ["--force"]).
func (a *analysis) element(name string, words []string, items []map[string]any, depth int) *node {
	if depth > maxDepth {
		return nil
	}
	a.nodes++
	var f facts
	for _, it := range items {
		a.collect(&f, it, depth)
	}
	n := &node{name: name}
	readRoles(n, words, &f, true)
	// An element reached by index has no flag, selector or flag-map role
	// of its own beyond what its strings say.
	n.roles &^= roleFlag | roleFlagMap
	if n.roles&roleSelector != 0 && !f.is("string") {
		n.roles &^= roleSelector
	}
	if f.is("object") {
		a.members(n, &f, depth)
	}
	if n.roles == 0 && n.children == nil {
		return nil
	}
	return n
}

// The words of parameter names that say what a value is. Like the flag
// words, they are the names APIs give these things across services.
var (
	// selectorWords name a parameter that selects what a call acts on.
	selectorWords = newSet("selector selectors filter filters where match matcher scope condition conditions " +
		"criteria pattern patterns glob globs")
	// conditionWords name a selector that is a condition, as a WHERE
	// clause is: 1=1 or true there selects every row.
	conditionWords = newSet("where condition conditions criteria predicate")
	// notSelecting turn a selector into its opposite: an exclusion
	// selects nothing when empty.
	notSelecting = newSet("exclude excludes excluded ignore ignored skip not")
	// answerShape next to a selector word say it shapes the answer, not
	// what the call acts on: filter_properties, field_filter.
	answerShape = newSet("properties property fields field columns column attributes details output response " +
		"result results projection")
	// identifierWords are the head nouns of parameters that name the
	// target of a call: its identifier, or the container it acts in.
	identifierWords = newSet("id ids identifier identifiers uuid name names key keys namespace namespaces ns " +
		"target targets resource resources project projects repo repos repository repositories bucket buckets " +
		"table tables collection collections database databases db index indexes indices topic topics queue " +
		"queues cluster clusters app apps application applications service services user users account " +
		"accounts org organization organizations group groups team teams channel channels branch branches " +
		"tag tags label labels pod pods node nodes host hosts instance instances workspace workspaces " +
		"environment environments region regions zone zones path paths file files dir directory item items " +
		"record records object objects entity entities job jobs task tasks")
	// searchWords name a free-text search.
	searchWords = newSet("query q search keyword keywords term terms")
	// statementNames name a parameter that carries a statement whatever
	// its description says.
	statementNames = newSet("sql statement statements cypher ddl dml")
	// statementHints name a parameter that carries a statement when its
	// description names a statement language.
	statementHints = newSet("query queries command commands cmd script")
	// commandWords name a command line or an argument vector.
	commandWords = newSet("command commands cmd cmdline commandline args argv arguments cli")
	// flagMapWords name an object whose members are flags; "args" alone
	// does too, but not beside another word (buildArgs are variables).
	flagMapWords = newSet("flags options opts")
	// operationWords name the parameter that chooses the operation of a
	// tool that does several.
	operationWords = newSet("mode action operation op subcommand method")
	// readVerbs open the name of an operation that reads.
	readVerbs = newSet("list get show describe read view search find fetch status info inspect diff log logs " +
		"history count preview explain")
)

// readRoles gives n its roles from its name's words and schema facts.
// element says n is an array's element, named by the array.
func readRoles(n *node, words []string, f *facts, element bool) {
	if f.hasDef {
		n.def, n.hasDef = scalarText(f.def)
	}
	n.saidDefault = statedDefault(f.description)
	stringEnum := false
	operation := !element && len(words) > 0 && operationWords[words[len(words)-1]]
	for _, v := range f.enum {
		s, ok := v.(string)
		if !ok {
			continue
		}
		if n.enum == nil {
			n.enum = map[string]bool{}
		}
		n.enum[s] = true
		stringEnum = true
		vw := splitWords(s)
		// A forcing option is one word (mode: "hard"); a status named with
		// one (force_canceled) forces nothing.
		if len(vw) == 1 && enumForce[vw[0]] {
			if n.forceValues == nil {
				n.forceValues = map[string]bool{}
			}
			n.forceValues[s] = true
		}
		if operation && len(vw) > 0 && readVerbs[vw[0]] {
			if n.readOperations == nil {
				n.readOperations = map[string]bool{}
			}
			n.readOperations[s] = true
		}
	}
	if n.forceValues != nil {
		n.roles |= roleEnumForce
	}
	if n.readOperations != nil {
		n.roles |= roleOperation
	}
	str := f.is("string")
	if !element && (f.types["boolean"] || f.untyped() || boolishEnum(f.enum)) {
		defTrue := n.hasDef && n.def == "true"
		if fc := classifyFlag(words, f.description, defTrue); fc.kind != flagNone {
			n.flag = fc
			n.roles |= roleFlag
		}
	}
	if !str && !f.is("array") && !f.is("object") {
		return
	}
	statement := !stringEnum && (statementNames.any(words) ||
		(statementHints.any(words) && namesStatementLanguage(f.description)))
	if statement && str {
		n.roles |= roleStatement
	}
	if statement {
		return
	}
	if commandWords.any(words) && !stringEnum && str {
		n.roles |= roleCommand
	}
	flagMap := flagMapWords.any(words) || (len(words) == 1 && (words[0] == "args" || words[0] == "arguments"))
	if !element && f.is("object") && flagMap && (len(f.properties) == 0 || f.additional) {
		n.roles |= roleFlagMap
	}
	// A query given as an object is a filter (MongoDB's find); a query
	// named beside something else (queryParams, dataset_query) is not.
	selector := selectorWords.any(words) || (len(words) == 1 && searchWords[words[0]] && f.types["object"])
	if selector && !notSelecting.any(words) && !negators.any(words) && !answerShape.any(words) {
		n.roles |= roleSelector
		n.condition = conditionWords.any(words)
		return
	}
	if !str {
		return
	}
	if len(words) > 0 && identifierWords[words[len(words)-1]] {
		n.roles |= roleIdentifier
	} else if searchWords.any(words) {
		n.roles |= roleSearch
	}
}

// signalSet is the set of signals n's roles can raise, as bits.
func (n *node) signalSet() uint8 {
	var s uint8
	if n.roles&roleFlag != 0 {
		s |= 1 << signalOfFlag(n.flag.kind).index()
	}
	if n.roles&(roleEnumForce|roleCommand|roleFlagMap) != 0 {
		s |= 1 << SignalForce.index()
	}
	if n.roles&(roleSelector|roleIdentifier|roleSearch) != 0 {
		s |= 1 << SignalReach.index()
	}
	if n.roles&roleStatement != 0 {
		s |= 1 << SignalStatement.index()
	}
	return s
}

func signalOfFlag(k flagKind) Signal {
	if k == flagReach {
		return SignalReach
	}
	return SignalForce
}

// boolishEnum reports an enumeration of the strings a boolean is spelt
// with ("true", "false").
func boolishEnum(enum []any) bool {
	if len(enum) == 0 {
		return false
	}
	for _, v := range enum {
		s, ok := v.(string)
		if !ok {
			if _, isBool := v.(bool); isBool {
				continue
			}
			return false
		}
		if _, known := truth([]byte(s)); !known {
			return false
		}
	}
	return true
}

// namesStatementLanguage reports whether a parameter's description says
// it carries a statement: SQL (any dialect spelt with it: MySQL,
// PostgreSQL, BigQuery SQL), Cypher, or a "statement".
func namesStatementLanguage(description string) bool {
	for _, w := range splitWords(description) {
		switch {
		case w == "nosql":
		case strings.HasSuffix(w, "sql"), w == "cypher", w == "ddl", w == "dml",
			w == "statement", w == "statements":
			return true
		}
	}
	return false
}

// scalarText is a default value as a call would carry it.
func scalarText(v any) (string, bool) {
	switch d := v.(type) {
	case bool:
		if d {
			return "true", true
		}
		return "false", true
	case string:
		return d, true
	case json.Number:
		return d.String(), true
	}
	return "", false
}

// statedDefault reads a default a description states in words, for the
// values that would otherwise widen: "(default: all)", "'all' (default)",
// "defaults to *". It returns the lower-cased value, or "".
func statedDefault(description string) string {
	d := strings.ToLower(description)
	for _, lead := range [...]string{"default:", "defaults to", "default is", "default ="} {
		if i := strings.Index(d, lead); i >= 0 {
			if v := firstField(d[i+len(lead):]); v != "" {
				return v
			}
		}
	}
	if i := strings.Index(d, "(default"); i > 0 {
		before := strings.Fields(d[:i])
		if len(before) > 0 {
			v := before[len(before)-1]
			if j := strings.IndexAny(v, "=:"); j > 0 {
				v = v[:j]
			}
			return strings.Trim(v, "'\"`,;()")
		}
	}
	return ""
}

func firstField(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return strings.Trim(f[0], "'\"`,;.()")
}
