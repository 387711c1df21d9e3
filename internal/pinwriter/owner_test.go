package pinwriter

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// The writers of ToolPin status that are not the operator's. Each entry
// says why it may write.
var otherWriters = map[string]string{
	// kubectl toolgate approve/reject appends one decision as the person
	// who runs it: the approval webhooks stamp and check it like any
	// kubectl patch of theirs. A person's decision, not the operator's
	// write.
	"github.com/toolgate/toolgate/internal/cli": "a person's decision, sent as that person through the approval webhooks",
}

const (
	modulePath   = "github.com/toolgate/toolgate"
	apiPath      = modulePath + "/api/v1alpha1"
	thisPath     = modulePath + "/internal/pinwriter"
	crClientPath = "sigs.k8s.io/controller-runtime/pkg/client"
)

// TestOnlyThisPackageWritesToolPinStatus type-checks every production
// (non-test) package of the module and fails on any write of a ToolPin's
// status outside this package and otherWriters: a status subresource
// write (Status() or SubResource(...) of controller-runtime's client) of a
// *ToolPin, or of a client.Object that is a ToolPin somewhere up the
// calls — a helper that writes the status of whatever object it is given
// is followed to its callers, and a call that hands it a ToolPin fails.
// A write whose object it cannot trace (an interface value that is not a
// parameter, an unstructured object, a method taken as a value, a REST or
// dynamic client's status write) fails too: a new way of writing must be
// made traceable or written here.
//
// A linter rule (forbidigo, depguard) would match names or imports, and
// the operator writes MCPServer and ToolPolicy status with the same
// client calls through the same helper: only the types tell a ToolPin's
// status write from theirs, so the check is a test over go/packages'
// typed syntax, run with the others.
func TestOnlyThisPackageWritesToolPinStatus(t *testing.T) {
	found := findStatusWrites(load(t, "./..."))
	if len(found.calls) < 2 {
		// The writer's own writes (status and labels) must be seen, or
		// the check sees nothing.
		t.Fatalf("the check found %d status writes in the module; it no longer recognises them", len(found.calls))
	}
	if !slices.ContainsFunc(found.toolPinWrites, func(w write) bool { return w.pkg == thisPath }) {
		t.Errorf("no ToolPin status write found in %s: the check no longer sees the writer's", thisPath)
	}
	seenOther := map[string]bool{}
	for _, w := range found.toolPinWrites {
		seenOther[w.pkg] = true
	}
	for pkg := range otherWriters {
		if !seenOther[pkg] {
			t.Errorf("%s no longer writes ToolPin status: take it out of otherWriters", pkg)
		}
	}
	if bad := found.outside(); len(bad) > 0 {
		t.Errorf("ToolPin status is written outside %s (record the change through pinwriter.Writer instead):\n%s", thisPath, strings.Join(bad, "\n"))
	}
}

// TestTheOwnerCheckFindsEveryWayOfWriting runs the check on a package
// that writes status in each way it must tell apart (testdata/writers),
// and expects a report on exactly the lines marked "want".
func TestTheOwnerCheckFindsEveryWayOfWriting(t *testing.T) {
	pkgs := load(t, "./internal/pinwriter/testdata/writers")
	got := map[string]string{} // file:line → report
	for _, w := range findStatusWrites(pkgs).outside() {
		file, rest, _ := strings.Cut(w, ": ")
		got[file] = rest
	}
	want := map[string]string{}
	for _, p := range pkgs {
		for _, f := range p.Syntax {
			for _, cg := range f.Comments {
				for _, c := range cg.List {
					if text, ok := strings.CutPrefix(c.Text, "// want "); ok {
						want[where(p.Fset.Position(c.Pos()))] = strings.Trim(text, `"`)
					}
				}
			}
		}
	}
	if len(want) == 0 {
		t.Fatal("testdata/writers marks no line")
	}
	for at, part := range want {
		if !strings.Contains(got[at], part) {
			t.Errorf("%s: reported %q, want %q", at, got[at], part)
		}
	}
	for at, report := range got {
		if _, ok := want[at]; !ok {
			t.Errorf("%s: reported %q, which is no ToolPin status write", at, report)
		}
	}
}

// load type-checks the packages of the module that match patterns, their
// non-test files only.
func load(t *testing.T, patterns ...string) []*packages.Package {
	t.Helper()
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:  moduleRoot(),
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	var broken []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			broken = append(broken, e.Error())
		}
	})
	if len(broken) > 0 {
		t.Fatalf("the module does not type-check, so its writes cannot be traced:\n%s", strings.Join(broken, "\n"))
	}
	return pkgs
}

// outside are the writes of ToolPin status, and the writes the check
// cannot trace, outside this package and otherWriters, sorted.
func (s statusWrites) outside() []string {
	var bad []string
	for _, w := range slices.Concat(s.toolPinWrites, s.untraceable) {
		if w.pkg != thisPath && otherWriters[w.pkg] == "" {
			bad = append(bad, w.String())
		}
	}
	slices.Sort(bad)
	return bad
}

// write is one call that writes an object's status.
type write struct {
	pkg string
	pos token.Position
	why string
}

func (w write) String() string {
	return fmt.Sprintf("%s: %s", where(w.pos), w.why)
}

// where is a position as file:line, the file from the module's root.
func where(pos token.Position) string {
	file := pos.Filename
	if rel, err := filepath.Rel(moduleRoot(), file); err == nil {
		file = rel
	}
	return fmt.Sprintf("%s:%d", file, pos.Line)
}

func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

type statusWrites struct {
	// calls are all status writes seen, of any kind of object.
	calls []write
	// toolPinWrites are the status writes of a ToolPin.
	toolPinWrites []write
	// untraceable are status writes of an object the check cannot tell.
	untraceable []write
}

// call is one call in a function of the module, with what the check needs
// to follow an argument.
type call struct {
	pkg    *packages.Package
	caller *types.Func // nil outside a function declaration
	callee string      // the callee's full name
	expr   *ast.CallExpr
}

// findStatusWrites follows status writes from controller-runtime's
// SubResourceWriter up through the module's functions that pass an
// object parameter on to one, to a fixpoint.
func findStatusWrites(pkgs []*packages.Package) statusWrites {
	var out statusWrites
	var calls []call
	// writers maps a function's full name to the indexes of its
	// parameters whose status it writes.
	writers := map[string]map[int]bool{}
	for _, p := range pkgs {
		for _, f := range p.Syntax {
			inspectFile(p, f, &calls, &out, writers)
		}
	}
	seen := map[string]bool{}
	add := func(list *[]write, w write) {
		k := w.String()
		if !seen[k] {
			seen[k] = true
			*list = append(*list, w)
		}
	}
	for changed := true; changed; {
		changed = false
		for _, c := range calls {
			params := writers[c.callee]
			for i := range params {
				if i >= len(c.expr.Args) {
					continue
				}
				arg := ast.Unparen(c.expr.Args[i])
				pos := c.pkg.Fset.Position(arg.Pos())
				w := write{pkg: c.pkg.PkgPath, pos: pos}
				add(&out.calls, write{pkg: c.pkg.PkgPath, pos: pos, why: "status write"})
				typ := c.pkg.TypesInfo.TypeOf(arg)
				switch {
				case typ == nil:
					w.why = fmt.Sprintf("%s writes the status of %s, whose type the check does not know", shortName(c.callee), types.ExprString(arg))
					add(&out.untraceable, w)
				case isToolPin(typ):
					w.why = fmt.Sprintf("%s writes the status of a ToolPin", shortName(c.callee))
					add(&out.toolPinWrites, w)
				case isUnstructured(typ):
					w.why = fmt.Sprintf("%s writes the status of an unstructured object, which may be a ToolPin", shortName(c.callee))
					add(&out.untraceable, w)
				case types.IsInterface(typ):
					idx := paramIndex(c.pkg, c.caller, arg)
					if idx < 0 {
						w.why = fmt.Sprintf("%s writes the status of %s, an interface value the check cannot trace", shortName(c.callee), types.ExprString(arg))
						add(&out.untraceable, w)
						continue
					}
					name := c.caller.FullName()
					if writers[name] == nil {
						writers[name] = map[int]bool{}
					}
					if !writers[name][idx] {
						writers[name][idx] = true
						changed = true
					}
				}
			}
		}
	}
	return out
}

// subResourceWrites are the methods of controller-runtime's
// SubResourceWriter (what Status() and SubResource() return), and the
// index of the object they write.
var subResourceWrites = map[string]int{"Create": 1, "Update": 1, "Patch": 1, "Apply": 1}

// inspectFile records the calls of a file, the status writes it makes
// directly, and the ways of writing status the check cannot follow.
func inspectFile(p *packages.Package, f *ast.File, calls *[]call, out *statusWrites, writers map[string]map[int]bool) {
	info := p.TypesInfo
	called := map[*ast.SelectorExpr]bool{}
	for _, decl := range f.Decls {
		var caller *types.Func
		if fd, ok := decl.(*ast.FuncDecl); ok {
			caller, _ = info.Defs[fd.Name].(*types.Func)
		}
		inspectDecl(p, decl, caller, called, calls, out, writers)
	}
}

func inspectDecl(p *packages.Package, decl ast.Decl, caller *types.Func, called map[*ast.SelectorExpr]bool, calls *[]call, out *statusWrites, writers map[string]map[int]bool) {
	info := p.TypesInfo
	ast.Inspect(decl, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			fun := ast.Unparen(n.Fun)
			if sel, ok := fun.(*ast.SelectorExpr); ok {
				called[sel] = true
				if fn, ok := info.Uses[sel.Sel].(*types.Func); ok && isSubResourceWriter(fn) {
					name := fn.FullName()
					if writers[name] == nil {
						writers[name] = map[int]bool{subResourceWrites[fn.Name()]: true}
					}
				}
				if why := otherStatusWrite(info, sel, n); why != "" {
					out.untraceable = append(out.untraceable, write{pkg: p.PkgPath, pos: p.Fset.Position(n.Pos()), why: why})
				}
			}
			var callee *types.Func
			switch fun := fun.(type) {
			case *ast.Ident:
				callee, _ = info.Uses[fun].(*types.Func)
			case *ast.SelectorExpr:
				callee, _ = info.Uses[fun.Sel].(*types.Func)
			}
			if callee != nil {
				*calls = append(*calls, call{pkg: p, caller: caller, callee: callee.FullName(), expr: n})
			}
		case *ast.SelectorExpr:
			// Visited after its call, if any (Inspect goes parent first).
			if fn, ok := info.Uses[n.Sel].(*types.Func); ok && isSubResourceWriter(fn) && !called[n] {
				out.untraceable = append(out.untraceable, write{pkg: p.PkgPath, pos: p.Fset.Position(n.Pos()),
					why: fmt.Sprintf("%s is taken as a value; the check cannot follow what it writes", types.ExprString(n))})
			}
		}
		return true
	})
}

// isSubResourceWriter reports whether fn is a write of controller-runtime's
// SubResourceWriter.
func isSubResourceWriter(fn *types.Func) bool {
	if _, ok := subResourceWrites[fn.Name()]; !ok || fn.Pkg() == nil || fn.Pkg().Path() != crClientPath {
		return false
	}
	recv := fn.Signature().Recv()
	if recv == nil {
		return false
	}
	named, ok := recv.Type().(*types.Named)
	return ok && named.Obj().Name() == "SubResourceWriter"
}

// otherStatusWrite says how a call writes status through client-go's
// REST or dynamic clients, which name the resource by a string the check
// cannot tie to a kind; "" for any other call.
func otherStatusWrite(info *types.Info, sel *ast.SelectorExpr, c *ast.CallExpr) string {
	fn, ok := info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil {
		return ""
	}
	switch path := fn.Pkg().Path(); {
	case path == "k8s.io/client-go/dynamic" && (fn.Name() == "UpdateStatus" || fn.Name() == "ApplyStatus"):
		return "a dynamic client's " + fn.Name() + ", which may write a ToolPin's status"
	case path == "k8s.io/client-go/dynamic" && (fn.Name() == "Patch" || fn.Name() == "Update" || fn.Name() == "Apply") && c.Ellipsis == token.NoPos && len(c.Args) > 3:
		return "a dynamic client's " + fn.Name() + " of a subresource, which may be a ToolPin's status"
	case path == "k8s.io/client-go/rest" && fn.Name() == "SubResource":
		return "a REST request of a subresource, which may be a ToolPin's status"
	}
	return ""
}

// isToolPin reports whether t is a ToolPin or a pointer to one.
func isToolPin(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := t.(*types.Named)
	return ok && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == apiPath && named.Obj().Name() == "ToolPin"
}

// isUnstructured reports whether t is an unstructured object, which may
// be of any kind.
func isUnstructured(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := t.(*types.Named)
	return ok && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
}

// paramIndex is the index of the parameter of fn that arg names, or -1
// when arg is not one of fn's parameters.
func paramIndex(p *packages.Package, fn *types.Func, arg ast.Expr) int {
	id, ok := arg.(*ast.Ident)
	if !ok || fn == nil {
		return -1
	}
	v, ok := p.TypesInfo.Uses[id].(*types.Var)
	if !ok {
		return -1
	}
	params := fn.Signature().Params()
	for i := range params.Len() {
		if params.At(i) == v {
			return i
		}
	}
	return -1
}

// shortName is a function's full name without the module path.
func shortName(full string) string {
	return strings.ReplaceAll(full, modulePath+"/", "")
}
