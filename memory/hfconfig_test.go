package memory

import (
	"errors"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

const qwen7bConfig = `{
  "architectures": ["Qwen2ForCausalLM"],
  "hidden_size": 3584,
  "intermediate_size": 18944,
  "max_position_embeddings": 131072,
  "model_type": "qwen2",
  "num_attention_heads": 28,
  "num_hidden_layers": 28,
  "num_key_value_heads": 4,
  "rms_norm_eps": 1e-06,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "vocab_size": 152064
}`

func TestParseHFConfig(t *testing.T) {
	tests := []struct {
		name string
		json string
		want func(a Arch) string
	}{
		{"qwen2.5-7b", qwen7bConfig, func(a Arch) string {
			if a.HiddenSize != 3584 || a.NumLayers != 28 || a.NumKVHeads != 4 || a.HeadDim != 128 || a.TieEmbeddings || !a.QKVBias || a.QKNorm || !a.Gated {
				return "fields"
			}
			if p := a.Params(); p != 7615616512 { // the published 7.62B, QKV bias included
				return "params"
			}
			return ""
		}},
		{"defaults: kv heads = heads, head_dim = h/heads", `{"model_type":"llama","hidden_size":4096,"num_hidden_layers":32,
			"num_attention_heads":32,"intermediate_size":11008,"vocab_size":32000,"head_dim":null}`, func(a Arch) string {
			if a.NumKVHeads != 32 || a.HeadDim != 128 || a.TieEmbeddings {
				return "defaults"
			}
			return ""
		}},
		{"qwen3 moe", `{"architectures":["Qwen3MoeForCausalLM"],"model_type":"qwen3_moe","hidden_size":2048,"num_hidden_layers":48,
			"num_attention_heads":32,"num_key_value_heads":4,"head_dim":128,"intermediate_size":6144,"vocab_size":151936,
			"num_experts":128,"num_experts_per_tok":8,"moe_intermediate_size":768,"decoder_sparse_step":1,"tie_word_embeddings":false}`,
			func(a Arch) string {
				if a.NumExperts != 128 || a.TopK != 8 || !a.QKNorm || a.moeLayers() != 48 {
					return "moe"
				}
				return ""
			}},
		{"deepseek mla with dense first layer", `{"model_type":"deepseek_v3","hidden_size":2048,"num_hidden_layers":27,"num_attention_heads":16,
			"num_key_value_heads":16,"intermediate_size":11264,"vocab_size":163840,"n_routed_experts":64,"num_experts_per_tok":6,
			"moe_intermediate_size":1408,"n_shared_experts":2,"first_k_dense_replace":1,"kv_lora_rank":512,"q_lora_rank":null,
			"qk_nope_head_dim":128,"qk_rope_head_dim":64,"v_head_dim":128,"tie_word_embeddings":false}`, func(a Arch) string {
			if !a.MLA || a.SharedExpertSize != 2816 || a.moeLayers() != 26 || a.QLoRARank != 0 {
				return "mla"
			}
			return ""
		}},
		{"VLM text_config", `{"model_type":"qwen3_vl","architectures":["Qwen3VLForConditionalGeneration"],
			"vision_config":{"hidden_size":1024},"text_config":{"model_type":"qwen3_vl_text","hidden_size":2048,
			"num_hidden_layers":28,"num_attention_heads":16,"num_key_value_heads":8,"head_dim":128,"intermediate_size":6144,
			"vocab_size":151936,"tie_word_embeddings":true}}`, func(a Arch) string {
			if a.HiddenSize != 2048 || a.NumLayers != 28 || !a.QKNorm || a.ModelType != "qwen3_vl/qwen3_vl_text" {
				return "text config"
			}
			return ""
		}},
		{"fp32 dtype", `{"model_type":"gpt2x","hidden_size":8,"num_hidden_layers":2,"num_attention_heads":2,"vocab_size":10,
			"torch_dtype":"float32","hidden_act":"gelu"}`, func(a Arch) string {
			if a.DtypeBytes != 4 || !a.LayerNorm || a.Gated {
				return "dtype/norm"
			}
			return ""
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ParseHFConfig("config.json", []byte(tt.json))
			if err != nil {
				t.Fatal(err)
			}
			if why := tt.want(a); why != "" {
				t.Errorf("%s: %+v", why, a)
			}
		})
	}
}

func TestParseHFConfigErrors(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"syntax", "{\n  \"hidden_size\": 12,\n  \"num_hidden_layers\" 3\n}", "config.json:3:23: invalid JSON"},
		{"wrong type", "{\n  \"hidden_size\": \"big\"\n}", "config.json:2:18: hidden_size must be a whole number"},
		{"fraction", `{"hidden_size": 1.5}`, "config.json:1:17: hidden_size must be a whole number"},
		{"negative", `{"num_hidden_layers": -2}`, "config.json:1:23: num_hidden_layers must be"},
		{"bool", `{"tie_word_embeddings": 1}`, "config.json:1:25: tie_word_embeddings must be true or false"},
		{"missing", `{"model_type": "bert"}`, "no hidden_size"},
		{"not an object", `[1, 2]`, "config.json:1:1: expected a JSON object"},
		{"trailing", `{"hidden_size": 1} x`, "config.json:1:20: unexpected text"},
		{"truncated", `{"hidden_size": 1`, "ends too early"},
		{"too many layers", `{"hidden_size":8,"num_hidden_layers":100000,"num_attention_heads":2,"vocab_size":10}`, "num_hidden_layers is 100000"},
		{"too large", `{"x": "` + strings.Repeat("a", MaxConfigBytes) + `"}`, "is read up to"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseHFConfig("config.json", []byte(tt.json))
			wantInputError(t, err, tt.want)
		})
	}
}

func FuzzParseHFConfig(f *testing.F) {
	f.Add([]byte(qwen7bConfig))
	f.Add([]byte(`{"text_config":{"hidden_size":1}}`))
	f.Add([]byte(`{"hidden_size":8,"num_hidden_layers":2,"num_attention_heads":2,"vocab_size":10,"kv_lora_rank":4}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ParseHFConfig("f.json", data)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || ie.Span.File != "f.json" {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		if err := a.Validate(); err != nil {
			t.Fatalf("accepted an invalid architecture: %v", err)
		}
		if a.Params() < 0 || KVCellBytes(a, 8, 1, 2) <= 0 {
			t.Fatalf("nonsense sizes for %+v", a)
		}
		// Whatever the architecture, the whole model stays finite.
		s := &model.MemorySettings{Framework: "rlinf", Batch: model.BatchSettings{SeqLength: model.IntFact{Value: 4096}},
			Actor: model.TrainerSettings{TP: model.IntFact{Value: 2}}, Rollout: model.EngineSettings{MemFraction: model.FloatFact{Value: 0.6}}}
		ws := Workers(Input{Settings: s, Arch: a, Profile: DefaultProfile(), Layout: Layout{Collocated: true, ActorGPUs: 8}})
		r := Aggregate(GPU{CapacityBytes: 80 * GiB, Workers: []Worker{ws["rollout"], ws["actor"]}})
		if r.PeakBytes < 0 || r.PeakBytes > 1<<62 {
			t.Fatalf("peak %d", r.PeakBytes)
		}
		_ = Check([]GPUReport{r}, DefaultProfile())
	})
}

// wantInputError asserts a located input error whose text contains want.
func wantInputError(t *testing.T, err error, want string) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("got %v, want an InputError", err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("got %q, want it to contain %q", err.Error(), want)
	}
}

func TestParseHFConfigOverflow(t *testing.T) {
	_, err := ParseHFConfig("config.json", []byte(`{"hidden_size":16000000,"num_hidden_layers":60000,"num_attention_heads":2,
		"vocab_size":10,"num_experts":16000000,"moe_intermediate_size":16000000}`))
	wantInputError(t, err, "more than 2^60 parameters")
}
