package memory

import (
	"fmt"

	"github.com/rlsolve/rlsolve/model"
)

// precisionBytes is a precision's bytes per parameter; unset gives def
// (a trainer's null is fp32: torch_dtype_from_precision(None) loads the
// default dtype; an engine's is the checkpoint's dtype).
func precisionBytes(p model.StringFact, def int) int {
	switch p.Value {
	case "bf16", "fp16", "16", "bf16-mixed", "16-mixed", "bfloat16", "float16", "half":
		return 2
	case "fp32", "32", "32-true", "float32", "float":
		return 4
	}
	return def
}

// trainableParams are the parameters the optimizer updates: LoRA adapters,
// a VLA's action expert (train_expert_only), or all of them.
func trainableParams(a Arch, t *model.TrainerSettings) (int64, string) {
	if t.LoRA.Value {
		r := int64(t.LoRARank.Value)
		if r <= 0 {
			r = 32
		}
		h, f := int64(a.HiddenSize), int64(a.FFNSize)
		q, kv := int64(a.NumHeads*a.HeadDim), int64(a.NumKVHeads*a.HeadDim)
		perLayer := r * ((h + q) + 2*(h+kv) + (q + h) + a.mlpMatrices()*(h+f))
		return int64(a.NumLayers) * perLayer, fmt.Sprintf("LoRA rank %d", r)
	}
	if t.TrainExpertOnly.Value && a.ExpertParams > 0 {
		return a.ExpertParams, "action expert only"
	}
	return a.Params(), "all parameters"
}

// fsdpTrainer is an FSDP actor (RLinf's FSDP backend, embodied or LLM).
func fsdpTrainer(in Input, t *model.TrainerSettings, component string, order int) Worker {
	a := in.Arch
	trainable, what := trainableParams(a, t)
	pb := precisionBytes(t.Precision, 4)
	st := FSDPStateBytes(a.Params(), trainable, a.LargestUnitParams(), pb, in.Layout.ActorGPUs, in.Layout.GPUsPerNode,
		t.ShardingStrategy.Value, t.FSDPCPUOffload.Value)
	state := []Part{part(KindWeights, st.Weights, st.Formula), part(KindGradients, st.Grads, "gradients of "+what),
		part(KindOptimizer, st.Optimizer, "Adam state of "+what)}
	gathered := part(KindWeights, st.Gathered, "all-gathered units (current and prefetched) in bf16")
	sh := in.trainShape(t)
	w := Worker{Component: component, StartOrder: order}
	frag := 1 + in.Profile.Fragmentation
	var activ Part
	ctx := in.context()
	declared, hasDeclared := in.Profile.Components[component]
	switch {
	case a.ExtraParams > 0 && hasDeclared:
		// A VLA's activations (vision towers, action expert) have no
		// formula here: the profile's measured number is them.
		activ = part(KindActivations, float64(declared), in.Profile.Source(componentPrefix+component)+", measured activations")
	case a.ExtraParams > 0:
		activ = part(KindActivations, 0, "not modelled for this policy")
		w.Notes = append(w.Notes, fmt.Sprintf("%s's activations are not modelled for %s; declare them with %s%s in --mem-profile", component, a.Name, componentPrefix, component))
	default:
		act, formula := fsdpActivation(a, sh, t.GradientCheckpointing.Value)
		activ = part(KindActivations, act*frag, fmt.Sprintf("%s, %d×%d tokens%s, ×%g fragmentation", formula, sh.mbs, sh.seq, sh.bound, frag))
		if hasDeclared {
			ctx = append(ctx, part(KindProfiled, float64(declared), in.Profile.Source(componentPrefix+component)))
		}
	}
	// Offloaded, the actor leaves its context and NCCL buffers only: RLinf
	// offloads the whole FSDP state since its PR #1095, which fixed the
	// flat-parameter views RLinf#1094 found left on the GPU. The "~4 GB"
	// residue quoted in issue 23 has no public source to count from; a run
	// on an older RLinf declares what it measures in --mem-profile.
	flags := []model.BoolFact{t.EnableOffload, t.EnableOffload, t.EnableOffload}
	w.Phases[PhaseInit] = join(ctx, state)
	w.AfterStart = w.Phases[PhaseInit]
	w.Phases[PhaseRollout] = join(ctx, kept(true, state, flags))
	w.Phases[PhaseLogprob] = w.Phases[PhaseRollout]
	w.Phases[PhaseTrain] = join(ctx, state, Usage{gathered, activ})
	w.Phases[PhaseWeightSync] = join(ctx, Usage{state[0], gathered}, kept(true, state[1:], flags[1:]),
		Usage{part(KindBucket, float64(in.Profile.BucketBytes), in.Profile.Source("weight_sync_bucket_gib"))})
	if a.ExtraParams == 0 { // a VLA's outputs are actions: its activations, logits included, are not modelled
		w.Spikes[PhaseTrain] = in.spike(sh, a.VocabSize, 1, 1)
		in.openTokens(&w, PhaseTrain, sh, activ, w.Spikes[PhaseTrain])
	}
	w.Drivers = append(Drivers{in.modelDriver(), stringDriver(RolePrecision, t.Precision), stringDriver(RoleSharding, t.ShardingStrategy),
		boolDriver(RoleOffload, t.EnableOffload), boolDriver(RoleOptOffload, t.FSDPCPUOffload)}, sh.drivers...)
	if in.Layout.ActorLogprob && a.ExtraParams == 0 {
		lp := in.logprobShape(t)
		args := MegatronArgsFor(a, &model.TrainerSettings{}, 1, false, lp.seq, lp.mbs)
		fwd := part(KindActivations, ForwardActivation(args, 1)*frag, fmt.Sprintf("forward pass, %d×%d tokens%s", lp.mbs, lp.seq, lp.bound))
		w.Phases[PhaseLogprob] = join(ctx, Usage{state[0], gathered}, kept(true, state[1:], flags[1:]), Usage{fwd})
		w.Spikes[PhaseLogprob] = in.spike(lp, a.VocabSize, 1, 1)
		in.openTokens(&w, PhaseLogprob, lp, fwd, w.Spikes[PhaseLogprob])
		w.Drivers = append(w.Drivers, lp.drivers...)
	}
	return w
}

// fsdpActivation is an unsharded model's activations: with gradient
// checkpointing each layer keeps its input (2·s·b·h) and one layer is
// rebuilt in its backward; without, every layer keeps the selective set
// (flash attention). The output layer's fp32 logits come on top.
func fsdpActivation(a Arch, sh shape, checkpointing bool) (float64, string) {
	args := MegatronArgsFor(a, &model.TrainerSettings{}, 1, false, sh.seq, sh.mbs)
	layer, out := perLayerBytes(args), outputLayerBytes(args)
	if checkpointing {
		in := 2 * float64(sh.seq) * float64(sh.mbs) * float64(a.HiddenSize)
		return float64(a.NumLayers)*in + layer + out, "gradient checkpointing: layer inputs, one layer, fp32 logits"
	}
	return float64(a.NumLayers)*layer + out, "every layer's activations (flash attention) and fp32 logits"
}
