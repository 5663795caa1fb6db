package solver

import (
	"slices"
	"testing"

	"github.com/rlsolve/rlsolve/rules"
)

// narrow finds the facts a violation needs in checks that grow with the
// facts needed times the log of the scope, not with the scope: a rank
// listed 40,000 times took 20 s when every fact cost a check of the
// whole scope.
func TestNarrowChecksFewTimes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		n     int
		needs []int // the violation holds while all of these are present
	}{
		{"two of 40,000", 40000, []int{17, 39001}},
		{"one of 9", 9, []int{4}},
		{"every fact of 12", 12, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
		{"three of 1,000", 1000, []int{0, 500, 999}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reads := make([]int, tc.n)
			for i := range reads {
				reads[i] = i
			}
			inst := &rules.Instance{Reads: reads, Check: func(has rules.Present) *rules.Violation {
				for _, f := range tc.needs {
					if !has(f) {
						return nil
					}
				}
				return &rules.Violation{Code: "X"}
			}}
			p := &problem{}
			got := p.narrow(inst)
			if !slices.Equal(got, tc.needs) {
				t.Errorf("kept %v, want %v", got, tc.needs)
			}
			// Halving chunks: at most two checks per chunk a needed fact
			// lies in at each size, plus one pass of the largest size.
			bound := 4
			for s := tc.n; s > 0; s /= 2 {
				bound += 2 * len(tc.needs)
			}
			if p.evals > bound {
				t.Errorf("%d checks for %d facts, want at most %d", p.evals, tc.n, bound)
			}
		})
	}
}
