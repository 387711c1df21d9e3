package vet

import "testing"

// allocationBudget is what a pass of the whole pipeline may allocate per
// tool, by the name of BenchmarkVetCorpus's pass. The budgets sit about a
// tenth above the figures docs/performance.md gives (44.1 and 45.0); lower
// them with the figures when a change allocates less.
var allocationBudget = map[string]float64{
	"each-server-alone":    48,
	"all-servers-together": 49,
}

// TestPipelineAllocationsPerTool holds what a pass of the whole pipeline —
// decode, canonical form and fingerprints, the scan, inference and scoring
// — allocates per tool of the development corpus under a budget, in each
// of BenchmarkVetCorpus's passes. The collector's work grows with the
// allocations, and their count, unlike the time of a pass, does not move
// with the machine's load (only with the Go toolchain, which the budgets'
// headroom allows for): a change that allocates more per tool fails here,
// where a timed benchmark would lose it in noise.
func TestPipelineAllocationsPerTool(t *testing.T) {
	if raceEnabled {
		// The race detector drops a quarter of what goes back into a
		// sync.Pool, and the scan pools its scratch space.
		t.Skip("allocation counts are not the product's under the race detector")
	}
	tools, passes := corpusPasses(t)
	for _, p := range passes {
		budget, ok := allocationBudget[p.name]
		if !ok {
			t.Fatalf("no allocation budget for the pass %q", p.name)
		}
		perTool := testing.AllocsPerRun(3, func() { p.run(t) }) / float64(tools)
		t.Logf("%s: %.1f allocations a tool (budget %.0f)", p.name, perTool, budget)
		if perTool > budget {
			t.Errorf("%s: the pipeline allocates %.1f times a tool, over its budget of %.0f: find what allocates more (go test -run '^$' -bench BenchmarkVetCorpus -benchmem -memprofile mem.out), or raise the budget with the figures in docs/performance.md if the allocations buy something",
				p.name, perTool, budget)
		}
	}
}
