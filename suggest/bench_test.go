package suggest

import (
	"fmt"
	"testing"
)

// benchSpecs are a typical reasoning config (RLinf's unit-test profile:
// actor TP 2, power-of-two batches) and the worst case for the search:
// no data-parallel size divides the batch, so every GPU count is valid
// for every stage and all ~N^2/2 splits are priced.
func benchSpecs() map[string]*Reasoning {
	typical := DefaultReasoning()
	typical.ActorCost, typical.RolloutCost, typical.InferenceCost = 101, 224, 10
	typical.ActorTP, typical.InferenceTP = 2, 2
	worst := DefaultReasoning()
	worst.RolloutBatch, worst.GroupSize, worst.Minibatches = 8, 16, 16
	worst.ActorCost, worst.RolloutCost, worst.InferenceCost = 100, 100, 20
	return map[string]*Reasoning{"typical": typical, "worst": worst}
}

// BenchmarkSuggest is the whole suggestion: the exact search plus the
// real check of the suggestions (top 3).
func BenchmarkSuggest(b *testing.B) {
	for _, name := range []string{"typical", "worst"} {
		for _, n := range []int{128, 1024} {
			b.Run(fmt.Sprintf("%s/gpus=%d", name, n), func(b *testing.B) {
				spec := &Spec{Task: TaskReasoning, Reasoning: benchSpecs()[name], ProfileSource: SourceConfig}
				for i := 0; i < b.N; i++ {
					cl, err := UniformCluster(n, 8)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := Suggest(spec, cl, Options{Top: 3}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkSearch is the enumeration alone (tables, filter, top 3).
func BenchmarkSearch(b *testing.B) {
	for _, name := range []string{"typical", "worst"} {
		for _, n := range []int{128, 1024} {
			b.Run(fmt.Sprintf("%s/gpus=%d", name, n), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					cl, _ := UniformCluster(n, 8)
					m, err := newRModel(benchSpecs()[name], cl)
					if err != nil {
						b.Fatal(err)
					}
					m.search(&topK{k: 3})
				}
			})
		}
	}
}
