package memory

import "fmt"

// Arch is a model's architecture: the Hugging Face config.json keys that
// memory depends on (spec/memory.md §2.3), with absent keys filled by the
// Transformers defaults (num_key_value_heads = heads, head_dim = h/heads).
type Arch struct {
	// Name identifies the architecture in messages (the table's name, or
	// the config's model_type).
	Name       string
	ModelType  string
	HiddenSize int
	NumLayers  int
	NumHeads   int
	NumKVHeads int
	HeadDim    int
	FFNSize    int
	VocabSize  int
	// TieEmbeddings shares the input embedding with the output layer.
	TieEmbeddings bool
	// QKVBias (Qwen2) and QKNorm (Qwen3) are counted in the Hugging Face
	// parameter count; Megatron's estimator leaves both out.
	QKVBias bool
	QKNorm  bool
	// LayerNorm is true for LayerNorm (weight and bias), false for RMSNorm.
	LayerNorm bool
	// Gated is a gated MLP (SwiGLU: three matrices).
	Gated bool
	// MoE: routed experts, experts per token, each expert's FFN size, the
	// shared experts' total FFN size (SharedGate: a sigmoid gate on them),
	// the first dense layers and the MoE layer interval.
	NumExperts       int
	TopK             int
	MoEFFNSize       int
	SharedExpertSize int
	SharedGate       bool
	FirstDense       int
	MoEEvery         int
	// MLA (DeepSeek-V2/V3, Moonlight): ranks and head dimensions.
	MLA           bool
	QLoRARank     int
	KVLoRARank    int
	QKNopeHeadDim int
	QKRopeHeadDim int
	VHeadDim      int
	// ExtraParams are parameters outside the language backbone (a VLA's
	// vision towers and action expert): weights, never in the KV cache or
	// the Megatron formula.
	ExtraParams int64
	// ExpertParams is the part of ExtraParams that a VLA trains with
	// train_expert_only (its action expert).
	ExpertParams int64
	// DtypeBytes is the checkpoint's torch_dtype size (2 when unknown).
	DtypeBytes int
	// MaxPositions is max_position_embeddings, the longest context the
	// engine serves (0 when unknown).
	MaxPositions int
}

// archMax bounds every dimension a config may give, so that no product of
// them overflows an int64 and nothing proportional to one is allocated.
const archMax = 1 << 24

// maxLayers bounds the layer count (per-layer patterns are allocated).
const maxLayers = 1 << 16

// Validate reports the first dimension that cannot describe a model.
func (a Arch) Validate() error {
	for _, f := range []struct {
		name string
		v    int
		min  int
	}{
		{"hidden_size", a.HiddenSize, 1},
		{"num_attention_heads", a.NumHeads, 1}, {"num_key_value_heads", a.NumKVHeads, 1},
		{"head_dim", a.HeadDim, 1}, {"intermediate_size", a.FFNSize, 0}, {"vocab_size", a.VocabSize, 1},
		{"num_experts", a.NumExperts, 0}, {"num_experts_per_tok", a.TopK, 0},
		{"moe_intermediate_size", a.MoEFFNSize, 0}, {"shared_expert_intermediate_size", a.SharedExpertSize, 0},
		{"first_k_dense_replace", a.FirstDense, 0}, {"decoder_sparse_step", a.MoEEvery, 0},
		{"q_lora_rank", a.QLoRARank, 0}, {"kv_lora_rank", a.KVLoRARank, 0},
		{"qk_nope_head_dim", a.QKNopeHeadDim, 0}, {"qk_rope_head_dim", a.QKRopeHeadDim, 0}, {"v_head_dim", a.VHeadDim, 0},
	} {
		if f.v < f.min || f.v > archMax {
			return fmt.Errorf("%s is %d; expected %d to %d", f.name, f.v, f.min, archMax)
		}
	}
	if a.NumLayers < 1 || a.NumLayers > maxLayers {
		return fmt.Errorf("num_hidden_layers is %d; expected 1 to %d", a.NumLayers, maxLayers)
	}
	if a.ExtraParams < 0 || a.ExtraParams > 1<<50 {
		return fmt.Errorf("extra parameters %d out of range", a.ExtraParams)
	}
	if a.sizeBound() > 1<<60 {
		return fmt.Errorf("the dimensions describe more than 2^60 parameters")
	}
	if a.MLA && a.KVLoRARank == 0 {
		return fmt.Errorf("multi-latent attention needs kv_lora_rank")
	}
	return nil
}

// sizeBound is an upper bound of the parameter count in floating point,
// so that Validate can refuse dimensions whose int64 products overflow.
func (a Arch) sizeBound() float64 {
	h, l := float64(a.HiddenSize), float64(a.NumLayers)
	d := float64(max(a.HeadDim, a.QKNopeHeadDim+a.QKRopeHeadDim, a.VHeadDim, a.KVLoRARank, a.QLoRARank, 1))
	heads := float64(a.NumHeads + a.NumKVHeads)
	ffn := float64(a.FFNSize) + float64(a.NumExperts)*(float64(a.MoEFFNSize)+h) + float64(a.SharedExpertSize)
	return l*(4*(h+d)*heads*d+3*h*ffn+4*h) + 2*h*float64(a.VocabSize) + float64(a.ExtraParams)
}

// isMoELayer says whether layer i (from 0) has routed experts, as
// DeepSeek's first_k_dense_replace and Qwen-MoE's decoder_sparse_step say.
func (a Arch) isMoELayer(i int) bool {
	if a.NumExperts == 0 || i < a.FirstDense {
		return false
	}
	every := max(a.MoEEvery, 1)
	return (i+1)%every == 0
}

// moeLayers counts the layers with routed experts.
func (a Arch) moeLayers() int {
	if a.NumExperts == 0 {
		return 0
	}
	every := max(a.MoEEvery, 1)
	if every == 1 {
		return max(a.NumLayers-a.FirstDense, 0)
	}
	n := 0
	for i := a.FirstDense; i < a.NumLayers; i++ {
		if a.isMoELayer(i) {
			n++
		}
	}
	return n
}

// attentionParams is one layer's attention, as Hugging Face counts it.
func (a Arch) attentionParams() int64 {
	h, heads := int64(a.HiddenSize), int64(a.NumHeads)
	if a.MLA {
		qk := int64(a.QKNopeHeadDim + a.QKRopeHeadDim)
		q := h * heads * qk
		if a.QLoRARank > 0 {
			r := int64(a.QLoRARank)
			q = h*r + r + r*heads*qk
		}
		kv := int64(a.KVLoRARank)
		return q + h*(kv+int64(a.QKRopeHeadDim)) + kv + kv*heads*int64(a.QKNopeHeadDim+a.VHeadDim) + heads*int64(a.VHeadDim)*h
	}
	d, g := int64(a.HeadDim), int64(a.NumKVHeads)
	p := 2*h*heads*d + 2*h*g*d
	if a.QKVBias {
		p += heads*d + 2*g*d
	}
	if a.QKNorm {
		p += 2 * d
	}
	return p
}

func (a Arch) mlpMatrices() int64 {
	if a.Gated {
		return 3
	}
	return 2
}

func (a Arch) normParams() int64 {
	if a.LayerNorm {
		return 2 * int64(a.HiddenSize)
	}
	return int64(a.HiddenSize)
}

// LayerParams is one decoder layer's parameters (MoE layers with every
// expert).
func (a Arch) LayerParams(moe bool) int64 {
	h := int64(a.HiddenSize)
	p := a.attentionParams() + 2*a.normParams()
	if !moe {
		return p + a.mlpMatrices()*h*int64(a.FFNSize)
	}
	e := int64(a.NumExperts)
	p += h*e + e*a.mlpMatrices()*h*int64(a.MoEFFNSize) + a.mlpMatrices()*h*int64(a.SharedExpertSize)
	if a.SharedGate && a.SharedExpertSize > 0 {
		p += h
	}
	return p
}

// EmbeddingParams are the input embedding and, when untied, the output
// layer.
func (a Arch) EmbeddingParams() int64 {
	e := int64(a.VocabSize) * int64(a.HiddenSize)
	if !a.TieEmbeddings {
		e *= 2
	}
	return e
}

// Params is the Hugging Face parameter count: embeddings, every layer, the
// final norm, and ExtraParams.
func (a Arch) Params() int64 {
	moe := int64(a.moeLayers())
	dense := int64(a.NumLayers) - moe
	return a.EmbeddingParams() + dense*a.LayerParams(false) + moe*a.LayerParams(true) + a.normParams() + a.ExtraParams
}

// LargestUnitParams is the largest FSDP wrapping unit: one decoder layer or
// the root's embeddings, whichever is larger.
func (a Arch) LargestUnitParams() int64 {
	l := a.LayerParams(a.NumExperts > 0)
	return max(l, a.EmbeddingParams())
}
