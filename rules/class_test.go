package rules_test

import (
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
)

// The class follows what the config says of its run (semantics §10), as
// RLinf's entry points pick it.
func TestClassInference(t *testing.T) {
	const placement = "cluster:\n  num_nodes: 1\n  component_placement:\n    actor,rollout,reward: all\n"
	for _, tc := range []struct {
		name, yaml string
		want       model.PlacementClass
		why        string
	}{
		{"reasoning training", "runner:\n  task_type: reasoning\n" + placement, model.ClassModelParallel, "task_type: reasoning"},
		{"coding online RL", "runner:\n  task_type: coding_online_rl\n" + placement, model.ClassModelParallel, "coding_online_rl"},
		{"reasoning evaluation", "runner:\n  task_type: reasoning_eval\n" + placement, model.ClassModelParallelEval, "reasoning_eval"},
		{"wideseek training", "runner:\n  task_type: reasoning\nagentloop:\n  workflow: mas\n" + placement, model.ClassMultiAgent, "agentloop.workflow"},
		{"wideseek evaluation", "runner:\n  task_type: reasoning_eval\n" + placement + "    rollout_judge: all\n", model.ClassMultiAgentEval, "rollout_judge"},
		{"wideseek evaluation, its dataset alone (base_eval)", "runner:\n  task_type: reasoning_eval\ndata:\n  type: wideseek_r1\n" + placement, model.ClassMultiAgentEval, "data.type: wideseek_r1"},
		{"wideseek training, its dataset alone", "runner:\n  task_type: reasoning\ndata:\n  type: wideseek_r1\n" + placement, model.ClassMultiAgent, "data.type"},
		{"another dataset of a reasoning evaluation", "runner:\n  task_type: reasoning_eval\ndata:\n  type: math\n" + placement, model.ClassModelParallelEval, "reasoning_eval"},
		{"Megatron SFT with TP sizes", "runner:\n  task_type: sft\nactor:\n  model:\n    tensor_model_parallel_size: 2\n" + placement, model.ClassHybrid, "task_type: sft"},
		{"embodied", "runner:\n  task_type: embodied\n" + placement, model.ClassHybrid, "embodied"},
		{"offline RL", "runner:\n  task_type: \"offline\"\n" + placement, model.ClassHybrid, "offline"},
		{"data collection", "runner:\n  task_type: embodied\n  num_data_episodes: 10\n" + placement, model.ClassBase, "data-collection"},
		{"an unknown task", "runner:\n  task_type: something_new\n" + placement, model.ClassHybrid, "not a reasoning run"},
		{"an extra engine alone", placement + "    rollout_judge: all\n", model.ClassMultiAgent, "rollout_judge"},
		{"TP sizes alone", "rollout:\n  tensor_parallel_size: 2\n" + placement, model.ClassModelParallel, "TP sizes"},
		{"nothing said", placement, model.ClassHybrid, "no runner.task_type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, ds := grammar.LoadConfig("t.yaml", []byte(tc.yaml), grammar.DefaultLimits)
			if cfg == nil || ds.HasErrors() {
				t.Fatalf("load: %v", ds)
			}
			c := rules.Class(cfg)
			if c.Class != tc.want || !strings.Contains(c.Why, tc.why) {
				t.Errorf("class %s (%s), want %s (%s)", c.Class, c.Why, tc.want, tc.why)
			}
			if n := rules.ClassNote(c); !strings.Contains(n.Summary, c.Class.RLinfClass()) || n.Code != model.NoteClass || !n.Primary.Known() {
				t.Errorf("note %+v", n)
			}
		})
	}
}

// --mode takes rlsolve's names, RLinf's class names and the modes plan
// prints.
func TestParseClass(t *testing.T) {
	for in, want := range map[string]model.PlacementClass{
		"hybrid": model.ClassHybrid, "HYBRID": model.ClassHybrid, "model-parallel": model.ClassModelParallel,
		"mp": model.ClassModelParallel, "COLLOCATED": model.ClassModelParallel, "Disaggregated": model.ClassModelParallel,
		"MultiAgentModelParallelEvalComponentPlacement": model.ClassMultiAgentEval, "model_parallel_eval": model.ClassModelParallelEval,
		"base": model.ClassBase, "ComponentPlacement": model.ClassBase,
	} {
		if got, ok := model.ParseClass(in); !ok || got != want {
			t.Errorf("ParseClass(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if _, ok := model.ParseClass("bogus"); ok {
		t.Error("bogus accepted")
	}
}
