package argrule

import (
	"fmt"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
)

// MaxIterations is how many steps the comprehensions of one evaluation (all,
// exists, map, filter, ...) may take together: an evaluation that would
// take more stops with an error, and the rule applies. It admits a pass over
// a list of a hundred thousand elements, which takes tens of milliseconds;
// a call carrying longer lists is, for a rule that iterates over them, a
// call the rule cannot vouch for.
//
// This is the runtime bound, in place of cel-go's cost tracking
// (cel.CostLimit). In cel-go v0.29.2 the cost tracker keeps a stack that
// grows by two entries with every step of a comprehension and is searched
// from the top at nearly every step, so tracking makes a comprehension
// quadratic in its length: a pass over 20,000 elements takes 1.5 s, and
// one over 300,000 (600 KB of arguments) some 80 s before a limit of
// 1,000,000 units stops it. The limit would itself be the way to stall the
// gate. Counting steps costs nothing measurable, and what each step may do
// is bounded by the static estimate (CostBudget).
const MaxIterations = 100_000

// loopSteps returns the IDs of the step expressions of the comprehensions
// that iterate (cel.bind is a comprehension over nothing).
func loopSteps(checked *cel.Ast) map[int64]bool {
	steps := map[int64]bool{}
	ast.PostOrderVisit(checked.NativeRep().Expr(), ast.NewExprVisitor(func(e ast.Expr) {
		if e.Kind() == ast.ComprehensionKind && !isBind(e.AsComprehension()) {
			steps[e.AsComprehension().LoopStep().ID()] = true
		}
	}))
	return steps
}

// countIterations wraps the step of every comprehension so that each
// execution counts against MaxIterations.
func countIterations(steps map[int64]bool) interpreter.InterpretableDecoratorV2 {
	return func(i interpreter.InterpretableV2) (interpreter.InterpretableV2, error) {
		if steps[i.ID()] {
			return countedStep{i}, nil
		}
		return i, nil
	}
}

type countedStep struct {
	interpreter.InterpretableV2
}

// Exec implements interpreter.InterpretableV2.
func (s countedStep) Exec(frame *interpreter.ExecutionFrame) ref.Val {
	count(frame.Unwrap())
	return s.InterpretableV2.Exec(frame)
}

// Eval implements interpreter.Interpretable.
func (s countedStep) Eval(vars interpreter.Activation) ref.Val {
	count(vars)
	return s.InterpretableV2.Eval(vars)
}

// count finds the evaluation a comprehension's activation descends from and
// counts one step, stopping the evaluation past MaxIterations. cel-go
// recovers the panic and returns it from Program.Eval as an error; it is
// how its own cost limit stops an evaluation.
func count(vars interpreter.Activation) {
	for a := vars; a != nil; a = a.Parent() {
		if f, ok := a.(*interpreter.ExecutionFrame); ok {
			a = f.Unwrap()
		}
		if e, ok := a.(*evaluation); ok {
			e.steps++
			if e.steps > MaxIterations {
				panic(interpreter.EvalCancelledError{
					Cause:   interpreter.CostLimitExceeded,
					Message: fmt.Sprintf("the evaluation took more than %d comprehension steps", MaxIterations),
				})
			}
			return
		}
	}
}
