package memory

import (
	"fmt"

	"github.com/rlsolve/rlsolve/model"
)

// EngineWorker is a rollout engine of component: SGLang or vLLM sized by
// a fraction, or RLinf's Hugging Face generator (embodied policies)
// holding its weights. in.Arch is the engine's model.
func EngineWorker(in Input, component string, r model.EngineSettings) Worker {
	s := in.Settings
	a := in.Arch
	tp, pp := parallel(r.TP.Value), parallel(r.PP.Value)
	pb := precisionBytes(r.Precision, max(a.DtypeBytes, 1))
	wb := float64(pb)
	if fp8Weights(r.Quantization) {
		wb = 1 // FP8 weights; the KV cache keeps its dtype
	}
	weights := float64(a.Params()) * wb / float64(tp*pp)
	w := Worker{Component: component, StartOrder: 0}
	w.Drivers = Drivers{in.modelDriver(), intDriver(RoleEngineTP, r.TP), floatDriver(RoleFraction, r.MemFraction),
		boolDriver(RoleEngineOffld, r.Offload), intDriver(RoleRunningReqs, r.MaxRunningRequests)}
	offloaded := r.Offload.Value || in.Layout.Collocated && s.Framework == "rlinf"
	switch r.Backend.Value {
	case "sglang", "vllm", "":
		seq, ds := in.seqLength()
		w.Drivers = append(w.Drivers, ds...)
		graphs, graphSrc := engineGraphs(in.Profile, r.CUDAGraphMaxBS.Value)
		if r.EnforceEager.Value {
			graphs, graphSrc = 0, "no CUDA graphs (enforce_eager)"
		}
		kind := r.Backend.Value
		if kind == "" {
			kind = "sglang"
		}
		page := 1
		if kind == "vllm" {
			page = 16
		}
		w.Engine = &Engine{Kind: kind, Fraction: r.MemFraction.Value, WeightsBytes: weights,
			CellBytes: KVCellBytes(a, tp, pp, pb), PageSize: page, SeqTokens: int64(min(max(seq, 0), maxTokens)), Offloaded: offloaded,
			TP: tp, PP: pp, ChunkedPrefill: r.ChunkedPrefill.Value, CUDAGraphMaxBS: r.CUDAGraphMaxBS.Value,
			ContextBytes: in.Profile.EnginePreloadBytes, GraphBytes: graphs, ActivationBytes: in.Profile.EngineActivationBytes,
			ContextSource: in.Profile.Source("engine_preload_gib") + ", before the engine loads (0.40 GiB in SGLang 0.4.3's L4 log)",
			GraphSource:   graphSrc, ActivationSource: in.Profile.Source("engine_activation_gib"),
			V0: kind == "vllm" && in.vllmV0(r)}
		if kind == "vllm" {
			in.vllmOverheads(w.Engine, r)
		} else {
			w.Engine.WeightsBytes += sglangLoadExtra
		}
		if _, declared := in.Profile.Spans["engine_activation_gib"]; !declared && kind == "sglang" {
			w.Engine.Runtime = &sglangRuntime{Hidden: a.HiddenSize, FFN: max(a.FFNSize, a.MoEFFNSize*max(a.TopK, 1)), TP: tp,
				ContextLen: engineContext(r, a), ContextKey: engineContextKey(r), MaxRunning: r.MaxRunningRequests.Value, ChunkedPrefill: r.ChunkedPrefill.Value}
		}
		w.Notes = append(w.Notes, in.engineAssumptions(component, r, kind)...)
		if kind == "vllm" && w.Engine.V0 {
			w.Notes = append(w.Notes, fmt.Sprintf("%s: vLLM V0 (%s): no free-memory check at start; its KV cache is what the GPU's fraction leaves after everything resident", component, in.vllmSource(r)))
		}
		return w
	}
	// A Hugging Face generator holds its weights and generates in place.
	ctx := in.context()
	wp := part(KindWeights, weights, fmt.Sprintf("%s weights, %d B/param / TP %d", a.Name, pb, tp))
	running := join(ctx, Usage{wp})
	if b, ok := in.Profile.Components[component]; ok {
		running = append(running, part(KindProfiled, float64(b), in.Profile.Source(componentPrefix+component)))
	} else {
		w.Notes = append(w.Notes, fmt.Sprintf("%s's generation activations are not modelled; declare them with %s%s in --mem-profile", component, componentPrefix, component))
	}
	for p := range w.Phases {
		w.Phases[p] = running
		if offloaded && Phase(p) != PhaseRollout && Phase(p) != PhaseInit && Phase(p) != PhaseWeightSync {
			w.Phases[p] = ctx
		}
	}
	w.AfterStart = running
	if offloaded {
		w.AfterStart = ctx
	}
	return w
}

// vllmOverheads puts vLLM's logged activation peak and CUDA-graph estimate
// (engine_overhead.go) in place of the profile's defaults, unless the
// profile gives them.
func (in Input) vllmOverheads(e *Engine, r model.EngineSettings) {
	if _, declared := in.Profile.Spans["engine_activation_gib"]; !declared {
		e.ActivationBytes, e.ActivationSource = vllmActivationBytes, "vLLM's profiled activation peak, 1.26-1.42 GiB in its logs (vllm#15815, vllm#13882)"
	}
	if _, declared := in.Profile.Spans["cuda_graph_gib"]; !declared && !r.EnforceEager.Value && r.CUDAGraphMaxBS.Value <= 0 {
		e.GraphBytes, e.GraphSource = vllmGraphBytes, "vLLM V1's CUDA graph estimate for its default sizes, 0.73 GiB (vllm#39559)"
	}
}

// engineContext is the engine's context_len: its own setting, else the
// model's max_position_embeddings (0 when unknown).
func engineContext(r model.EngineSettings, a Arch) int {
	if r.ContextLength.Value > 0 {
		return r.ContextLength.Value
	}
	return a.MaxPositions
}

func engineContextKey(r model.EngineSettings) string {
	if r.ContextLength.Value > 0 {
		return r.ContextLength.Key
	}
	return "max_position_embeddings"
}
