package solver

import (
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
)

// Table tests of each rule family: the code, the primary span, the
// labelled fact spans (by the text they cover), and that each proposed fix
// edits the right text and removes the conflict.

// stInv is an inventory of NVIDIA nodes with the given GPU counts.
func stInv(gpus ...int) *model.Inventory {
	inv := &model.Inventory{Source: "test"}
	for i, g := range gpus {
		inv.Nodes = append(inv.Nodes, model.Node{Rank: i, AccelType: model.AccelNVGPU, AccelCount: g})
	}
	return inv
}

// stLoad reads a config; a grammar error fails t (the grammar judges no
// placement rule).
func stLoad(t *testing.T, yaml string) *model.Config {
	t.Helper()
	cfg, ds := grammar.LoadConfig("t.yaml", []byte(yaml), grammar.DefaultLimits)
	if cfg == nil {
		t.Fatalf("no config: %v", ds)
	}
	for _, d := range ds {
		if d.Severity == model.SeverityError {
			t.Fatalf("unexpected grammar error %s %s: %s", d.Code, d.Primary, d.Summary)
		}
	}
	return cfg
}

func classOf(mp bool) model.PlacementClass {
	if mp {
		return model.ClassModelParallel
	}
	return model.ClassHybrid
}

// checkCfg judges an RLinf config as the pipeline does.
func checkCfg(cfg *model.Config, inv *model.Inventory, mp bool, opt Options) (*Result, error) {
	return Check(rules.Build(cfg, inv, rules.Options{Class: classOf(mp)}), opt)
}

// stText is the text a span covers in yaml ("" when it is not known).
func stText(yaml string, sp model.Span) string {
	if !sp.Known() {
		return ""
	}
	lines := strings.SplitAfter(yaml, "\n")
	off := func(line, col int) int {
		n := 0
		for i := 0; i < line-1 && i < len(lines); i++ {
			n += len(lines[i])
		}
		return n + col - 1
	}
	a, b := off(sp.Line, sp.Col), off(sp.EndLine, sp.EndCol)
	if a < 0 || b > len(yaml) || a > b {
		return "?"
	}
	return yaml[a:b]
}

// stApply performs a fix's edits on yaml (edits on distinct spans).
func stApply(yaml string, edits []model.Edit) string {
	sorted := append([]model.Edit(nil), edits...)
	sort.Slice(sorted, func(i, j int) bool {
		a, b := sorted[i].Span, sorted[j].Span
		return a.Line > b.Line || a.Line == b.Line && a.Col > b.Col
	})
	for _, e := range sorted {
		lines := strings.SplitAfter(yaml, "\n")
		off := 0
		for i := 0; i < e.Span.Line-1; i++ {
			off += len(lines[i])
		}
		endOff := 0
		for i := 0; i < e.Span.EndLine-1; i++ {
			endOff += len(lines[i])
		}
		yaml = yaml[:off+e.Span.Col-1] + e.NewText + yaml[endOff+e.Span.EndCol-1:]
	}
	return yaml
}

type stFix struct {
	message string // a substring of the fix's message
	old     string // the text the edit replaces
	new     string // the replacement
}

type stCase struct {
	name    string
	yaml    string
	gpus    []int
	mp      bool
	code    string
	primary string   // text of the primary span
	labels  []string // texts of the labelled spans, in file order
	fixes   []stFix  // the fixes offered, in order (nil: any)
	noFixes bool     // no fix may be offered
	// primaryLine and labelLines, when set, are the lines of the spans
	// (a flow mapping spans its braces).
	primaryLine int
	labelLines  []int
}

// stCases cover every rule family of pairs.go, entry.go and
// modelparallel.go. mus_test.go checks their conflicts are minimal too.
var stCases = []stCase{
	// pairs.go
	{name: "duplicate label", gpus: []int{4, 4}, code: model.CodeDuplicateLabel,
		yaml: `cluster:
  num_nodes: 2
  node_groups:
    - label: gpu
      node_ranks: "0"
    - label: gpu
      node_ranks: "1"
  component_placement:
    actor: "0-3"
`, primary: "gpu", labels: []string{"gpu"}},
	{name: "env node in two env_configs", gpus: []int{4, 4}, code: model.CodeEnvNodeDuplicated,
		yaml: `cluster:
  num_nodes: 2
  node_groups:
    - label: gpu
      node_ranks: "0-1"
      env_configs:
        - node_ranks: "0-1"
        - node_ranks: "1"
  component_placement:
    actor: "0-7"
`, primary: "1", labels: []string{"0-1"}},
	{name: "env var twice in a group", gpus: []int{4, 4}, code: model.CodeEnvVarDuplicated,
		yaml: `cluster:
  num_nodes: 2
  node_groups:
    - label: gpu
      node_ranks: "0-1"
      env_configs:
        - node_ranks: "0"
          env_vars:
            - HF_HOME: /a
        - node_ranks: "1"
          env_vars:
            - HF_HOME: /b
  component_placement:
    actor: "0-7"
`, primary: "HF_HOME", labels: []string{"HF_HOME"}},
	{name: "robot in two groups", gpus: []int{0, 4}, code: model.CodeHardwareConflict,
		yaml: `cluster:
  num_nodes: 2
  node_groups:
    - label: arm1
      node_ranks: "0"
      hardware: {type: Franka, configs: [{node_rank: 0, robot_ip: 10.0.0.1}]}
    - label: arm2
      node_ranks: "0"
      hardware: {type: Franka, configs: [{node_rank: 0, robot_ip: 10.0.0.2}]}
  component_placement:
    actor: "0-3"
`, primary: "{node_rank: 0, robot_ip: 10.0.0.2}", labels: []string{"{node_rank: 0, robot_ip: 10.0.0.1}"}, primaryLine: 9, labelLines: []int{6}},

	// entry.go
	{name: "out of range end", gpus: []int{8}, code: model.CodeRankOutOfRange,
		yaml: `cluster:
  num_nodes: 1
  component_placement:
    actor: "0-8"
`, primary: "8", fixes: []stFix{{"shrink", "0-8", "0-7"}}},
	{name: "out of range start", gpus: []int{8}, code: model.CodeRankOutOfRange,
		yaml: `cluster:
  num_nodes: 1
  component_placement:
    actor: "0-1,10-12"
`, primary: "10", noFixes: true},
	{name: "duplicate resources", gpus: []int{8}, code: model.CodeDuplicateResource,
		yaml: `cluster:
  num_nodes: 1
  component_placement:
    actor: "0-3,2-5"
`, primary: "2-5", labels: []string{"0-3"}, fixes: []stFix{{"disjoint", "2-5", "4-5"}}},
	{name: "resource order", gpus: []int{8}, code: model.CodeResourceOrder,
		yaml: `cluster:
  num_nodes: 1
  component_placement:
    actor: "4-5,0-1"
`, primary: "0-1", labels: []string{"4-5"}},
	{name: "process order", gpus: []int{8}, code: model.CodeProcessOrder,
		yaml: `cluster:
  num_nodes: 1
  component_placement:
    actor: "0-1:0-1,2-3:3-4"
`, primary: "3-4", labels: []string{"0-1:0-1"}, fixes: []stFix{{"renumber", "3-4", "2-3"}}},
	{name: "divisibility", gpus: []int{8}, code: model.CodeNotDivisible,
		yaml: `cluster:
  num_nodes: 1
  component_placement:
    actor: "0-2:0-1"
`, primary: "0-2:0-1"},
	{name: "spans nodes", gpus: []int{4, 4}, code: model.CodeSpansNodes,
		yaml: `cluster:
  num_nodes: 2
  component_placement:
    actor: "0-1,2-5:2"
`, primary: "2-5:2"},
	{name: "mixed hardware", gpus: []int{8, 4}, code: model.CodeMixedHardware,
		yaml: `cluster:
  num_nodes: 2
  node_groups:
    - label: gpu
      node_ranks: "1"
    - label: arm
      node_ranks: "1"
      hardware: {type: Franka, configs: [{node_rank: 1}]}
  component_placement:
    actor: {node_group: "gpu,arm", placement: "3-4:0"}
`, primary: "3-4:0", labels: []string{"gpu,arm"}},
	{name: "unknown group", gpus: []int{4}, code: model.CodeUnknownGroup,
		yaml: `cluster:
  num_nodes: 1
  node_groups:
    - label: gpu
      node_ranks: "0"
  component_placement:
    actor: {node_group: gpux, placement: "0-3"}
`, primary: "gpux", labels: []string{"0-3"}, fixes: []stFix{{"did you mean `gpu`", "gpux", "gpu"}}},
	{name: "mixed typed and untyped", gpus: []int{4, 4}, code: model.CodeMixedTypedUntyped,
		yaml: `cluster:
  num_nodes: 2
  node_groups:
    - label: gpu
      node_ranks: "0"
  component_placement:
    agent: {node_group: "gpu,node", placement: "0"}
`, primary: "gpu,node", labels: []string{"0"}},
	{name: "groups overlap", gpus: []int{4, 4}, code: model.CodeGroupsOverlap,
		yaml: `cluster:
  num_nodes: 2
  node_groups:
    - label: a
      node_ranks: "0-1"
      ignore_hardware: true
    - label: b
      node_ranks: "1"
      ignore_hardware: true
  component_placement:
    agent: {node_group: "a,b", placement: "0"}
`, primary: "a,b", labels: []string{"0"}},

	// modelparallel.go
	{name: "neither collocated nor disaggregated", gpus: []int{8}, mp: true, code: model.CodeMPMode,
		yaml: `cluster:
  num_nodes: 1
  component_placement:
    actor: "0-3"
    rollout: "2-5"
    reward: "0-3"
`, primary: "2-5", labels: []string{"0-3"}, fixes: []stFix{{"own GPUs", "2-5", "4-7"}, {"off the shared GPUs", "2-5", "4-5"}}},
	// 12 GPUs: without either TP size the placement is valid, so both are
	// in the set.
	{name: "TP divisibility", gpus: []int{12}, mp: true, code: model.CodeMPTPDivisible,
		yaml: `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,reward: "0-11"
actor:
  model:
    tensor_model_parallel_size: 4
rollout:
  tensor_parallel_size: 3
`, primary: "3", labels: []string{"0-11", "4"}, fixes: []stFix{{"divides 4: 2", "3", "2"}, {"divides 4: 1", "3", "1"}, {"rollout TP 3 divides: 3", "4", "3"}}},
	// On two 6-GPU nodes rollout TP 2 (stride 2) would give a rollout
	// process GPUs 4 and 6, on two nodes: that fix is not offered.
	{name: "TP divisibility, a fix filtered", gpus: []int{6, 6}, mp: true, code: model.CodeMPTPDivisible,
		yaml: `cluster:
  num_nodes: 2
  component_placement:
    actor,rollout,reward: "0-11"
actor:
  model:
    tensor_model_parallel_size: 4
rollout:
  tensor_parallel_size: 3
`, primary: "3", labels: []string{"0-11", "4"}, fixes: []stFix{{"divides 4: 1", "3", "1"}, {"rollout TP 3 divides: 3", "4", "3"}, {"rollout TP 3 divides: 6", "4", "6"}}},
	{name: "inference in collocated", gpus: []int{8}, mp: true, code: model.CodeMPCollocatedExtra,
		yaml: `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout: "0-3"
    inference: "4-5"
    reward: "0-3"
`, primary: "4-5", labels: []string{"0-3"}},
	{name: "recompute false", gpus: []int{8}, mp: true, code: model.CodeMPRecompute,
		yaml: `cluster:
  num_nodes: 1
  component_placement:
    actor: "0-1"
    rollout: "2-5"
    inference: "6-7"
    reward: "2-5"
algorithm:
  recompute_logprobs: false
`, primary: "6-7", labels: []string{"0-1", "2-5", "false"}},
	{name: "AUTO order", gpus: []int{8}, mp: true, code: model.CodeMPAutoOrder,
		yaml: `cluster:
  num_nodes: 1
  auto_scheduler: true
  component_placement:
    actor: "0-1"
    rollout: "3-5"
    reward: "3-5"
`, primary: "true", labels: []string{"0-1", "3-5"}},
	{name: "strided divisibility", gpus: []int{8}, mp: true, code: model.CodePackedDivisible,
		yaml: `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,reward: "0-5"
rollout:
  tensor_parallel_size: 4
`, primary: "0-5", labels: []string{"4"}},
}

func TestRuleFamilies(t *testing.T) {
	for _, c := range stCases {
		t.Run(c.name, func(t *testing.T) {
			cfg := stLoad(t, c.yaml)
			inv := stInv(c.gpus...)
			res, err := checkCfg(cfg, inv, c.mp, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Diagnostics) != 1 {
				for _, d := range res.Diagnostics {
					t.Logf("%s %s %q: %s", d.Code, d.Primary, stText(c.yaml, d.Primary), d.Summary)
				}
				t.Fatalf("%d diagnostics, want 1", len(res.Diagnostics))
			}
			d := res.Diagnostics[0]
			if d.Code != c.code || d.Severity != model.SeverityError {
				t.Errorf("code %s (%v), want %s error: %s", d.Code, d.Severity, c.code, d.Summary)
			}
			if got := stText(c.yaml, d.Primary); got != c.primary {
				t.Errorf("primary %s covers %q, want %q", d.Primary, got, c.primary)
			}
			if c.primaryLine > 0 && d.Primary.Line != c.primaryLine {
				t.Errorf("primary on line %d, want %d", d.Primary.Line, c.primaryLine)
			}
			for i, l := range d.Labels {
				if i < len(c.labelLines) && l.Span.Line != c.labelLines[i] {
					t.Errorf("label %d on line %d, want %d", i, l.Span.Line, c.labelLines[i])
				}
			}
			var labels []string
			for _, l := range d.Labels {
				labels = append(labels, stText(c.yaml, l.Span))
				if l.Message == "" {
					t.Errorf("label %s has no message", l.Span)
				}
			}
			if strings.Join(labels, "|") != strings.Join(c.labels, "|") {
				t.Errorf("labels cover %q, want %q", labels, c.labels)
			}
			if d.Summary == "" {
				t.Error("no summary")
			}
			if c.noFixes && len(d.Help) > 0 {
				t.Errorf("fixes offered: %+v", d.Help)
			}
			if c.fixes != nil && len(d.Help) != len(c.fixes) {
				t.Errorf("%d fixes %+v, want %d", len(d.Help), d.Help, len(c.fixes))
			}
			for i, f := range d.Help {
				if len(f.Edits) == 0 {
					t.Errorf("fix %q has no edits", f.Message)
					continue
				}
				if i < len(c.fixes) {
					want := c.fixes[i]
					if !strings.Contains(f.Message, want.message) {
						t.Errorf("fix %d says %q, want it to mention %q", i, f.Message, want.message)
					}
					if len(f.Edits) != 1 || stText(c.yaml, f.Edits[0].Span) != want.old || f.Edits[0].NewText != want.new {
						t.Errorf("fix %d edits %+v, want %q -> %q", i, f.Edits, want.old, want.new)
					}
				}
				// The edited file no longer has the conflict, nor any other.
				fixed := stApply(c.yaml, f.Edits)
				fcfg := stLoad(t, fixed)
				fres, err := checkCfg(fcfg, inv, c.mp, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if fres.Diagnostics.HasErrors() {
					t.Errorf("after fix %q the config still has errors:\n%s", f.Message, fixed)
					for _, d := range fres.Diagnostics {
						t.Logf("  %s %s: %s", d.Code, d.Primary, d.Summary)
					}
				}
			}
		})
	}
}

// TestIndependentConflictsEach: conflicts of different rule families in one
// config are each reported with their own code.
func TestIndependentConflictsEach(t *testing.T) {
	y := `cluster:
  num_nodes: 2
  node_groups:
    - label: gpu
      node_ranks: "0-1"
      env_configs:
        - node_ranks: "0"
          env_vars:
            - HF_HOME: /a
        - node_ranks: "1"
          env_vars:
            - HF_HOME: /b
  component_placement:
    actor: "0-8"
    rollout: "4-5,0-1"
    env: {node_group: gpux, placement: "0"}
`
	res, err := checkCfg(stLoad(t, y), stInv(4, 4), false, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range res.Diagnostics {
		got = append(got, d.Code)
	}
	sort.Strings(got)
	want := []string{model.CodeRankOutOfRange, model.CodeResourceOrder, model.CodeUnknownGroup, model.CodeEnvVarDuplicated}
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("codes %v, want %v", got, want)
	}
	if res.Stats.Conflicts != len(want) || res.Stats.LargestSet < 1 {
		t.Errorf("stats %+v", res.Stats)
	}
}

// TestValidConfigHasNoConflicts: a valid config of each mode is valid.
func TestValidConfigHasNoConflicts(t *testing.T) {
	for _, c := range []struct {
		yaml string
		mp   bool
	}{
		{`cluster:
  num_nodes: 2
  node_groups:
    - label: gpu
      node_ranks: "0-1"
      env_configs:
        - node_ranks: "0"
          env_vars:
            - HF_HOME: /a
  component_placement:
    actor: "0-7"
    rollout: {node_group: gpu, placement: "0-3:0-7,4-7"}
    agent: {node_group: node, placement: "0-1:0-3"}
`, false},
		{`cluster:
  num_nodes: 2
  component_placement:
    actor,rollout,reward: "all"
actor:
  model:
    tensor_model_parallel_size: 4
rollout:
  tensor_parallel_size: 2
`, true},
	} {
		res, err := checkCfg(stLoad(t, c.yaml), stInv(4, 4), c.mp, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range res.Diagnostics {
			t.Errorf("%s %s: %s", d.Code, d.Primary, d.Summary)
		}
	}
}

// TestBudget: a budget that has run out before the first SAT call stops
// the solver with ErrBudget at once, on a config with conflicts to explain.
func TestBudget(t *testing.T) {
	var b strings.Builder
	b.WriteString("cluster:\n  num_nodes: 64\n  component_placement:\n")
	for i := 0; i < 40; i++ {
		b.WriteString("    c" + strings.Repeat("x", i) + ": \"0-3,2-5,600-700\"\n")
	}
	cfg := stLoad(t, b.String())
	gpus := make([]int, 64)
	for i := range gpus {
		gpus[i] = 8
	}
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		_, err := checkCfg(cfg, stInv(gpus...), false, Options{Budget: time.Nanosecond})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrBudget) {
			t.Errorf("err = %v, want ErrBudget", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Check with a 1 ns budget did not return within 20 s")
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("Check with a 1 ns budget took %v", el)
	}
}
