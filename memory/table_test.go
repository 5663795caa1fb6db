package memory

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

// Published parameter counts (spec/memory.md §2.3), in billions.
var publishedParams = map[string]float64{
	"qwen2.5-0.5b": 0.49, "qwen2.5-1.5b": 1.54, "qwen2.5-3b": 3.09, "qwen2.5-7b": 7.62, "qwen2.5-14b": 14.77,
	"qwen2.5-32b": 32.76, "qwen2.5-72b": 72.71, "qwen3-0.6b": 0.60, "qwen3-1.7b": 1.72, "qwen3-4b": 4.02,
	"qwen3-8b": 8.19, "qwen3-14b": 14.77, "qwen3-32b": 32.76, "qwen3-30b-a3b": 30.53, "qwen3-235b-a22b": 235.09,
	"llama3-8b": 8.03, "llama3-70b": 70.55, "r1-distill-qwen-1.5b": 1.78, "r1-distill-qwen-7b": 7.62,
	"moonlight-16b-a3b": 16.0, "openvla-7b": 7.54, "pi0": 3.25,
}

func TestTableParams(t *testing.T) {
	names := TableNames()
	if len(names) != len(publishedParams) {
		t.Errorf("table has %d architectures, want %d: %v", len(names), len(publishedParams), names)
	}
	for _, n := range names {
		a, ok := LookupTable("/models/"+n, "")
		want, known := publishedParams[n]
		if !ok || !known {
			t.Errorf("%s: lookup %v, published size known %v", n, ok, known)
			continue
		}
		got := float64(a.Params()) / 1e9
		if math.Abs(got-want) > 0.01*want {
			t.Errorf("%s: %.3fB parameters, published %.2fB", n, got, want)
		}
	}
}

func TestLookupTable(t *testing.T) {
	tests := []struct{ path, typ, want string }{
		{"/path/to/model/DeepSeek-R1-Distill-Qwen-7B", "qwen2.5", "r1-distill-qwen-7b"},
		{"/path/to/model/DeepSeek-R1-Distill-Qwen-32B/", "qwen2.5", "qwen2.5-32b"},
		{"/path/to/model/Qwen3-30B-A3B-Base/", "qwen3_moe", "qwen3-30b-a3b"},
		{"/path/to/model/Moonlight-16B-A3B-Instruct/", "deepseek_v3", "moonlight-16b-a3b"},
		{"Qwen/Qwen2.5-Math-1.5B-Instruct", "", "qwen2.5-1.5b"},
		{"meta-llama/Meta-Llama-3.1-8B-Instruct", "", "llama3-8b"},
		{"/path/to/model/RLinf-Pi0-LIBERO-Long-SFT", "openpi", "pi0"},
		{"", "openvla_oft", "openvla-7b"},
		{"/models/my-model", "qwen2.5", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		a, ok := LookupTable(tt.path, tt.typ)
		if got := map[bool]string{true: a.Name}[ok]; got != tt.want {
			t.Errorf("LookupTable(%q, %q) = %q, want %q", tt.path, tt.typ, got, tt.want)
		}
	}
}

// TestTableThroughMegatron: the table's architectures, turned into
// Megatron's arguments by MegatronArgsFor with each corpus case's
// parallelism, give the corpus's weight-and-optimizer bytes: the mapping
// from config.json keys to Megatron's arguments is right, not only the
// formula.
func TestTableThroughMegatron(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "conformance", "memory", "megatron_cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []struct {
			Name  string       `json:"name"`
			Model string       `json:"model"`
			Args  MegatronArgs `json:"args"`
			WO    float64      `json:"weight_and_optimizer_bytes"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, c := range doc.Cases {
		name := strings.TrimPrefix(c.Model, "pi0-paligemma-gemma2b")
		a, ok := LookupTable("/m/"+c.Model, "")
		if !ok && name == "" {
			a, ok = LookupTable("", "openpi")
		}
		if !ok {
			continue
		}
		g := c.Args
		ts := &model.TrainerSettings{TP: model.IntFact{Value: g.TensorModelParallelSize}, PP: model.IntFact{Value: g.PipelineModelParallelSize},
			CP: model.IntFact{Value: g.ContextParallelSize}, EP: model.IntFact{Value: g.ExpertModelParallelSize},
			ETP: model.IntFact{Value: g.ExpertTensorParallelSize, Set: true}, DistributedOptimizer: model.BoolFact{Value: g.UseDistributedOptimizer}}
		args := MegatronArgsFor(a, ts, g.WorldSize, true, g.SeqLength, g.MicroBatchSize)
		if args.PaddedVocabSize != g.PaddedVocabSize {
			t.Errorf("%s: padded vocabulary %d, Megatron %d", c.Name, args.PaddedVocabSize, g.PaddedVocabSize)
		}
		got := WeightAndOptimizerBytes(args)
		if math.Abs(got-c.WO) > 1e-9*c.WO {
			t.Errorf("%s: %.0f bytes from the table's architecture, Megatron %.0f", c.Name, got, c.WO)
		}
		checked++
	}
	if checked < 50 {
		t.Errorf("only %d corpus cases matched a table entry", checked)
	}
}
