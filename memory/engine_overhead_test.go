package memory

import (
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

// vllm#15815's V0 log: Qwen2.5-32B at TP 2 on an L40S (44.42 GiB), 0.9:
// "model weights take 30.71GiB; non_torch_memory takes 0.30GiB; PyTorch
// activation peak memory takes 1.26GiB; the rest of the memory reserved for
// KV Cache is 7.71GiB".
func TestVLLMFromItsLogs(t *testing.T) {
	a, _ := LookupTable("qwen2.5-32b", "")
	i := func(v int) model.IntFact { return model.IntFact{Value: v, Set: true} }
	r := model.EngineSettings{Backend: model.StringFact{Value: "vllm", Set: true}, MemFraction: model.FloatFact{Value: 0.9, Set: true},
		TP: i(2), PP: i(1)}
	capacity := int64(4442) * GiB / 100
	for _, v1 := range []bool{false, true} {
		prof := DefaultProfile()
		if !v1 {
			prof.VLLMV1 = 0
		}
		in := Input{Settings: &model.MemorySettings{Framework: "rlinf", Rollout: r}, Arch: a, Profile: prof}
		w := EngineWorker(in, "rollout", r)
		st, phases, _ := w.Engine.resolve("rollout", capacity, 0)
		kv := float64(st.KVBytes) / GiB
		switch {
		case !v1 && !near(kv, 7.71, 0.15):
			t.Errorf("V0 KV cache %.2f GiB, the log's 7.71", kv)
		case v1 && !near(kv, 7.71+0.30-0.73, 0.15):
			// V1 counts the context outside its budget and the graphs inside.
			t.Errorf("V1 KV cache %.2f GiB, the log's 7.71 with its non-torch 0.30 and less V1's graph estimate", kv)
		case v1 && phases[PhaseRollout].Total() != st.Budget+prof.EnginePreloadBytes:
			t.Errorf("V1 rollout %d bytes, want its budget and context only (graphs and activations are inside)", phases[PhaseRollout].Total())
		}
	}
}

// SGLang's runtime beyond its fraction, against SGLang 0.4.3's L4 log
// (didier-durand/llms-in-clouds): 0.53 GiB free once started.
func TestSGLangFromItsLog(t *testing.T) {
	data := []byte(`{"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 5120, "intermediate_size": 27648,
"num_hidden_layers": 64, "num_attention_heads": 40, "num_key_value_heads": 8, "vocab_size": 152064, "max_position_embeddings": 131072}`)
	a, err := ParseHFConfig("config.json", data)
	if err != nil {
		t.Fatal(err)
	}
	i := func(v int) model.IntFact { return model.IntFact{Value: v, Set: true} }
	r := model.EngineSettings{Backend: model.StringFact{Value: "sglang"}, MemFraction: model.FloatFact{Value: 0.85, Set: true},
		TP: i(4), PP: i(1), CUDAGraphMaxBS: i(80), ChunkedPrefill: i(2048)}
	in := Input{Settings: &model.MemorySettings{Framework: "slime", Rollout: r}, Arch: a, Profile: DefaultProfile()}
	w := EngineWorker(in, "rollout", r)
	capacity := int64(2203) * GiB / 100
	st, phases, _ := w.Engine.resolve("rollout", capacity, 0)
	if !near(float64(st.Tokens), 46611, 46611*0.15) {
		t.Errorf("KV pool %d tokens, the log's 46611", st.Tokens)
	}
	if free := float64(capacity-phases[PhaseRollout].Total()) / GiB; free < 0 || free > 2 {
		t.Errorf("%.2f GiB free once started, the log's 0.53", free)
	}
}

// vLLM's engine comes from the profile's vllm_v1 where declared, else from
// the config's VLLM_USE_V1, else vLLM's default V1; the notes say which.
func TestVLLMEngineChoice(t *testing.T) {
	a, _ := LookupTable("qwen2.5-32b", "")
	env := func(v bool) model.BoolFact {
		return model.BoolFact{Value: v, Set: true, Key: "VLLM_USE_V1", Span: model.Span{File: "c.yaml", Line: 9, Col: 30}}
	}
	tests := []struct {
		name     string
		profile  float64 // -1: not declared
		v1       model.BoolFact
		v0       bool
		note     string // a note the worker must have
		assumeV1 bool   // whether the V1 assumption is noted
	}{
		{"nothing said", -1, model.BoolFact{}, false, "", true},
		{"config V0", -1, env(false), true, "VLLM_USE_V1: 0 at c.yaml:9:30", false},
		{"config V1", -1, env(true), false, "", false},
		{"profile V0 over config V1", 0, env(true), true, "vllm_v1: 0 in the profile", false},
		{"profile V1 over config V0", 1, env(false), false, "", false},
	}
	for _, tt := range tests {
		prof := DefaultProfile()
		prof.Spans = map[string]model.Span{}
		if tt.profile >= 0 {
			prof.VLLMV1, prof.Spans["vllm_v1"] = tt.profile, model.Span{File: "p.yaml", Line: 1, Col: 1}
		}
		r := model.EngineSettings{Backend: model.StringFact{Value: "vllm", Set: true}, MemFraction: model.FloatFact{Value: 0.9, Set: true},
			TP: model.IntFact{Value: 2, Set: true}, PP: model.IntFact{Value: 1, Set: true}, V1: tt.v1}
		in := Input{Settings: &model.MemorySettings{Framework: "rlinf", Rollout: r}, Arch: a, Profile: prof}
		w := EngineWorker(in, "rollout", r)
		notes := strings.Join(w.Notes, "\n")
		if w.Engine.V0 != tt.v0 {
			t.Errorf("%s: V0 %v, want %v", tt.name, w.Engine.V0, tt.v0)
		}
		if tt.note != "" && !strings.Contains(notes, tt.note) {
			t.Errorf("%s: notes lack %q:\n%s", tt.name, tt.note, notes)
		}
		if got := strings.Contains(notes, "vLLM's V1 engine"); got != tt.assumeV1 {
			t.Errorf("%s: V1 assumed in the notes %v, want %v:\n%s", tt.name, got, tt.assumeV1, notes)
		}
	}
}
