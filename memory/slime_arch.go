package memory

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// ArchFromMegatronFlags builds the architecture from Megatron's model flags
// (slime's MODEL_ARGS): ok is false when they do not describe a model
// (no --num-layers, --hidden-size, --num-attention-heads or --vocab-size).
func ArchFromMegatronFlags(flags map[string]model.FlagValue) (Arch, bool, error) {
	for _, k := range []string{"num-layers", "hidden-size", "num-attention-heads", "vocab-size"} {
		if _, ok := flags[k]; !ok {
			return Arch{}, false, nil
		}
	}
	num := func(name string, def int) (int, error) {
		v, ok := flags[name]
		if !ok {
			return def, nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(v.Text))
		if err != nil || n < 0 || n > archMax {
			return 0, &InputError{Span: v.Span, Msg: fmt.Sprintf("--%s must be a whole number, but got %q", name, clip(v.Text))}
		}
		return n, nil
	}
	has := func(name string) bool { _, ok := flags[name]; return ok }
	a := Arch{Name: "model flags", ModelType: "megatron", Gated: has("swiglu"), QKVBias: has("add-qkv-bias"),
		QKNorm: has("qk-layernorm"), TieEmbeddings: !has("untie-embeddings-and-output-weights"), MLA: has("multi-latent-attention"),
		LayerNorm: strings.TrimSpace(flags["normalization"].Text) == "LayerNorm", DtypeBytes: 2}
	ints := []struct {
		name string
		dst  *int
		def  int
	}{
		{"num-layers", &a.NumLayers, 0}, {"hidden-size", &a.HiddenSize, 0}, {"num-attention-heads", &a.NumHeads, 0},
		{"vocab-size", &a.VocabSize, 0}, {"ffn-hidden-size", &a.FFNSize, 0}, {"num-experts", &a.NumExperts, 0},
		{"moe-ffn-hidden-size", &a.MoEFFNSize, 0}, {"moe-router-topk", &a.TopK, 0},
		{"moe-shared-expert-intermediate-size", &a.SharedExpertSize, 0}, {"kv-lora-rank", &a.KVLoRARank, 0},
		{"q-lora-rank", &a.QLoRARank, 0}, {"qk-head-dim", &a.QKNopeHeadDim, 0}, {"qk-pos-emb-head-dim", &a.QKRopeHeadDim, 0},
		{"v-head-dim", &a.VHeadDim, 0},
	}
	for _, f := range ints {
		v, err := num(f.name, f.def)
		if err != nil {
			return Arch{}, false, err
		}
		*f.dst = v
	}
	var err error
	if a.NumHeads == 0 {
		return Arch{}, false, &InputError{Span: flags["num-attention-heads"].Span, Msg: "--num-attention-heads must be at least 1"}
	}
	if a.HeadDim, err = num("kv-channels", a.HiddenSize/a.NumHeads); err != nil {
		return Arch{}, false, err
	}
	a.NumKVHeads = a.NumHeads
	if has("group-query-attention") {
		if a.NumKVHeads, err = num("num-query-groups", 1); err != nil {
			return Arch{}, false, err
		}
	}
	if a.FFNSize == 0 {
		a.FFNSize = 4 * a.HiddenSize // Megatron's default
	}
	if a.FirstDense, err = firstDense(flags["moe-layer-freq"], a.NumLayers); err != nil {
		return Arch{}, false, err
	}
	if err := a.Validate(); err != nil {
		return Arch{}, false, &InputError{Span: flagsSpan(flags), Msg: "the model flags: " + err.Error()}
	}
	return a, true, nil
}

// firstDense reads --moe-layer-freq as slime's scripts write it: an
// interval of 1 or a list like [0]*k+[1]*(L-k) (first k layers dense).
// Other patterns are taken as all-MoE after the leading dense layers.
func firstDense(v model.FlagValue, layers int) (int, error) {
	t := strings.TrimSpace(strings.Trim(strings.TrimSpace(v.Text), "'\""))
	if t == "" || !strings.HasPrefix(t, "[") {
		return 0, nil
	}
	inner := strings.Trim(t, "[]")
	if strings.Contains(inner, "*") {
		// "[0]*3+[1]*58": Megatron evaluates the expression.
		k, _, _ := strings.Cut(strings.TrimPrefix(inner, "0]*"), "+")
		if n, err := strconv.Atoi(strings.TrimSpace(k)); err == nil && n >= 0 && n <= layers {
			return n, nil
		}
		return 0, &InputError{Span: v.Span, Msg: fmt.Sprintf("--moe-layer-freq %q is not a pattern rlsolve reads", clip(v.Text))}
	}
	n := 0
	for _, x := range strings.Split(inner, ",") {
		if strings.TrimSpace(x) != "0" {
			break
		}
		n++
	}
	return min(n, layers), nil
}
