package argrule

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
)

// maxNamesListed bounds the declared names a problem lists.
const maxNamesListed = 10

// Check is the operator's check of an expression against the input schema a
// tool's definition is pinned with (raw JSON; empty, null or not an object
// means no schema). It finds everything Compile refuses, and, given a
// schema, also:
//
//   - every argument the expression names — args.x, args["x"], has(args.x),
//     args.?x, "x" in args, and nested names such as args.a.b or an element's
//     i.name in args.a.exists(i, i.name == "x") — where the schema says which
//     names exist: an object that declares "properties" and does not admit
//     others (no "additionalProperties" other than false, no
//     "patternProperties", no "unevaluatedProperties" other than false);
//   - the expression's types, with each argument it reads typed as the
//     schema declares: "string", "integer", "boolean", "null", "array" of
//     such, "object" as map(string, dyn). A value whose schema declares no
//     type, several, or "number" (an int or a double depending on how it is
//     written) is dyn, and so is anything reached through it.
//
// It returns nil when the expression can be used as a rule for this tool.
func Check(expression string, inputSchema []byte) []Problem {
	env, err := baseEnv()
	if err != nil {
		return []Problem{{Kind: Type, Message: fmt.Sprintf("building the CEL environment: %v", err)}}
	}
	_, problems := compileAST(env, expression)
	if len(problems) > 0 && problems[0].Kind == Syntax {
		return problems
	}
	doc := readSchema(inputSchema)
	if doc == nil {
		return problems
	}
	// A fresh parse: the checker rewrites the AST it checks, and the walk
	// below rewrites this one.
	parsed, iss := env.Parse(expression)
	if iss.Err() != nil {
		return problems
	}
	w := &walker{
		doc:      doc,
		source:   parsed.NativeRep().SourceInfo(),
		root:     &argRef{path: argsVar, shape: doc.shapeOf(doc.root)},
		extended: map[int64]bool{},
		reported: map[string]bool{},
	}
	w.walk(parsed.NativeRep().Expr(), nil)
	problems = append(problems, w.problems...)
	if slices.ContainsFunc(problems, func(p Problem) bool { return p.Kind == Type }) {
		// Checking with the schema's types would report the same again.
		return problems
	}
	return append(problems, w.typeCheck(env, parsed)...)
}

// argRef is a value of the arguments an expression reaches: the path it
// reaches it by, and what the schema says of it.
type argRef struct {
	path  string
	shape shape
}

// scope binds the variables comprehensions and cel.bind introduce; a
// variable bound to nil is no argument (and hides any outer one, args
// included).
type scope struct {
	name   string
	ref    *argRef
	parent *scope
}

func (s *scope) lookup(name string) (*argRef, bool) {
	for ; s != nil; s = s.parent {
		if s.name == name {
			return s.ref, true
		}
	}
	return nil, false
}

// walker finds the arguments an expression names, reports those the schema
// does not declare, and notes every expression that reads an argument, for
// typeCheck.
type walker struct {
	doc      *schemaDoc
	source   *ast.SourceInfo
	root     *argRef
	problems []Problem
	reported map[string]bool
	// reads are the expressions that evaluate to an argument's value.
	reads []read
	// extended holds the IDs of reads that are the operand of a longer one
	// (args.a in args.a.b).
	extended map[int64]bool
}

type read struct {
	expr ast.Expr
	ref  *argRef
}

// walk visits e and returns the argument it evaluates to, or nil.
func (w *walker) walk(e ast.Expr, sc *scope) *argRef {
	switch e.Kind() {
	case ast.IdentKind:
		name := e.AsIdent()
		if ref, bound := sc.lookup(name); bound {
			return w.reading(e, ref)
		}
		if name == argsVar {
			return w.reading(e, w.root)
		}
	case ast.SelectKind:
		sel := e.AsSelect()
		operand := w.walk(sel.Operand(), sc)
		if operand == nil {
			return nil
		}
		member, ok := w.member(e, operand, sel.FieldName())
		if !ok || sel.IsTestOnly() {
			return nil // a presence test is a bool, not the argument
		}
		w.extended[sel.Operand().ID()] = true
		return w.reading(e, member)
	case ast.CallKind:
		return w.walkCall(e, sc)
	case ast.ComprehensionKind:
		w.walkComprehension(e, sc)
	case ast.ListKind:
		for _, el := range e.AsList().Elements() {
			w.walk(el, sc)
		}
	case ast.MapKind:
		for _, entry := range e.AsMap().Entries() {
			w.walk(entry.AsMapEntry().Key(), sc)
			w.walk(entry.AsMapEntry().Value(), sc)
		}
	case ast.StructKind:
		for _, field := range e.AsStruct().Fields() {
			w.walk(field.AsStructField().Value(), sc)
		}
	}
	return nil
}

func (w *walker) walkCall(e ast.Expr, sc *scope) *argRef {
	call := e.AsCall()
	if call.IsMemberFunction() {
		w.walk(call.Target(), sc)
	}
	refs := make([]*argRef, len(call.Args()))
	for i, a := range call.Args() {
		refs[i] = w.walk(a, sc)
	}
	switch call.FunctionName() {
	case operators.Index:
		if refs[0] == nil {
			return nil
		}
		member, ok := w.index(e, refs[0], call.Args()[1])
		if !ok {
			return nil
		}
		w.extended[call.Args()[0].ID()] = true
		return w.reading(e, member)
	case operators.OptIndex, operators.OptSelect:
		// The name is checked; the value is an optional, not the argument.
		if refs[0] != nil {
			w.index(e, refs[0], call.Args()[1])
		}
	case operators.In:
		if name, ok := stringLiteral(call.Args()[0]); ok && refs[1] != nil && !refs[1].shape.isList() {
			w.member(e, refs[1], name)
		}
	}
	return nil
}

func (w *walker) walkComprehension(e ast.Expr, sc *scope) {
	comp := e.AsComprehension()
	iterated := w.walk(comp.IterRange(), sc)
	init := w.walk(comp.AccuInit(), sc)
	// cel.bind(x, init, body) is a comprehension over nothing whose
	// accumulator is x: x is init throughout. Any other accumulator is the
	// macro's own.
	var accu *argRef
	if isBind(comp) {
		accu = init
	}
	accuScope := &scope{name: comp.AccuVar(), ref: accu, parent: sc}
	// Iterating over a list binds its elements (the second variable's, with
	// two); over a map, its keys, which are no arguments.
	var element *argRef
	if iterated != nil && iterated.shape.isList() {
		element = &argRef{path: iterated.path + "[*]", shape: vague}
		if iterated.shape.items != nil {
			element.shape = w.doc.shapeOf(iterated.shape.items)
		}
	}
	loopScope := &scope{name: comp.IterVar(), ref: element, parent: accuScope}
	if comp.HasIterVar2() {
		loopScope = &scope{name: comp.IterVar(), parent: accuScope}
		loopScope = &scope{name: comp.IterVar2(), ref: element, parent: loopScope}
	}
	w.walk(comp.LoopCondition(), loopScope)
	w.walk(comp.LoopStep(), loopScope)
	w.walk(comp.Result(), accuScope)
}

func isBind(comp ast.ComprehensionExpr) bool {
	r, c := comp.IterRange(), comp.LoopCondition()
	return r.Kind() == ast.ListKind && r.AsList().Size() == 0 &&
		c.Kind() == ast.LiteralKind && c.AsLiteral() == types.False
}

// reading records that e evaluates to ref, if it is an argument.
func (w *walker) reading(e ast.Expr, ref *argRef) *argRef {
	if ref != nil {
		w.reads = append(w.reads, read{expr: e, ref: ref})
	}
	return ref
}

// member resolves the member name of the argument parent; false, with a
// problem, when the schema says there is no such member.
func (w *walker) member(e ast.Expr, parent *argRef, name string) (*argRef, bool) {
	path := memberPath(parent.path, name)
	s := parent.shape
	if sub, ok := s.props[name]; ok {
		return &argRef{path: path, shape: w.doc.shapeOf(sub)}, true
	}
	if s.extra != nil {
		return &argRef{path: path, shape: w.doc.shapeOf(s.extra)}, true
	}
	if !s.closed {
		return &argRef{path: path, shape: vague}, true
	}
	if !w.reported[path] {
		w.reported[path] = true
		loc := w.source.GetStartLocation(e.ID())
		p := newProblem(UnknownArgument, loc.Line(), loc.Column()+1,
			fmt.Sprintf("%s is not an argument of the tool: %s", path, declared(parent.path, s.props)))
		if loc.Line() <= 0 {
			p = newProblem(UnknownArgument, 0, 0, p.Message)
		}
		p.Argument = path
		w.problems = append(w.problems, p)
	}
	return nil, false
}

// index resolves parent[key]: a member for a string literal, an element of
// a list otherwise.
func (w *walker) index(e ast.Expr, parent *argRef, key ast.Expr) (*argRef, bool) {
	if name, ok := stringLiteral(key); ok {
		return w.member(e, parent, name)
	}
	step := "[*]"
	if key.Kind() == ast.LiteralKind {
		if i, ok := key.AsLiteral().(types.Int); ok {
			step = "[" + strconv.FormatInt(int64(i), 10) + "]"
		}
	}
	element := &argRef{path: parent.path + step, shape: vague}
	if parent.shape.items != nil {
		element.shape = w.doc.shapeOf(parent.shape.items)
	}
	return element, true
}

func stringLiteral(e ast.Expr) (string, bool) {
	if e.Kind() != ast.LiteralKind {
		return "", false
	}
	s, ok := e.AsLiteral().(types.String)
	return string(s), ok
}

// memberPath writes a member's path as an expression would select it.
func memberPath(parent, name string) string {
	if isSelectable(name) {
		return parent + "." + name
	}
	return parent + "[" + strconv.Quote(name) + "]"
}

// isSelectable reports whether args.name parses: an identifier that is not
// one of CEL's words that cannot follow a dot.
func isSelectable(name string) bool {
	if name == "" || name == "in" || name == "true" || name == "false" || name == "null" {
		return false
	}
	for i, r := range name {
		if r != '_' && !('a' <= r && r <= 'z') && !('A' <= r && r <= 'Z') && (i == 0 || !('0' <= r && r <= '9')) {
			return false
		}
	}
	return true
}

// declared says which members the schema declares under parent, for a
// problem's message.
func declared(parent string, props map[string]any) string {
	if len(props) == 0 {
		return "the schema declares none under " + parent
	}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	more := ""
	if len(names) > maxNamesListed {
		more = fmt.Sprintf(" and %d more", len(names)-maxNamesListed)
		names = names[:maxNamesListed]
	}
	return fmt.Sprintf("the schema declares %s under %s", strings.Join(names, ", ")+more, parent)
}

// typeCheck checks the expression again with every argument it reads typed
// as the schema says. CEL cannot type args itself that way: args is a map,
// whose values share one type. So each outermost expression that reads an
// argument of a known type is replaced, in the parsed AST, by a variable
// of that type, declared for this check only. The variable keeps the
// expression's ID, so positions in the checker's messages are the
// expression's; its name cannot be written in CEL, so it hides nothing.
func (w *walker) typeCheck(env *cel.Env, parsed *cel.Ast) []Problem {
	factory := ast.NewExprFactory()
	var vars []cel.EnvOption
	for _, r := range w.reads {
		if w.extended[r.expr.ID()] || r.ref.shape.typ.Kind() == types.DynKind {
			continue
		}
		name := "@arg" + strconv.Itoa(len(vars))
		vars = append(vars, cel.Variable(name, r.ref.shape.typ))
		r.expr.SetKindCase(factory.NewIdent(r.expr.ID(), name))
	}
	if len(vars) == 0 {
		return nil
	}
	typed, err := env.Extend(vars...)
	if err != nil {
		return []Problem{{Kind: Type, Message: fmt.Sprintf("declaring the arguments' types: %v", err)}}
	}
	checked, iss := typed.Check(parsed)
	if iss.Err() != nil {
		return issueProblems(Type, iss)
	}
	if p, ok := outputProblem(checked.OutputType()); !ok {
		return []Problem{p}
	}
	return nil
}
