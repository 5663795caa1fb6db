package pipeline_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/topology"
)

// mpConfig is a one-node model-parallel config with the given placement
// and sizes.
func mpConfig(placement, sizes string) string {
	return "cluster:\n  num_nodes: 1\n  component_placement:\n" + placement + sizes
}

// TestConflictFactsOnly: a diagnostic labels the facts of its conflict and
// nothing else. RLS-E0506 of a component labels that component's placement
// and its TP size; of the inference, also the actor's and rollout's
// placements, which make the mode disaggregated (RLinf checks it there),
// and says so.
func TestConflictFactsOnly(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []string // primary first: "text=role"
	}{
		{"actor TP", mpConfig("    actor: 0-3\n    rollout: 4-7\n    reward: 4-7\n", "actor:\n  model:\n    tensor_model_parallel_size: 8\nrollout:\n  tensor_parallel_size: 2\n"),
			[]string{"8=actor TP 8", "0-3=4 GPUs"}},
		{"rollout TP", mpConfig("    actor: 0-5\n    rollout: 6-7\n    reward: 6-7\n", "actor:\n  model:\n    tensor_model_parallel_size: 2\nrollout:\n  tensor_parallel_size: 4\n"),
			[]string{"4=rollout TP 4", "6-7=2 GPUs"}},
		{"inference TP", mpConfig("    actor: 0-3\n    rollout: 4-5\n    inference: 6-7\n    reward: 4-7\n", "actor:\n  model:\n    tensor_model_parallel_size: 2\nrollout:\n  tensor_parallel_size: 2\ninference:\n  model:\n    tensor_model_parallel_size: 4\n"),
			[]string{"6-7=2 GPUs", "0-3=actor apart from the rollout: disaggregated", "4-5=rollout apart from the actor: disaggregated", "4=inference TP 4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := pipeline.CheckBytes("t.yaml", []byte(tc.yaml), pipeline.Options{Inventory: topology.Uniform(1, 8, "test"), GPUsPerNode: -1})
			var got []string
			for _, d := range o.Diagnostics {
				if d.Code != model.CodeMPTPTooLarge {
					continue
				}
				if got != nil {
					t.Fatalf("two RLS-E0506: %v", o.Diagnostics)
				}
				got = append(got, spanText([]byte(tc.yaml), d.Primary)+"="+d.PrimaryLabel)
				for _, l := range d.Labels {
					got = append(got, spanText([]byte(tc.yaml), l.Span)+"="+l.Message)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("facts %q, want %q", got, tc.want)
			}
		})
	}
}

var sizeNumbers = regexp.MustCompile(`\b(?:TP|PP|CP)(?: size)? (\d+)|= (\d+(?: x \d+)+) =`)

// TestSizesLocated: every parallel size a message names is a located fact
// of the diagnostic: a span (primary or label) whose text is that number.
// RLS-E0505 names both TP sizes, RLS-E0506 one, RLS-E0514 each size that
// makes the product.
func TestSizesLocated(t *testing.T) {
	inputs := []string{
		// RLS-E0505: collocated, actor TP 6, rollout TP 4.
		mpConfig("    actor,rollout,reward: all\n", "actor:\n  model:\n    tensor_model_parallel_size: 6\nrollout:\n  tensor_parallel_size: 4\n"),
		// RLS-E0506.
		mpConfig("    actor: 0-3\n    rollout: 4-7\n    reward: 4-7\n", "actor:\n  model:\n    tensor_model_parallel_size: 8\n"),
		// RLS-E0514 with PP and CP.
		"runner:\n  task_type: sft\n" + mpConfig("    actor: 0-5\n", "actor:\n  model:\n    tensor_model_parallel_size: 1\n    pipeline_model_parallel_size: 2\n    context_parallel_size: 2\n"),
	}
	codes := map[string]bool{}
	for _, src := range inputs {
		o := pipeline.CheckBytes("t.yaml", []byte(src), pipeline.Options{Inventory: topology.Uniform(1, 24, "test"), GPUsPerNode: -1})
		for _, d := range o.Diagnostics {
			if d.Severity != model.SeverityError {
				continue
			}
			codes[d.Code] = true
			located := []string{spanText([]byte(src), d.Primary)}
			for _, l := range d.Labels {
				located = append(located, spanText([]byte(src), l.Span))
			}
			for _, m := range sizeNumbers.FindAllStringSubmatch(d.Summary, -1) {
				nums := []string{m[1]}
				if m[2] != "" {
					nums = strings.Split(m[2], " x ")
				}
				for _, n := range nums {
					if n != "" && !slices.Contains(located, n) {
						t.Errorf("%s %q names %s, which no span of it covers (spans: %q)", d.Code, d.Summary, n, located)
					}
				}
			}
		}
	}
	for _, c := range []string{model.CodeMPTPDivisible, model.CodeMPTPTooLarge, model.CodeActorParallel} {
		if !codes[c] {
			t.Errorf("no %s among the inputs' errors", c)
		}
	}
}

// TestMissingComponentSaysClass: RLS-E0501 names the class and how it was
// chosen, points at what chose it, offers --mode hybrid (kept because the
// config checked as Hybrid has fewer conflicts), and hides none of the
// file's other errors.
func TestMissingComponentSaysClass(t *testing.T) {
	src := "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: 0-3\n    rollout: 4-9\n    env: {node_group: gpu, placement: 0}\nrunner:\n  task_type: reasoning\n"
	for _, tc := range []struct {
		class model.PlacementClass
		why   string
		at    string
	}{
		{"", "(class ModelParallelComponentPlacement: runner.task_type: reasoning)", "reasoning"},
		{model.ClassModelParallel, "(class ModelParallelComponentPlacement: chosen with --mode)", ""},
	} {
		o := pipeline.CheckBytes("t.yaml", []byte(src), pipeline.Options{Inventory: topology.Uniform(1, 8, "test"), GPUsPerNode: -1, Class: tc.class})
		var codes []string
		for _, d := range o.Diagnostics {
			if d.Severity != model.SeverityError {
				continue
			}
			codes = append(codes, d.Code)
			if d.Code != model.CodeMPMissing {
				continue
			}
			if !strings.Contains(d.Summary, "needs a `reward` component "+tc.why) {
				t.Errorf("summary %q does not say %q", d.Summary, tc.why)
			}
			var at []string
			for _, l := range d.Labels {
				at = append(at, spanText([]byte(src), l.Span)+"="+l.Message)
			}
			if tc.at != "" && !slices.Contains(at, tc.at+"=decides the class") {
				t.Errorf("labels %q do not point at what decides the class", at)
			}
			if len(d.Help) != 1 || !strings.HasSuffix(d.Help[0].Message, "--mode hybrid") {
				t.Errorf("help %+v, want --mode hybrid", d.Help)
			}
		}
		slices.Sort(codes)
		if want := []string{model.CodeRankOutOfRange, model.CodeUnknownGroup, model.CodeMPMissing}; !slices.Equal(codes, want) {
			t.Errorf("errors %v, want %v: RLS-E0501 must not hide the others", codes, want)
		}
	}
}
