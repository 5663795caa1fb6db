package memory

import (
	"encoding/json"
	"fmt"
	"strings"
)

// MaxConfigBytes bounds a config.json (real ones are a few kilobytes).
const MaxConfigBytes = 1 << 20

// hfKeys are the config.json keys read, by the field they set.
var hfIntKeys = map[string]func(*Arch) *int{
	"hidden_size":                     func(a *Arch) *int { return &a.HiddenSize },
	"num_hidden_layers":               func(a *Arch) *int { return &a.NumLayers },
	"num_attention_heads":             func(a *Arch) *int { return &a.NumHeads },
	"num_key_value_heads":             func(a *Arch) *int { return &a.NumKVHeads },
	"head_dim":                        func(a *Arch) *int { return &a.HeadDim },
	"intermediate_size":               func(a *Arch) *int { return &a.FFNSize },
	"vocab_size":                      func(a *Arch) *int { return &a.VocabSize },
	"num_experts":                     func(a *Arch) *int { return &a.NumExperts },
	"n_routed_experts":                func(a *Arch) *int { return &a.NumExperts },
	"num_local_experts":               func(a *Arch) *int { return &a.NumExperts },
	"num_experts_per_tok":             func(a *Arch) *int { return &a.TopK },
	"moe_intermediate_size":           func(a *Arch) *int { return &a.MoEFFNSize },
	"shared_expert_intermediate_size": func(a *Arch) *int { return &a.SharedExpertSize },
	"first_k_dense_replace":           func(a *Arch) *int { return &a.FirstDense },
	"decoder_sparse_step":             func(a *Arch) *int { return &a.MoEEvery },
	"q_lora_rank":                     func(a *Arch) *int { return &a.QLoRARank },
	"kv_lora_rank":                    func(a *Arch) *int { return &a.KVLoRARank },
	"qk_nope_head_dim":                func(a *Arch) *int { return &a.QKNopeHeadDim },
	"qk_rope_head_dim":                func(a *Arch) *int { return &a.QKRopeHeadDim },
	"v_head_dim":                      func(a *Arch) *int { return &a.VHeadDim },
	"max_position_embeddings":         func(a *Arch) *int { return &a.MaxPositions },
}

// hfConfig is what was read of one config.json, before defaults.
type hfConfig struct {
	arch          Arch
	set           map[string]bool
	nSharedExp    int
	architectures []string
	dtype         string
	attnBias      *bool
	tie           *bool
	text          *hfConfig // text_config of a VLM
}

// ParseHFConfig reads a Hugging Face config.json into an architecture.
// Errors name the file, line and column; a VLM's text_config is used for
// the language model, as RLinf does.
func ParseHFConfig(file string, data []byte) (Arch, error) {
	src := source{file: file, data: data}
	if len(data) > MaxConfigBytes {
		return Arch{}, &InputError{Span: src.span(0, 1), Msg: fmt.Sprintf("%s is %d bytes; a model config.json is read up to %d", file, len(data), MaxConfigBytes)}
	}
	c, err := src.hfObject(0, len(data), 0)
	if err != nil {
		return Arch{}, err
	}
	if c.text != nil && !c.set["hidden_size"] {
		c.text.architectures = c.architectures
		c.text.arch.ModelType = c.arch.ModelType + "/" + c.text.arch.ModelType
		c = c.text
	}
	a, err := c.finish()
	if err != nil {
		return Arch{}, &InputError{Span: src.span(0, 1), Msg: fmt.Sprintf("%s: %v", file, err)}
	}
	return a, nil
}

// hfObject reads one object's keys; text_config is read one level down.
func (s source) hfObject(from, to, depth int) (*hfConfig, error) {
	ms, err := s.objectMembers(from, to)
	if err != nil {
		return nil, err
	}
	c := &hfConfig{set: map[string]bool{}}
	for _, m := range ms {
		if string(m.value) == "null" {
			continue
		}
		if err := s.hfMember(c, m, depth); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (s source) hfMember(c *hfConfig, m member, depth int) error {
	bad := func(want string) error {
		return s.errorf(m.off, len(m.value), "%s must be %s, but got %s", m.key, want, clip(string(m.value)))
	}
	if f, ok := hfIntKeys[m.key]; ok {
		v, ok := jsonInt(m.value)
		if !ok || v < 0 || v > archMax {
			return bad(fmt.Sprintf("a whole number from 0 to %d", archMax))
		}
		*f(&c.arch) = v
		c.set[m.key] = true
		return nil
	}
	switch m.key {
	case "n_shared_experts":
		v, ok := jsonInt(m.value)
		if !ok || v < 0 || v > archMax {
			return bad("a whole number")
		}
		c.nSharedExp = v
	case "tie_word_embeddings", "attention_bias":
		var b bool
		if json.Unmarshal(m.value, &b) != nil {
			return bad("true or false")
		}
		if m.key == "tie_word_embeddings" {
			c.tie = &b
		} else {
			c.attnBias = &b
		}
	case "model_type", "torch_dtype", "dtype", "hidden_act":
		var str string
		if json.Unmarshal(m.value, &str) != nil {
			return bad("a string")
		}
		switch m.key {
		case "model_type":
			c.arch.ModelType = str
		case "hidden_act":
			c.set["act:"+str] = true
		default:
			c.dtype = str
		}
	case "architectures":
		if json.Unmarshal(m.value, &c.architectures) != nil {
			return bad("a list of strings")
		}
	case "text_config", "llm_config":
		if depth > 0 || c.text != nil {
			return nil
		}
		t, err := s.hfObject(m.off, m.off+len(m.value), depth+1)
		if err != nil {
			return err
		}
		c.text = t
	}
	return nil
}

// finish applies the Transformers defaults and the per-family facts.
func (c *hfConfig) finish() (Arch, error) {
	a := c.arch
	for _, k := range []string{"hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size"} {
		if !c.set[k] {
			return Arch{}, fmt.Errorf("no %s: not a language model's config", k)
		}
	}
	if a.NumHeads == 0 {
		return Arch{}, fmt.Errorf("num_attention_heads is 0")
	}
	if !c.set["num_key_value_heads"] || a.NumKVHeads == 0 {
		a.NumKVHeads = a.NumHeads
	}
	if !c.set["head_dim"] || a.HeadDim == 0 {
		a.HeadDim = a.HiddenSize / a.NumHeads
	}
	a.Name = a.ModelType
	fam := strings.ToLower(a.ModelType + " " + strings.Join(c.architectures, " "))
	a.TieEmbeddings = c.tie != nil && *c.tie
	if c.tie == nil {
		// Absent: Gemma's config class ties; Llama, Qwen, Mistral and
		// DeepSeek do not, and untied is the larger (safer) count.
		a.TieEmbeddings = strings.Contains(fam, "gemma")
	}
	a.QKVBias = strings.Contains(fam, "qwen2") || c.attnBias != nil && *c.attnBias
	a.QKNorm = strings.Contains(fam, "qwen3")
	a.LayerNorm = c.set["act:gelu"] && !strings.Contains(fam, "gemma")
	a.Gated = !a.LayerNorm
	a.MLA = a.KVLoRARank > 0
	if c.nSharedExp > 0 && a.SharedExpertSize == 0 {
		a.SharedExpertSize = c.nSharedExp * a.MoEFFNSize
	}
	a.SharedGate = strings.Contains(fam, "qwen2_moe") && a.SharedExpertSize > 0
	if a.NumExperts > 0 && a.TopK == 0 {
		a.TopK = 2 // RLinf's default num_experts_per_tok
	}
	a.DtypeBytes = dtypeBytes(c.dtype)
	return a, a.Validate()
}

// dtypeBytes is a torch_dtype's size; 2 (bf16) when unknown.
func dtypeBytes(dtype string) int {
	switch strings.TrimPrefix(dtype, "torch.") {
	case "float32", "fp32":
		return 4
	case "float8_e4m3fn", "float8_e5m2", "fp8", "int8":
		return 1
	}
	return 2
}

// jsonInt reads a JSON number that is a whole number (1.0 counts; Python's
// json.load would keep it a float, but a config writes sizes whole).
func jsonInt(raw json.RawMessage) (int, bool) {
	var n json.Number
	if json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	if i, err := n.Int64(); err == nil {
		return int(i), i >= -archMax && i <= archMax
	}
	f, err := n.Float64()
	if err != nil || f != float64(int64(f)) || f < -archMax || f > archMax {
		return 0, false
	}
	return int(f), true
}

// clip shortens a value for a message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}
