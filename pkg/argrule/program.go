package argrule

import (
	"fmt"
	"maps"
	"slices"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/interpreter"
)

// Program is a compiled rule expression. It is safe for concurrent use.
type Program struct {
	prg cel.Program
	// reads are the names of the arguments the expression reads at the
	// top level of args, sorted.
	reads []string
}

// Reads returns the names of the top-level arguments the expression reads
// by name — args.x, args["x"], has(args.x), args.?x, "x" in args — sorted.
// An expression that reads args whole (iterates it, passes it on) may
// read others; Reads names only those it spells.
func (p *Program) Reads() []string { return p.reads }

// topLevelReads walks a checked expression for the arguments it reads by
// name at the top of args.
func topLevelReads(e ast.Expr) []string {
	seen := map[string]bool{}
	isArgs := func(x ast.Expr) bool { return x.Kind() == ast.IdentKind && x.AsIdent() == argsVar }
	literal := func(x ast.Expr) (string, bool) {
		if x.Kind() != ast.LiteralKind {
			return "", false
		}
		s, ok := x.AsLiteral().Value().(string)
		return s, ok
	}
	ast.PostOrderVisit(e, ast.NewExprVisitor(func(x ast.Expr) {
		switch x.Kind() {
		case ast.SelectKind:
			if sel := x.AsSelect(); isArgs(sel.Operand()) {
				seen[sel.FieldName()] = true
			}
		case ast.CallKind:
			c := x.AsCall()
			a := c.Args()
			switch {
			case (c.FunctionName() == operators.Index || c.FunctionName() == operators.OptIndex || c.FunctionName() == operators.OptSelect) && len(a) == 2 && isArgs(a[0]):
				if n, ok := literal(a[1]); ok {
					seen[n] = true
				}
			case c.FunctionName() == operators.In && len(a) == 2 && isArgs(a[1]):
				if n, ok := literal(a[0]); ok {
					seen[n] = true
				}
			}
		}
	}))
	return slices.Sorted(maps.Keys(seen))
}

// Call is what rules see of one tools/call. Build it once per call and
// evaluate every rule against the same Call: the arguments are decoded once
// and nothing is prepared per rule.
type Call struct {
	// Arguments are the call's arguments (args), from DecodeArguments.
	Arguments Arguments
	// Tool is the tool called (tool).
	Tool Tool
	// Agent is the pod calling (agent).
	Agent Agent
}

// Compile checks an expression as the gate must before evaluating it: that
// it parses, that it type-checks with args dynamic and yields a bool, and
// that its estimated worst-case cost on arguments of up to MaxArgumentBytes
// is within CostBudget. The error is a Problem.
//
// Compiling takes about 0.3 ms, most of it in CEL's parser: a gate that
// receives the same rules with every configuration keeps them in a Cache.
func Compile(expression string) (*Program, error) {
	env, err := baseEnv()
	if err != nil {
		return nil, fmt.Errorf("building the CEL environment: %w", err)
	}
	checked, problems := compileAST(env, expression)
	if len(problems) > 0 {
		return nil, problems[0]
	}
	prg, err := env.Program(checked,
		// Folds constants and compiles literal patterns once, here.
		cel.EvalOptions(cel.OptOptimize),
		cel.CustomDecoratorV2(countIterations(loopSteps(checked))),
	)
	if err != nil {
		return nil, Problem{Kind: Type, Message: err.Error()}
	}
	return &Program{prg: prg, reads: topLevelReads(checked.NativeRep().Expr())}, nil
}

// compileAST parses and checks an expression in env, and estimates its
// cost: everything Compile refuses an expression for.
func compileAST(env *cel.Env, expression string) (*cel.Ast, []Problem) {
	parsed, iss := env.Parse(expression)
	if iss.Err() != nil {
		return nil, issueProblems(Syntax, iss)
	}
	checked, iss := env.Check(parsed)
	if iss.Err() != nil {
		return nil, issueProblems(Type, iss)
	}
	if p, ok := outputProblem(checked.OutputType()); !ok {
		return nil, []Problem{p}
	}
	cost, err := estimateCost(env, checked)
	if err != nil {
		return nil, []Problem{{Kind: Cost, Message: fmt.Sprintf("the cost cannot be estimated: %v", err)}}
	}
	if cost > CostBudget {
		return nil, []Problem{costProblem(cost)}
	}
	return checked, nil
}

// outputProblem accepts an expression that yields a bool, or a dyn (a
// value read from the arguments), which is checked when evaluated.
func outputProblem(t *cel.Type) (Problem, bool) {
	if t.IsExactType(cel.BoolType) || t.Kind() == types.DynKind {
		return Problem{}, true
	}
	return Problem{Kind: Type, Message: fmt.Sprintf("the expression yields %s, not bool", t)}, false
}

func costProblem(cost uint64) Problem {
	estimate := fmt.Sprintf("%d", cost)
	if cost == ^uint64(0) {
		estimate = "unbounded"
	}
	return Problem{Kind: Cost, Message: fmt.Sprintf(
		"the estimated worst-case cost on arguments of up to %d bytes is %s, over the budget of %d: "+
			"iterating over the arguments inside another iteration over them is the usual cause",
		MaxArgumentBytes, estimate, CostBudget)}
}

// Eval evaluates the rule against a call. An error — an argument the
// expression reads is absent, a value has a type the expression cannot
// handle, the evaluation took more than MaxIterations steps, or the result
// is not a bool — must be taken as the rule applying: rules only tighten,
// so a rule that cannot be evaluated fails closed.
//
// Eval may be called concurrently, with the same Call or others; c must not
// be nil.
func (p *Program) Eval(c *Call) (bool, error) {
	out, _, err := p.prg.Eval(&evaluation{call: c})
	if err != nil {
		return false, fmt.Errorf("evaluating the rule: %w", err)
	}
	b, ok := out.(types.Bool)
	if !ok {
		return false, fmt.Errorf("the rule yielded %s, not a bool", out.Type().TypeName())
	}
	return bool(b), nil
}

// evaluation is the state of one evaluation: the call's variables, and the
// steps taken so far.
type evaluation struct {
	call  *Call
	steps int
}

// ResolveName implements interpreter.Activation.
func (e *evaluation) ResolveName(name string) (any, bool) {
	switch name {
	case argsVar:
		return e.call.Arguments.value(), true
	case toolVar:
		return &e.call.Tool, true
	case agentVar:
		return &e.call.Agent, true
	}
	return nil, false
}

// Parent implements interpreter.Activation.
func (*evaluation) Parent() interpreter.Activation { return nil }
