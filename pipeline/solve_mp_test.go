package pipeline_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
)

// TestSolveMPAssertions solves each testdata/solve_mp/NAME.yaml on 8-GPU
// nodes. What RLinf asserts of the components a model-parallel config
// names, whatever their devices (those present, no inference beside a
// collocated rollout, none with recompute_logprobs false), is refused
// before placing by the rule check judges it with, whether the components
// are required, placed, or both. The file's first line says what solve
// must say first, where and in what words (`# want: CODE at LINE:COL:
// SUMMARY PART`), or `# want: placed` for a shape that holds.
func TestSolveMPAssertions(t *testing.T) { solveWants(t, "solve_mp", true) }

// TestSolveRefusesShapes solves each testdata/solve_refused/NAME.yaml as
// TestSolveMPAssertions does: what no placement of AUTO mode or of a
// multi-agent run can make valid is refused before the solver places
// anything (not placed and then refused by the verifying check), and the
// shapes that hold are placed.
func TestSolveRefusesShapes(t *testing.T) { solveWants(t, "solve_refused", false) }

// solveWants runs the `# want:` files of testdata/DIR; byRules says the
// refusals come from the rules, before the placing space is built.
func solveWants(t *testing.T, dir string, byRules bool) {
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".yaml"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(data), "\n")
			want, ok := strings.CutPrefix(first, "# want: ")
			if !ok {
				t.Fatalf("the first line is not `# want: ...`: %q", first)
			}
			s := solveOn8("c.yaml", data)
			if want == "placed" {
				if s.Text == nil {
					t.Fatalf("not placed: %v", s.Diagnostics)
				}
				return
			}
			if s.Text != nil || s.Internal || byRules && s.Placement != nil {
				t.Fatalf("placed or internal: %v\n%s", s.Diagnostics, s.Text)
			}
			if len(s.Diagnostics) == 0 {
				t.Fatal("no diagnostic")
			}
			d := s.Diagnostics[0]
			got := fmt.Sprintf("%s at %d:%d: ", d.Code, d.Primary.Line, d.Primary.Col)
			code, says, _ := strings.Cut(want, ": ")
			if !strings.HasPrefix(got, code+": ") || !strings.Contains(d.Summary, says) {
				t.Fatalf("want %s first, got %s%s (%v)", want, got, d.Summary, s.Diagnostics)
			}
		})
	}
}

// The cost model is asked for the mode check will judge: a rollout `with`
// a reward placed on the actor's GPUs is collocated with the actor.
func TestSolveCostModelAskedCollocated(t *testing.T) {
	for _, tc := range []struct {
		name, reward string
		want         bool
	}{
		{"reward on the actor's GPUs", "0-7", true},
		{"reward elsewhere", "8-15", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			yaml := "cluster:\n  num_nodes: 2\n  component_placement:\n    actor: 0-7\n    reward: " + tc.reward +
				"\n    rollout: {with: reward}\n    critic: {gpus: auto}\nrunner:\n  task_type: reasoning\n"
			var asked []bool
			cm := func(_ string, _ []byte, _ *model.Inventory, collocated bool) (map[string]int, float64, *model.Diagnostic) {
				asked = append(asked, collocated)
				return map[string]int{"critic": 4}, 1, nil
			}
			pipeline.Solve("t.yaml", []byte(yaml), pipeline.SolveOptions{Options: pipeline.Options{Inventory: solveInv(8, 8)}, CostModel: cm})
			if len(asked) != 1 || asked[0] != tc.want {
				t.Errorf("the cost model was asked collocated=%v, want [%v]", asked, tc.want)
			}
		})
	}
}
