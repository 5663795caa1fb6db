package pipeline_test

import (
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/topology"
)

// TestActorParallelD21: a Megatron actor whose world size is not a
// multiple of TP x PP x CP is an error (RLS-E0514), in every class where
// the actor's sizes are set, pointing at the actor's placement and the
// sizes; its fixes are the nearest sizes that divide and that the solver
// confirms.
func TestActorParallelD21(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		class      model.PlacementClass
		want       string   // the summary's numbers ("" for no error)
		labels     []string // the labelled facts' text, beside the placement
		fixes      []string // the new texts of the fixes
	}{
		{"Megatron SFT in the Hybrid class", "runner:\n  task_type: sft\ncluster:\n  num_nodes: 1\n  component_placement:\n    actor: 0-5\nactor:\n  model:\n    tensor_model_parallel_size: 4\n",
			"", "actor has 6 processes, not a multiple of its TP size 4", []string{"4"}, []string{"0-3", "0-7"}},
		{"PP and CP count", "runner:\n  task_type: sft\ncluster:\n  num_nodes: 1\n  component_placement:\n    actor: 0-5\nactor:\n  model:\n    tensor_model_parallel_size: 1\n    pipeline_model_parallel_size: 2\n    context_parallel_size: 2\n",
			"", "actor has 6 processes, not a multiple of PP x CP = 2 x 2 = 4", []string{"2", "2"}, []string{"0-3", "0-7"}},
		{"model-parallel: GPUs; growing would overlap the rollout", "cluster:\n  num_nodes: 2\n  component_placement:\n    actor: 0-5\n    rollout,reward: 6-15\nactor:\n  model:\n    tensor_model_parallel_size: 4\nrollout:\n  tensor_parallel_size: 2\n",
			"", "actor has 6 GPUs, not a multiple of its TP size 4", []string{"4"}, []string{"0-3"}},
		{"all, on one 6-GPU node", "runner:\n  task_type: sft\ncluster:\n  num_nodes: 1\n  component_placement:\n    actor: all\nactor:\n  model:\n    tensor_model_parallel_size: 4\n",
			"", "actor has 6 processes", []string{"4"}, []string{"0-3"}},
		{"divides: no error", "runner:\n  task_type: sft\ncluster:\n  num_nodes: 1\n  component_placement:\n    actor: 0-7\nactor:\n  model:\n    tensor_model_parallel_size: 4\n",
			"", "", nil, nil},
		{"AUTO mode: the cluster's GPUs count, on one 6-GPU node", "cluster:\n  num_nodes: 1\n  auto_scheduler: true\n  component_placement:\n    actor: 0-3\n    rollout,reward: 4-5\nactor:\n  model:\n    tensor_model_parallel_size: 4\nrollout:\n  tensor_parallel_size: 2\n",
			"", "in AUTO mode the actor starts on all 6 GPUs of the cluster", []string{"true", "4"}, nil},
		{"AUTO mode, the cluster divides: no error", "cluster:\n  num_nodes: 1\n  auto_scheduler: true\n  component_placement:\n    actor: 0-5\n    rollout,reward: 6-7\nactor:\n  model:\n    tensor_model_parallel_size: 4\nrollout:\n  tensor_parallel_size: 2\n",
			"", "", nil, nil},
		{"eval class: no actor starts", "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: 0-5\n    rollout,reward: 6-7\nactor:\n  model:\n    tensor_model_parallel_size: 4\nrollout:\n  tensor_parallel_size: 2\n",
			model.ClassModelParallelEval, "", nil, nil},
		{"base class: no actor starts", "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: 0-5\nactor:\n  model:\n    tensor_model_parallel_size: 4\n",
			model.ClassBase, "", nil, nil},
		{"no sizes set: not Megatron", "runner:\n  task_type: embodied\ncluster:\n  num_nodes: 1\n  component_placement:\n    actor: 0-5\n",
			"", "", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gpus := 8
			if strings.Contains(tc.name, "6-GPU") {
				gpus = 6
			}
			o := pipeline.CheckBytes("t.yaml", []byte(tc.yaml), pipeline.Options{Inventory: topology.Uniform(2, gpus, "test"), GPUsPerNode: -1, Class: tc.class})
			var d *model.Diagnostic
			for i := range o.Diagnostics {
				if o.Diagnostics[i].Code == model.CodeActorParallel {
					d = &o.Diagnostics[i]
				}
			}
			if tc.want == "" {
				if d != nil || o.Failed() {
					t.Fatalf("unexpected errors: %v", o.Diagnostics)
				}
				return
			}
			if d == nil || !strings.Contains(d.Summary, tc.want) {
				t.Fatalf("got %v, want RLS-E0514 %q", o.Diagnostics, tc.want)
			}
			src := []byte(tc.yaml)
			if got := spanText(src, d.Primary); !strings.HasPrefix(tc.yaml[strings.Index(tc.yaml, "actor: ")+7:], got) {
				t.Errorf("primary %q is not the actor's placement", got)
			}
			var labels []string
			for _, l := range d.Labels {
				labels = append(labels, spanText(src, l.Span))
			}
			if strings.Join(labels, " ") != strings.Join(tc.labels, " ") {
				t.Errorf("labels %q, want %q (each size the message names, located)", labels, tc.labels)
			}
			var fixes []string
			for _, f := range d.Help {
				fixes = append(fixes, f.Edits[0].NewText)
			}
			if strings.Join(fixes, " ") != strings.Join(tc.fixes, " ") {
				t.Errorf("fixes %q, want %q", fixes, tc.fixes)
			}
		})
	}
}

// TestRolloutIdleD21: a rollout whose GPUs are not a multiple of TP x PP
// stays valid, with a warning naming the idle GPUs and a fix that checking
// the edited config confirms.
func TestRolloutIdleD21(t *testing.T) {
	src := "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: 0-1\n    rollout: 2-7\n    reward: 2-7\nactor:\n  model:\n    tensor_model_parallel_size: 1\nrollout:\n  tensor_parallel_size: 4\n"
	o := pipeline.CheckBytes("t.yaml", []byte(src), pipeline.Options{Inventory: topology.Uniform(1, 8, "test"), GPUsPerNode: -1})
	if o.Failed() {
		t.Fatalf("errors: %v", o.Diagnostics)
	}
	var w *model.Diagnostic
	for i := range o.Diagnostics {
		if o.Diagnostics[i].Code == model.WarnParallelDivides {
			w = &o.Diagnostics[i]
		}
	}
	if w == nil || !strings.Contains(w.Summary, "leaves GPU(s) 6-7 idle") || len(w.Help) != 1 || w.Help[0].Edits[0].NewText != "2-5" {
		t.Fatalf("got %+v", w)
	}
	if got := spanText([]byte(src), w.Labels[0].Span); got != "4" {
		t.Errorf("the TP label points at %q", got)
	}
	// Where the fix would break the config, it is not offered: the rollout
	// shares its entry with reward and the actor is collocated elsewhere.
	src2 := strings.Replace(src, "    rollout: 2-7\n    reward: 2-7\n", "    rollout,reward: 2-7\n", 1)
	o = pipeline.CheckBytes("t.yaml", []byte(src2), pipeline.Options{Inventory: topology.Uniform(1, 8, "test"), GPUsPerNode: -1})
	for _, d := range o.Diagnostics {
		if d.Code == model.WarnParallelDivides && len(d.Help) != 0 {
			t.Errorf("a fix for a shared entry: %+v", d.Help)
		}
	}
}

// spanText is the source a span covers.
func spanText(src []byte, sp model.Span) string {
	text, _ := diag.MapSources(map[string][]byte{sp.File: src}).Text(sp)
	return text
}

// TestActorParallelSharedKeyFix: TP 3 on every GPU of the cluster, the
// actor sharing its key with the rollout and the reward (issue 25 item 6).
// Growing to the next multiple is past the last GPU, so it is no fix; the
// one offered says that the rollout and the reward get the GPUs too.
func TestActorParallelSharedKeyFix(t *testing.T) {
	src := "cluster:\n  num_nodes: 2\n  component_placement:\n    actor,rollout,reward: 0-15\nactor:\n  model:\n    tensor_model_parallel_size: 3\nrollout:\n  tensor_parallel_size: 1\n"
	o := pipeline.CheckBytes("t.yaml", []byte(src), pipeline.Options{Inventory: topology.Uniform(2, 8, "test"), GPUsPerNode: -1})
	var fixes []string
	for _, d := range o.Diagnostics {
		if d.Code != model.CodeActorParallel {
			continue
		}
		for _, f := range d.Help {
			fixes = append(fixes, f.Message)
		}
	}
	want := "give the actor 15 GPUs (a multiple of 3); rollout and reward share the key and get the same GPUs: `0-14`"
	if len(fixes) != 1 || fixes[0] != want {
		t.Errorf("fixes %q, want only %q", fixes, want)
	}
}
