package memory

import (
	"fmt"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// What a process leaves on a GPU once released or offloaded, per framework,
// engine and model family, each from its public source. The process's own
// CUDA context and NCCL buffers (the profile) are the floor; these add what
// the sources measured beyond it.
//
// Megatron MoE actors with expert parallelism keep an NCCL communicator per
// parallel group: slime measured 15-18 GB left on a GPU after offloading
// such an actor, 3-5 GB once it destroys the groups while offloaded (its
// "NCCL offload", always on; THUDM/slime docs/en/blogs/release_v0.1.0.md,
// "How to Offload NCCL"). RLinf offloads tensors and keeps the groups.
const (
	moeResidueSlime = 5e9  // slime: 3-5 GB, the upper end
	moeResidueKept  = 18e9 // NCCL groups kept: 15-18 GB, the upper end
)

// offloadResidue is what an offloaded Megatron trainer leaves beyond its
// context and NCCL buffers: nothing for dense models; for MoE models with
// expert parallelism, the measured residue less what ctx counts.
func (in Input) offloadResidue(t *model.TrainerSettings, ctx Usage) (Part, bool) {
	if in.Arch.NumExperts == 0 || t.EP.Value <= 1 {
		return Part{}, false
	}
	total, src := moeResidueKept, "NCCL groups of an offloaded MoE actor kept: 15-18 GB (THUDM/slime docs/en/blogs/release_v0.1.0.md)"
	if in.Settings.Framework == "slime" {
		total, src = moeResidueSlime, "an offloaded MoE actor with slime's NCCL offload: 3-5 GB (THUDM/slime docs/en/blogs/release_v0.1.0.md)"
	}
	return part(KindNCCL, total-float64(ctx.Total()), src+", less the context counted"), true
}

// assumptions are the inputs the estimate needs that the input does not
// say, each with the value assumed and where a user gives the real one.
func (in Input) engineAssumptions(component string, r model.EngineSettings, kind string) []string {
	var out []string
	if _, ok := in.Profile.Spans["engine_preload_gib"]; !ok {
		out = append(out, "a Linux server GPU: 0.40 GiB in use before the engine loads (a desktop or WSL2 holds more, "+
			"0.93 GiB in jerryzsj/my-deepseek-r1's log; engine_preload_gib in --mem-profile)")
	}
	if !r.Quantization.Set && !r.Precision.Set {
		out = append(out, fmt.Sprintf("weights in the checkpoint's dtype, %d B/param (FP8 is read from --sglang-quantization fp8)", max(in.Arch.DtypeBytes, 2)))
	}
	switch {
	case kind == "vllm":
		if _, ok := in.Profile.Spans["vllm_v1"]; !ok && !r.V1.Set {
			out = append(out, "vLLM's V1 engine, which refuses to start with less free than its budget (VLLM_USE_V1: 0 in env_configs, or vllm_v1: 0 in --mem-profile, for V0)")
		}
	case !r.MemFraction.Set:
		out = append(out, "SGLang's default mem_fraction_static as server_args.py computes it since PR #10975 (older versions used fixed values)")
	}
	if r.DeepEP.Value {
		out = append(out, deepEPNote(component))
	}
	if len(out) == 0 {
		return nil
	}
	return []string{component + " assumes " + strings.Join(out, "; ")}
}

// fp8Weights reports whether the engine loads FP8 weights.
func fp8Weights(q model.StringFact) bool {
	return strings.Contains(strings.ToLower(q.Value), "fp8")
}

// vllmV0 reports whether a vLLM engine runs V0: the profile's vllm_v1 where
// it declares one (a measurement of the run), else the config's
// VLLM_USE_V1, else vLLM's default, V1.
func (in Input) vllmV0(r model.EngineSettings) bool {
	if _, ok := in.Profile.Spans["vllm_v1"]; ok || !r.V1.Set {
		return in.Profile.VLLMV1 < 0.5
	}
	return !r.V1.Value
}

// vllmSource names what chose the vLLM engine, for the notes.
func (in Input) vllmSource(r model.EngineSettings) string {
	if _, ok := in.Profile.Spans["vllm_v1"]; ok || !r.V1.Set {
		return "vllm_v1: 0 in the profile"
	}
	return fmt.Sprintf("%s: 0 at %s", r.V1.Key, r.V1.Span)
}

// deepEPNote says that DeepEP's buffers are not counted, with the one public
// measurement of their size to go by: about 3.1 GB a GPU in DeepEP's own
// low-latency test at DeepSeek-V3's shapes (deepseek-ai/DeepEP#510, PyTorch
// 2.8.1; more under 2.9.1). They grow with the hidden size, the experts and
// the tokens dispatched per rank, which that one number does not give, so it
// is quoted rather than counted.
func deepEPNote(component string) string {
	return fmt.Sprintf("DeepEP's buffers are not modelled (about 3.1 GB a GPU in DeepEP's low-latency test at DeepSeek-V3's shapes, "+
		"deepseek-ai/DeepEP#510; declare them with %s%s in --mem-profile)", componentPrefix, component)
}
