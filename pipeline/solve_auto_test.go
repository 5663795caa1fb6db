package pipeline_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
)

// TestSolveAutoExhaustive: in AUTO mode the layout is forced (semantics
// §5.2 step 4): the actor on GPUs 0..A-1, the rollout right after, the
// inference right after that up to the last GPU. For every count of each
// (and inference absent) on clusters of 4 and 8 GPUs, solve places
// exactly when the counts fill the cluster, and then exactly that layout,
// which check accepts.
func TestSolveAutoExhaustive(t *testing.T) {
	placed, refused := 0, 0
	for _, nodes := range [][]int{{4}, {4, 4}, {8}} {
		n := 0
		for _, c := range nodes {
			n += c
		}
		for a := 1; a <= n; a++ {
			for r := 1; r <= n; r++ {
				for i := 0; i <= n; i++ { // 0: no inference
					yaml := autoSpec(len(nodes), a, r, i)
					s := pipeline.Solve("t.yaml", []byte(yaml), pipeline.SolveOptions{Options: pipeline.Options{Inventory: solveInv(nodes...)}})
					fits := a+r+i == n
					switch {
					case s.Internal:
						t.Fatalf("internal error: %v\n%s", summaries(s.Diagnostics), yaml)
					case fits && s.Text == nil:
						t.Fatalf("the counts fill the %d GPUs, but nothing was placed: %v\n%s", n, summaries(s.Diagnostics), yaml)
					case !fits && s.Text != nil:
						t.Fatalf("the counts do not fill the %d GPUs, but solve placed\n%s", n, s.Text)
					case !fits:
						refused++
						continue
					}
					placed++
					if s.Verified.Failed() {
						t.Fatalf("check refuses the solved file: %v\n%s", summaries(s.Verified.Diagnostics), s.Text)
					}
					want := map[string]string{"actor": ranks(0, a), "rollout": ranks(a, r), "reward": ranks(a, r)}
					if i > 0 {
						want["inference"] = ranks(a+r, i)
					}
					if got := s.Document().Components; !maps.Equal(got, want) {
						t.Fatalf("placements %v, want %v\n%s", got, want, yaml)
					}
				}
			}
		}
	}
	t.Logf("%d placed, %d refused", placed, refused)
}

// autoSpec is an AUTO-mode run asking for a actor, r rollout and i
// inference GPUs (i 0: no inference), the reward beside the rollout.
func autoSpec(nodes, a, r, i int) string {
	s := fmt.Sprintf("cluster:\n  num_nodes: %d\n  auto_scheduler: true\n  component_placement:\n    actor: {gpus: %d}\n    rollout: {gpus: %d}\n    reward: {with: rollout}\n", nodes, a, r)
	if i > 0 {
		s += fmt.Sprintf("    inference: {gpus: %d}\n", i)
	}
	return s + "runner: {task_type: reasoning}\nrollout: {tensor_parallel_size: 1}\n"
}

// ranks is the placement string of n GPUs from first.
func ranks(first, n int) string {
	if n == 1 {
		return fmt.Sprint(first)
	}
	return fmt.Sprintf("%d-%d", first, first+n-1)
}

// TestSolveCountWording: a count of one reads in the singular.
func TestSolveCountWording(t *testing.T) {
	s := pipeline.Solve("t.yaml", []byte(autoSpec(1, 1, 1, 0)), pipeline.SolveOptions{Options: pipeline.Options{Inventory: solveInv(4)}})
	i := slices.IndexFunc(s.Diagnostics, func(d model.Diagnostic) bool { return d.Code == model.CodeUnplaceable })
	if i < 0 || !strings.Contains(s.Diagnostics[i].Summary, "actor needs 1 GPU + rollout needs 1 GPU") {
		t.Errorf("%v", summaries(s.Diagnostics))
	}
}

// TestCheckAutoOverlap: check judges an AUTO layout whose actor and
// rollout overlap (with use_pre_process_policy the rollout's list then
// repeats GPUs) by the order rule, without reading past the cluster.
func TestCheckAutoOverlap(t *testing.T) {
	yaml := "cluster:\n  num_nodes: 1\n  auto_scheduler: true\n  use_pre_process_policy: true\n  component_placement:\n    actor: 0-3\n    rollout: 0-3\n    reward: 3\n    inference: 2-3\nrunner: {task_type: reasoning}\nrollout: {tensor_parallel_size: 4}\n"
	o := pipeline.CheckBytes("t.yaml", []byte(yaml), pipeline.Options{GPUsPerNode: 4})
	if o.Internal || !slices.ContainsFunc(o.Diagnostics, func(d model.Diagnostic) bool { return d.Code == model.CodeMPAutoOrder }) {
		t.Errorf("internal %v, diagnostics %v", o.Internal, summaries(o.Diagnostics))
	}
}
