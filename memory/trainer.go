package memory

import (
	"fmt"

	"github.com/rlsolve/rlsolve/model"
)

// trainer is a training worker (actor or critic): Megatron or FSDP.
func trainer(in Input, t *model.TrainerSettings, component string, order int) Worker {
	if t.Backend.Value == "fsdp" {
		return fsdpTrainer(in, t, component, order)
	}
	return megatronTrainer(in, t, component, order)
}

// shape is the tokens of one micro-batch: mbs sequences of seq tokens.
// bound says why seq when it is not the cap itself; open is true when
// nothing bounds a sample (openWhy says what is missing).
type shape struct {
	seq, mbs int
	drivers  Drivers
	bound    string
	open     bool
	openWhy  string
}

func (s shape) tokens() int64 {
	return int64(min(max(s.seq, 0), maxTokens)) * int64(min(max(s.mbs, 1), maxTokens))
}

// trainShape: packed micro-batches of the token cap (or of the longest
// sample, when longer) under dynamic batching, else micro-batch × the
// longest sample.
func (in Input) trainShape(t *model.TrainerSettings) shape {
	b := in.Settings.Batch
	if b.DynamicBatch.Value && b.MaxTokensPerMicroBatch.Value > 0 {
		return in.packed(b.MaxTokensPerMicroBatch, Drivers{
			boolDriver(RoleMaxTokens, b.DynamicBatch), intDriver(RoleMaxTokens, b.MaxTokensPerMicroBatch)})
	}
	return in.fixed(t.MicroBatch, RoleMicroBatch)
}

// logprobShape is a log-prob micro-batch's tokens.
func (in Input) logprobShape(t *model.TrainerSettings) shape {
	b := in.Settings.Batch
	if b.DynamicBatch.Value {
		if b.LogprobMaxTokens.Value > 0 {
			return in.packed(b.LogprobMaxTokens, Drivers{intDriver(RoleMaxTokens, b.LogprobMaxTokens)})
		}
		if b.MaxTokensPerMicroBatch.Value > 0 {
			return in.packed(b.MaxTokensPerMicroBatch, Drivers{intDriver(RoleMaxTokens, b.MaxTokensPerMicroBatch)})
		}
	}
	mbs := t.LogprobMicroBatch
	if mbs.Value < 1 {
		mbs = t.MicroBatch
	}
	return in.fixed(mbs, RoleLogprobBatch)
}

// seqLength is one sequence's tokens: the sequence length, or prompt and
// response lengths.
func (in Input) seqLength() (int, Drivers) {
	b := in.Settings.Batch
	tok := func(v int) int { return min(max(v, 0), maxTokens) }
	if b.SeqLength.Value > 0 {
		return tok(b.SeqLength.Value), Drivers{intDriver(RoleSeqLength, b.SeqLength)}
	}
	return tok(b.MaxPromptLength.Value) + tok(b.MaxResponseLength.Value),
		Drivers{intDriver(RoleSeqLength, b.MaxPromptLength), intDriver(RoleSeqLength, b.MaxResponseLength)}
}

// offloadActs: RLinf's Megatron offload flags act in collocated mode only;
// slime's offload_train always.
func (in Input) offloadActs() bool {
	return in.Layout.Collocated || in.Settings.Framework == "slime"
}

// kept returns the state parts an offloaded phase keeps.
func kept(acts bool, parts []Part, flags []model.BoolFact) Usage {
	var u Usage
	for i, p := range parts {
		if !acts || !flags[i].Value {
			u = append(u, p)
		}
	}
	return u
}

func join(us ...Usage) Usage {
	var out Usage
	for _, u := range us {
		out = append(out, u...)
	}
	return out
}

func megatronTrainer(in Input, t *model.TrainerSettings, component string, order int) Worker {
	s := in.Settings
	sh := in.trainShape(t)
	args := MegatronArgsFor(in.Arch, t, in.Layout.ActorGPUs, s.PadVocab, sh.seq, sh.mbs)
	shard := MostLoadedShard(args)
	where := fmt.Sprintf("Megatron compute_weight_and_optimizer_memory, most-loaded rank (%.3g B params; TP %d, PP %d, EP %d, ETP %d, DP %d)",
		shard.Params()/1e9, args.TensorModelParallelSize, args.PipelineModelParallelSize, args.ExpertModelParallelSize,
		args.ExpertTensorParallelSize, args.DataParallelSize)
	optSrc := "fp32 master and Adam, 12 B/param"
	if shard.DistOpt {
		optSrc += fmt.Sprintf(" over DP %d (EDP %d for experts)", shard.DP, shard.EDP)
	}
	opt := shard.Optimizer()
	if t.OptimizerCPUOffload.Value {
		opt *= 1 - min(max(t.OptimizerOffloadFraction.Value, 0), 1)
		optSrc += fmt.Sprintf(", %g of it on the CPU", t.OptimizerOffloadFraction.Value)
	}
	state := []Part{part(KindWeights, shard.Weights(), "bf16, 2 B/param; "+where),
		part(KindGradients, shard.Grads(), "fp32 main gradients, 4 B/param"), part(KindOptimizer, opt, optSrc)}
	flags := []model.BoolFact{t.OffloadWeight, t.OffloadGrad, t.OffloadOptimizer}
	act, formula := TrainActivation(args, t.RecomputeGranularity.Value, t.RecomputeMethod.Value, t.RecomputeNumLayers.Value, args.ContextParallelSize, 0)
	frag := 1 + in.Profile.Fragmentation
	activ := part(KindActivations, act*frag, fmt.Sprintf("%s, %d×%d tokens%s, ×%g fragmentation", formula, sh.mbs, sh.seq, sh.bound, frag))
	ctx := in.context()
	acts := in.offloadActs()
	w := Worker{Component: component, StartOrder: order}
	w.Phases[PhaseInit] = join(ctx, state)
	w.AfterStart = w.Phases[PhaseInit]
	w.Phases[PhaseRollout] = join(ctx, kept(acts, state, flags))
	w.Phases[PhaseTrain] = join(ctx, state, Usage{activ}, in.scores(t, args, sh))
	w.Phases[PhaseWeightSync] = join(ctx, Usage{state[0]}, kept(acts, state[1:], flags[1:]),
		Usage{part(KindBucket, float64(in.Profile.BucketBytes), in.Profile.Source("weight_sync_bucket_gib"))})
	w.Phases[PhaseLogprob] = w.Phases[PhaseRollout]
	if res, ok := in.offloadResidue(t, ctx); ok && acts && t.OffloadWeight.Value {
		w.Phases[PhaseRollout] = join(w.Phases[PhaseRollout], Usage{res})
	}
	if t.DeepEP.Value {
		w.Notes = append(w.Notes, component+": "+deepEPNote(component))
	}
	vocab, tp, cp := args.PaddedVocabSize, args.TensorModelParallelSize, args.ContextParallelSize
	w.Spikes[PhaseTrain] = in.spike(sh, vocab, tp, cp)
	in.openTokens(&w, PhaseTrain, sh, activ, w.Spikes[PhaseTrain])
	w.Drivers = append(Drivers{in.modelDriver(), intDriver(RoleTP, t.TP), intDriver(RolePP, t.PP), intDriver(RoleCP, t.CP),
		boolDriver(RoleDistOpt, t.DistributedOptimizer), stringDriver(RoleRecompute, t.RecomputeGranularity),
		boolDriver(RoleOffloadWts, t.OffloadWeight), boolDriver(RoleOffload, t.OffloadGrad), boolDriver(RoleOffload, t.OffloadOptimizer),
		boolDriver(RoleOptOffload, t.OptimizerCPUOffload)}, sh.drivers...)
	if in.Layout.ActorLogprob {
		lp := in.logprobShape(t)
		largs := MegatronArgsFor(in.Arch, t, in.Layout.ActorGPUs, s.PadVocab, lp.seq, lp.mbs)
		fwd := part(KindActivations, ForwardActivation(largs, cp)*frag, fmt.Sprintf("forward pass, %d×%d tokens%s: one layer and fp32 logits", lp.mbs, lp.seq, lp.bound))
		w.Phases[PhaseLogprob] = join(ctx, Usage{state[0]}, kept(acts, state[1:], flags[1:]), Usage{fwd})
		w.Spikes[PhaseLogprob] = in.spike(lp, vocab, tp, cp)
		in.openTokens(&w, PhaseLogprob, lp, fwd, w.Spikes[PhaseLogprob])
		w.Drivers = append(w.Drivers, lp.drivers...)
	}
	return w
}

// spike is the worst-case extra fp32 logits of a micro-batch.
func (in Input) spike(sh shape, vocab, tp, cp int) Part {
	c := in.Profile.LogitsCopies
	p := part(KindLogits, c*LogitsBytes(sh.tokens(), vocab, tp, cp),
		fmt.Sprintf("%g extra fp32 logits copies: %d tokens%s / CP %d × vocab %d / TP %d × 4 B", c, sh.tokens(), sh.bound, max(cp, 1), vocab, max(tp, 1)))
	p.tokens = sh.tokens()
	return p
}

// inference is RLinf's dedicated log-prob worker: bf16 weights, and a
// forward pass in the log-prob phase.
func inference(in Input, t *model.TrainerSettings) Worker {
	s := in.Settings
	lp := in.logprobShape(t)
	args := MegatronArgsFor(in.Arch, t, in.Layout.InferenceGPUs, s.PadVocab, lp.seq, lp.mbs)
	shard := MostLoadedShard(args)
	weights := part(KindWeights, shard.Weights(), fmt.Sprintf("bf16, 2 B/param, most-loaded rank (TP %d, PP %d)",
		args.TensorModelParallelSize, args.PipelineModelParallelSize))
	frag := 1 + in.Profile.Fragmentation
	cp := args.ContextParallelSize
	fwd := part(KindActivations, ForwardActivation(args, cp)*frag, fmt.Sprintf("forward pass, %d×%d tokens: one layer and fp32 logits", lp.mbs, lp.seq))
	w := Worker{Component: "inference", StartOrder: 2}
	base := join(in.context(), Usage{weights})
	for p := range w.Phases {
		w.Phases[p] = base
	}
	w.AfterStart = base
	w.Phases[PhaseLogprob] = join(base, Usage{fwd})
	w.Spikes[PhaseLogprob] = in.spike(lp, args.PaddedVocabSize, args.TensorModelParallelSize, cp)
	w.Drivers = append(Drivers{in.modelDriver(), intDriver(RoleTP, t.TP), intDriver(RolePP, t.PP)}, lp.drivers...)
	return w
}

// scores are the attention scores Megatron's local transformer
// (--transformer-impl local, no flash attention) holds: 5·a·s²·b bytes per
// layer over TP and CP (scores, softmax and dropout mask; Korthikanti et al.
// 2022, Table 2), for the layer being rebuilt under full recompute or every
// layer of the stage without it. Flash attention holds none.
func (in Input) scores(t *model.TrainerSettings, a MegatronArgs, sh shape) Usage {
	if t.TransformerImpl.Value != "local" {
		return nil
	}
	s, b := float64(sh.seq), float64(sh.mbs)
	layers := (a.NumLayers + max(a.PipelineModelParallelSize, 1) - 1) / max(a.PipelineModelParallelSize, 1)
	if t.RecomputeGranularity.Value == "full" {
		layers = 1
	}
	per := 5 * float64(a.NumAttentionHeads) * s * s * b / float64(max(a.TensorModelParallelSize, 1)*max(a.ContextParallelSize, 1))
	return Usage{part(KindActivations, per*float64(layers), fmt.Sprintf("attention scores without flash (%s local): 5·a·s²·b over %d layer(s), %d×%d tokens",
		t.TransformerImpl.Key, layers, sh.mbs, sh.seq))}
}
