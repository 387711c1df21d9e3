package argfloor

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolgate/toolgate/internal/corpus"
)

// corpusTool is one tool of the development corpus, its schema as the
// server sent it.
type corpusTool struct {
	key    string // folder/server/tool
	schema json.RawMessage
}

func corpusTools(t *testing.T) []corpusTool {
	t.Helper()
	var tools []corpusTool
	for _, folder := range corpus.Folders() {
		for _, file := range corpus.FolderServers(t, folder) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var capture struct {
				Tools []struct {
					Name        string          `json:"name"`
					InputSchema json.RawMessage `json:"inputSchema"`
				} `json:"tools"`
			}
			if err := json.Unmarshal(data, &capture); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			server := strings.TrimSuffix(filepath.Base(file), ".json")
			for _, tool := range capture.Tools {
				tools = append(tools, corpusTool{key: folder + "/" + server + "/" + tool.Name, schema: tool.InputSchema})
			}
		}
	}
	if len(tools) == 0 {
		t.Fatal("no tools in the corpus")
	}
	return tools
}

// ordinary builds the arguments of an ordinary call from a schema: every
// required property (or, with all, every property) filled with a plain
// value — the default, the first enumerated value, an identifier-like
// string, 1, false, one element, a SELECT for a statement.
type ordinary struct {
	root map[string]any
	all  bool
}

func (o ordinary) value(s map[string]any, name string, depth int) any {
	if s == nil || depth > maxDepth {
		return "example-1"
	}
	if ref, ok := s["$ref"].(string); ok {
		a := analysis{root: o.root}
		if target := a.resolve(ref); target != nil {
			return o.value(target, name, depth+1)
		}
	}
	if c, ok := s["const"]; ok {
		return c
	}
	if d, ok := s["default"]; ok && d != nil {
		return d
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		if vs, ok := s[key].([]any); ok && len(vs) > 0 {
			if _, typed := s["type"]; !typed {
				first, _ := vs[0].(map[string]any)
				if key == "allOf" {
					merged := map[string]any{}
					for _, v := range vs {
						if m, ok := v.(map[string]any); ok {
							maps.Copy(merged, m)
						}
					}
					first = merged
				}
				return o.value(first, name, depth+1)
			}
		}
	}
	typ := ""
	switch t := s["type"].(type) {
	case string:
		typ = t
	case []any:
		for _, x := range t {
			if ts, _ := x.(string); ts != "null" && ts != "" {
				typ = ts
				break
			}
		}
	}
	if typ == "" {
		if _, ok := s["properties"]; ok {
			typ = "object"
		}
	}
	switch typ {
	case "boolean":
		return false
	case "integer", "number":
		return 1
	case "array":
		items, _ := s["items"].(map[string]any)
		return []any{o.value(items, name, depth+1)}
	case "object":
		obj := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		required := map[string]bool{}
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if rs, ok := r.(string); ok {
					required[rs] = true
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(props)) {
			if o.all || required[k] {
				ps, _ := props[k].(map[string]any)
				obj[k] = o.value(ps, k, depth+1)
			}
		}
		if len(obj) == 0 && (selectorWords.any(splitWords(name)) || name == "query") {
			obj["id"] = "example-1" // a filter that selects one thing
		}
		return obj
	}
	words := splitWords(name)
	desc, _ := s["description"].(string)
	if statementNames.any(words) || (statementHints.any(words) && namesStatementLanguage(desc)) {
		return "SELECT id, name FROM items WHERE id = 1"
	}
	return "example-1"
}

func (o ordinary) call(schema json.RawMessage) []byte {
	var root map[string]any
	if json.Unmarshal(schema, &root) != nil || root == nil {
		return []byte(`{}`)
	}
	o.root = root
	args, _ := o.value(root, "", 0).(map[string]any)
	if args == nil {
		args = map[string]any{}
	}
	out, _ := json.Marshal(args)
	return out
}

// TestCorpusOrdinaryCalls builds ordinary calls of every tool of the
// corpus and requires that none meets a floor: a signal that fires on an
// ordinary call would hold or refuse calls nobody should have to approve.
// It logs how many tools' plans look for each signal.
func TestCorpusOrdinaryCalls(t *testing.T) {
	tools := corpusTools(t)
	counts := map[Signal]int{}
	roles := map[string]int{}
	planned, enumerated := 0, 0
	for _, tool := range tools {
		p := Analyze(tool.schema)
		if !p.Empty() {
			planned++
			for r := range rolesOf(p.root) {
				roles[r]++
			}
		}
		for _, s := range p.Signals() {
			counts[s]++
		}
		for _, all := range []bool{false, true} {
			args := ordinary{all: all}.call(tool.schema)
			if fs := p.Evaluate(args, ""); len(fs) > 0 {
				t.Errorf("%s: an ordinary call %s meets %+v", tool.key, args, fs)
			}
		}
		// Every option a server enumerates is ordinary, but a forcing one.
		if p.Empty() {
			continue
		}
		for _, c := range p.root.children {
			for _, v := range slices.Sorted(maps.Keys(c.enum)) {
				if c.forceValues[v] {
					continue
				}
				var args map[string]any
				_ = json.Unmarshal(ordinary{}.call(tool.schema), &args)
				args[c.name] = v
				raw, _ := json.Marshal(args)
				if fs := p.Evaluate(raw, ""); len(fs) > 0 {
					t.Errorf("%s: the option %s=%q meets %+v", tool.key, c.name, v, fs)
				}
				enumerated++
			}
		}
	}
	t.Logf("%d enumerated options tried, none met a floor", enumerated)
	t.Logf("%d tools, %d with a plan; plans looking for %s: %d, %s: %d, %s: %d", len(tools), planned,
		SignalReach, counts[SignalReach], SignalForce, counts[SignalForce], SignalStatement, counts[SignalStatement])
	for _, r := range slices.Sorted(maps.Keys(roles)) {
		t.Logf("tools with %s: %d", r, roles[r])
	}
}

// rolesOf names the kinds of parameters in a plan, for the figures.
func rolesOf(n *node) map[string]bool {
	out := map[string]bool{}
	var walk func(n *node)
	walk = func(n *node) {
		if n.roles&roleFlag != 0 {
			out[map[flagKind]string{flagForce: "a force flag", flagForceWeak: "a force flag", flagReach: "a reach flag"}[n.flag.kind]] = true
		}
		for r, name := range map[role]string{roleEnumForce: "a forcing option", roleSelector: "a selector",
			roleIdentifier: "an identifier", roleSearch: "a search", roleStatement: "a statement parameter",
			roleCommand: "a command line", roleFlagMap: "a flag map", roleOperation: "an operation that can read"} {
			if n.roles&r != 0 {
				out[name] = true
			}
		}
		for _, c := range n.children {
			walk(c)
		}
		if n.items != nil {
			walk(n.items)
		}
	}
	walk(n)
	return out
}

// flagSite is a flag of a plan and the path to it.
type flagSite struct {
	path []string // member names; "" steps into an array's element
	n    *node
}

func flagSites(n *node, path []string, out *[]flagSite) {
	if n.roles&(roleFlag|roleEnumForce) != 0 && len(path) > 0 {
		*out = append(*out, flagSite{path: slices.Clone(path), n: n})
	}
	for _, c := range n.children {
		flagSites(c, append(path, c.name), out)
	}
	if n.items != nil {
		flagSites(n.items, append(path, ""), out)
	}
}

// setAt puts v at path in args, making the objects and arrays on the way.
func setAt(args map[string]any, path []string, v any) {
	cur := args
	for i, step := range path {
		last := i == len(path)-1
		next := i+1 < len(path) && path[i+1] == ""
		if last {
			cur[step] = v
			return
		}
		if step == "" {
			continue
		}
		if next {
			elem := map[string]any{}
			if i+2 == len(path) {
				cur[step] = []any{v}
				return
			}
			cur[step] = []any{elem}
			cur = elem
			continue
		}
		child, ok := cur[step].(map[string]any)
		if !ok {
			child = map[string]any{}
			cur[step] = child
		}
		cur = child
	}
}

func renderSite(path []string) string {
	var b strings.Builder
	for _, step := range path {
		if step == "" {
			b.WriteString("[0]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(step)
	}
	return b.String()
}

// TestCorpusFlagsFire sets every flag a corpus plan classifies as
// forcing or widening to the value that forces or widens, on top of an
// ordinary call, and requires the floor at that flag's path.
func TestCorpusFlagsFire(t *testing.T) {
	checked := 0
	for _, tool := range corpusTools(t) {
		p := Analyze(tool.schema)
		if p.Empty() {
			continue
		}
		var sites []flagSite
		flagSites(p.root, nil, &sites)
		for _, site := range sites {
			var args map[string]any
			_ = json.Unmarshal(ordinary{all: true}.call(tool.schema), &args)
			var v any
			want := SignalForce
			switch {
			case site.n.roles&roleFlag != 0:
				v = site.n.flag.unsafe
				want = signalOfFlag(site.n.flag.kind)
			default:
				v = slices.Sorted(maps.Keys(site.n.forceValues))[0]
			}
			setAt(args, site.path, v)
			raw, _ := json.Marshal(args)
			path := renderSite(site.path)
			found := false
			for _, f := range p.Evaluate(raw, "") {
				found = found || (f.Path == path && f.Signal == want)
			}
			if !found {
				t.Errorf("%s: %s=%v meets no %s floor: %s", tool.key, path, v, want, raw)
			}
			checked++
		}
	}
	t.Logf("%d flags and forcing options set, each met its floor", checked)
}
