package suggest

import (
	"errors"
	"fmt"
	"math/rand"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// load reads a config from text, failing the test on errors.
func load(t *testing.T, text string) *Spec {
	t.Helper()
	s, ds := Load("train.yaml", []byte(text))
	if s == nil {
		t.Fatalf("load: %v", ds)
	}
	return s
}

const refusalBase = `cluster:
  num_nodes: 3
  component_placement:
%s
runner:
  task_type: reasoning
algorithm:
  group_size: 16
  n_minibatches: 4
  recompute_logprobs: %s
data:
  rollout_batch_size: 128
rollout:
  tensor_parallel_size: %d
actor:
  model:
    tensor_model_parallel_size: %d
`

// TestRefusals: each mode without a suggestion is explained by the judge
// that refused its best-priced layout, located in the user's file.
func TestRefusals(t *testing.T) {
	colloc := "    actor,rollout,reward: all"
	for _, c := range []struct {
		name          string
		placement     string
		recompute     string
		rtp, atp      int
		gpus, perNode int
		want          map[string]string // mode -> code
		line          map[string]int    // mode -> line in train.yaml
		unchanged     bool
	}{
		{"collocated refused by check (E0505 at rollout TP)", colloc, "false", 2, 3, 24, 8,
			map[string]string{ModeCollocated: "RLS-E0505"}, map[string]int{ModeCollocated: 14}, false},
		{"collocated unpriced: rollout profiled on 16", "    rollout: 0-15\n    inference: 16-23\n    actor: 24-63", "true", 1, 2, 64, 8,
			map[string]string{ModeCollocated: "RLS-E0803"}, map[string]int{ModeCollocated: 4}, true},
		{"nothing refused", colloc, "true", 1, 2, 24, 8, map[string]string{}, nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := load(t, fmt.Sprintf(refusalBase, c.placement, c.recompute, c.rtp, c.atp))
			cl, err := UniformCluster(c.gpus, c.perNode)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Suggest(spec, cl, Options{Top: 2})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, r := range res.Refusals {
				got[r.Mode] = r.Diagnostic.Code
				if r.Diagnostic.Primary.File != "train.yaml" {
					t.Errorf("%s: refusal located in %q, not the user's file", r.Mode, r.Diagnostic.Primary.File)
				}
				if l := c.line[r.Mode]; l != 0 && r.Diagnostic.Primary.Line != l {
					t.Errorf("%s: refusal at line %d, want %d", r.Mode, r.Diagnostic.Primary.Line, l)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("refusals %v, want %v", got, c.want)
			}
			if res.Unchanged != c.unchanged {
				t.Errorf("unchanged %v, want %v", res.Unchanged, c.unchanged)
			}
		})
	}
}

// TestRefusalProperty: on random specs and clusters, whenever a mode has
// no suggestion beside one that has, a refusal says why, with a code, in
// the user's terms (never the generated config's name).
func TestRefusalProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(25))
	n := 150
	if testing.Short() {
		n = 40
	}
	for i := 0; i < n; i++ {
		spec, cl := randomCase(rng, 24)
		spec.file = "train.yaml"
		res, err := Suggest(spec, cl, Options{Top: 2})
		if err != nil {
			continue
		}
		modes := map[string]bool{}
		for _, r := range res.Refusals {
			modes[r.Mode] = true
			d := r.Diagnostic
			if d.Code == "" || d.Summary == "" || d.Primary.File == checkedName {
				t.Fatalf("case %d: refusal %+v lacks a code, a summary or the user's file", i, d)
			}
		}
		collocShown, splitShown := false, false
		for _, s := range res.Suggestions {
			collocShown = collocShown || s.Mode == ModeCollocated
			splitShown = splitShown || s.Mode != ModeCollocated
		}
		if !collocShown && isNaN(res.CollocatedCost) && !modes[ModeCollocated] {
			t.Fatalf("case %d: collocated is neither suggested nor explained", i)
		}
		if !splitShown && isNaN(res.BestSplitCost) && !modes[ModeDisaggregated] {
			t.Fatalf("case %d: no split suggested nor explained", i)
		}
	}
}

func isNaN(x float64) bool { return x != x }

var gpusAdvice = regexp.MustCompile(`--gpus (\d+)`)

// TestAdviceFits: when no layout of N GPUs has a cost, every GPU count
// the error advises has one, "more GPUs" is advised only when no count
// below N has one, and a count below N that has one is always advised.
func TestAdviceFits(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	seen := 0
	for i := 0; i < 400 && seen < 60; i++ {
		spec, cl := randomCase(rng, 40)
		if rng.Intn(2) == 0 {
			spec = randomEmbodied(rng)
		}
		res, err := Suggest(spec, cl, Options{Top: 1})
		var se *Error
		if err == nil || !errors.As(err, &se) || res == nil || res.Costed != 0 {
			continue
		}
		seen++
		N := cl.GPUs
		p, _ := newProblem(spec, cl, Options{})
		below := 0
		for g := N - 1; g >= 1 && below == 0; g-- {
			if ok, _ := p.fillsExactly(g); ok {
				below = g
			}
		}
		counts := gpusAdvice.FindAllStringSubmatch(se.Help, -1)
		for _, m := range counts {
			g, _ := strconv.Atoi(m[1])
			if ok, _ := p.fillsExactly(g); !ok {
				t.Errorf("case %d (N %d): advises --gpus %d, where no layout has a cost: %s", i, N, g, se.Help)
			}
		}
		if strings.Contains(se.Help, "more GPUs") && below > 0 {
			t.Errorf("case %d (N %d): advises more GPUs, but %d GPUs have a layout: %s", i, N, below, se.Help)
		}
		if below > 0 && !strings.Contains(se.Help, fmt.Sprintf("--gpus %d", below)) {
			t.Errorf("case %d (N %d): does not advise %d GPUs, the most below N with a layout: %s", i, N, below, se.Help)
		}
	}
	if seen < 10 {
		t.Fatalf("only %d unpriced cases drawn", seen)
	}
}

// randomEmbodied draws an embodied spec, sometimes with measured curves.
func randomEmbodied(rng *rand.Rand) *Spec {
	e := &Embodied{Envs: []int{1, 2, 6, 8, 12, 64, 100}[rng.Intn(7)], ActorCost: 1, Stages: 1 + rng.Intn(2)}
	s := &Spec{Task: TaskEmbodied, Embodied: e, ProfileSource: SourceDefault}
	if rng.Intn(2) == 0 {
		top := 1 + rng.Intn(8)
		e.Env = Profile{{1, 1}, {top, float64(top)}}
		e.Rollout = Profile{{1, 2}, {top, float64(2 * top)}}
		if top == 1 {
			e.Env, e.Rollout = Profile{{1, 1}}, Profile{{1, 2}}
		}
		s.ProfileSource = SourceConfig
	}
	return s
}

func TestPathAt(t *testing.T) {
	cfg := []byte("cluster:\n  num_nodes: 2\n  component_placement:\n    actor,reward: 0-7\nrollout:\n  tensor_parallel_size: 2\n")
	for line, want := range map[int]string{1: "cluster", 2: "cluster.num_nodes", 3: "cluster.component_placement",
		4: "cluster.component_placement.actor,reward", 6: "rollout.tensor_parallel_size", 9: ""} {
		if got := pathAt(cfg, line); got != want {
			t.Errorf("line %d: %q, want %q", line, got, want)
		}
	}
}

func TestCountsText(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want string
	}{{nil, "none"}, {[]int{4}, "4"}, {[]int{1, 2}, "1, 2"}, {[]int{1, 2, 3, 4, 5, 6, 7}, "1-7"},
		{[]int{4, 8, 12}, "4, 8, 12"}, {[]int{2, 4, 8, 16, 32, 40}, "2, 4, 8, ..., 40"}} {
		if got := countsText(c.in); got != c.want {
			t.Errorf("%v: %q, want %q", c.in, got, c.want)
		}
	}
}
