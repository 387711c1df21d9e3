package argrule

import (
	"slices"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
)

// CostBudget is the largest worst-case cost, in CEL's cost units, that one
// evaluation of an expression may be estimated to reach: Kubernetes' limit
// on the estimated cost of one CRD validation rule. The estimate assumes
// arguments of up to MaxArgumentBytes and comprehensions of up to
// MaxIterations steps, the two bounds the gate enforces, so it bounds what
// an evaluation can cost. It admits passes over the arguments with a
// hundred units of work for each element (a dozen conditions), and refuses
// iteration over the arguments nested in another, whose cost grows with the
// square of their size.
const CostBudget = 10_000_000

// Iterating over a value descends into its elements; the cost estimator's
// paths name that step so.
var elementSteps = []string{"@items", "@values", "@keys", "@indices"}

// sizeModel is one way the arguments can spend their MaxArgumentBytes.
type sizeModel int

const (
	// manyElements: every list or map iterated over holds as many entries as
	// an evaluation may visit, and each entry is as small as can be.
	manyElements sizeModel = iota
	// oneLargeElement: every list or map iterated over at the top level has
	// a single entry, as large as the arguments.
	oneLargeElement
)

// sizeEstimator bounds the size of the values an expression reads: a string
// by MaxArgumentBytes characters, a list or map by half as many entries
// (each takes a byte and a separator), and one iterated over by
// MaxIterations entries. CEL's estimator multiplies independent worst
// cases, so bounding a list's length and its elements' sizes each by the
// whole arguments would charge a single pass over a list of strings as if
// every element were 1 MiB long, though together they are: a rule such as
// args.paths.exists(p, p.contains("..")) would look quadratic. The estimate
// is therefore taken under two models of where the bytes go, and the two
// are added: a single pass costs at most its per-element overhead under
// the first plus its per-byte work under the second, while nested
// iteration over the arguments stays quadratic under the first.
type sizeEstimator struct {
	model sizeModel
	// ranges holds the IDs of the expressions iterated over.
	ranges map[int64]bool
}

// EstimateSize implements checker.CostEstimator.
func (e sizeEstimator) EstimateSize(n checker.AstNode) *checker.SizeEstimate {
	switch n.Type().Kind() {
	case types.BoolKind, types.DoubleKind, types.DurationKind, types.IntKind, types.NullTypeKind,
		types.TimestampKind, types.UintKind:
		return nil // a scalar's size is CEL's to say
	}
	path := n.Path()
	inElement := len(path) > 1 && slices.ContainsFunc(path[1:], func(step string) bool {
		return slices.Contains(elementSteps, step)
	})
	iterated := e.ranges[n.Expr().ID()]
	var largest uint64
	switch {
	case e.model == manyElements && inElement:
		largest = 1
	case e.model == oneLargeElement && iterated && !inElement:
		largest = 1
	case iterated:
		largest = min(MaxArgumentBytes/2, MaxIterations)
	case n.Type().Kind() == types.ListKind || n.Type().Kind() == types.MapKind:
		largest = MaxArgumentBytes / 2
	default: // a string, bytes, or dyn, which may be a string
		largest = MaxArgumentBytes
	}
	return &checker.SizeEstimate{Min: 0, Max: largest}
}

// EstimateCallCost implements checker.CostEstimator: CEL's own estimates
// of its functions stand.
func (sizeEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	return nil
}

// estimateCost is the worst-case cost of a checked expression, saturating
// at the largest uint64.
func estimateCost(env *cel.Env, checked *cel.Ast) (uint64, error) {
	ranges := map[int64]bool{}
	ast.PostOrderVisit(checked.NativeRep().Expr(), ast.NewExprVisitor(func(e ast.Expr) {
		if e.Kind() == ast.ComprehensionKind {
			ranges[e.AsComprehension().IterRange().ID()] = true
		}
	}))
	var total uint64
	for _, model := range []sizeModel{manyElements, oneLargeElement} {
		c, err := env.EstimateCost(checked, sizeEstimator{model: model, ranges: ranges})
		if err != nil {
			return 0, err
		}
		total = addSaturating(total, c.Max)
	}
	return total, nil
}

func addSaturating(a, b uint64) uint64 {
	if a+b < a {
		return ^uint64(0)
	}
	return a + b
}
