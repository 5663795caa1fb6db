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
	weights := float64(a.Params()) * float64(pb) / float64(tp*pp)
	ctx := in.context()
	w := Worker{Component: component, StartOrder: 0}
	w.Drivers = Drivers{in.modelDriver(), intDriver(RoleEngineTP, r.TP), floatDriver(RoleFraction, r.MemFraction),
		boolDriver(RoleEngineOffld, r.Offload), intDriver(RoleRunningReqs, r.MaxRunningRequests)}
	offloaded := r.Offload.Value || in.Layout.Collocated && s.Framework == "rlinf"
	switch r.Backend.Value {
	case "sglang", "vllm", "":
		seq, ds := in.seqLength()
		w.Drivers = append(w.Drivers, ds...)
		graphs, graphSrc := in.Profile.GraphBytes, in.Profile.Source("cuda_graph_gib")
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
			ContextBytes: ctx.Total(), GraphBytes: graphs, ActivationBytes: in.Profile.EngineActivationBytes,
			ContextSource: in.Profile.Source("cuda_context_gib") + " + " + in.Profile.Source("nccl_gib"),
			GraphSource:   graphSrc, ActivationSource: in.Profile.Source("engine_activation_gib")}
		return w
	}
	// A Hugging Face generator holds its weights and generates in place.
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
