package memory

import "math"

// This file is Megatron-LM's theoretical memory estimator
// (megatron/training/theoretical_memory_usage.py at d98e8a6), formula by
// formula and in Megatron's order of operations, so that its results match
// Megatron's own to floating-point rounding (the conformance runner checks
// megatron_cases.json at a relative error below 1e-9).

// ShardParams are the parameters of Megatron's most-loaded rank (the first
// pipeline stage, which holds the embedding), split by how they are held.
type ShardParams struct {
	// Dense are the TP-sharded and replicated parameters; their gradients
	// and optimizer state shard over DP.
	Dense float64
	// Expert are the routed experts' parameters; they shard over EDP.
	Expert float64
	DP     int
	EDP    int
	// DistOpt is Megatron's distributed optimizer.
	DistOpt bool
}

// Params is the rank's parameter count.
func (s ShardParams) Params() float64 { return s.Dense + s.Expert }

// Weights are the bf16 parameters (2 B each).
func (s ShardParams) Weights() float64 { return 2 * s.Params() }

// Grads are the fp32 main gradients (4 B each).
func (s ShardParams) Grads() float64 { return 4 * s.Params() }

// Optimizer is the fp32 master copy and Adam's two moments (12 B per
// parameter), divided over DP (EDP for experts) by the distributed optimizer.
func (s ShardParams) Optimizer() float64 {
	if !s.DistOpt {
		return 12 * s.Params()
	}
	return 12*s.Dense/float64(s.DP) + 12*s.Expert/float64(s.EDP)
}

// Total is Megatron's weight-and-optimizer bytes: 18 B per parameter, or
// 6 + 12/DP with the distributed optimizer.
func (s ShardParams) Total() float64 {
	bpp := func(dp int) float64 {
		if !s.DistOpt {
			return 18
		}
		return 6 + 12/float64(dp)
	}
	return s.Dense*bpp(s.DP) + s.Expert*bpp(s.EDP)
}

// WeightAndOptimizerBytes is Megatron's compute_weight_and_optimizer_memory.
func WeightAndOptimizerBytes(a MegatronArgs) float64 { return MostLoadedShard(a).Total() }

// layerParams are Megatron's per-layer parameter terms.
type layerParams struct {
	attention, denseMLP, sharedExpert, routedExperts float64
	latent, layernorm, router, sharedGate            float64
}

func megatronLayerParams(a MegatronArgs) layerParams {
	h := float64(a.HiddenSize)
	gated := 1.0
	if a.SwiGLU {
		gated = 3.0 / 2
	}
	normSize := 2
	if a.Normalization == "RMSNorm" {
		normSize = 1
	}
	numExperts := intOr(a.NumExperts, 1)
	moeFFN := 0
	if a.NumExperts != nil {
		moeFFN = intOr(a.MoEFFNHiddenSize, 0)
	}
	shared := intOr(a.MoESharedExpertIntermediateSize, 0)
	var p layerParams
	if a.MultiLatentAttention {
		p.attention = float64(mlaAttention(a, normSize))
	} else {
		groups := a.NumQueryGroups
		if !a.GroupQueryAttention {
			groups = a.NumAttentionHeads
		}
		ratio := float64(a.KVChannels*a.NumAttentionHeads) / h
		p.attention = float64(2*a.HiddenSize*a.HiddenSize) *
			((1 + float64(groups)/float64(a.NumAttentionHeads)) * ratio)
	}
	p.denseMLP = float64(2*a.HiddenSize*a.FFNHiddenSize) * gated
	p.sharedExpert = float64(2*a.HiddenSize*shared) * gated
	routedHidden := intOr(a.MoELatentSize, a.HiddenSize)
	p.routedExperts = float64(2*routedHidden*moeFFN*numExperts) * gated
	if a.NumExperts != nil && a.MoELatentSize != nil {
		p.latent = float64(2 * a.HiddenSize * *a.MoELatentSize)
	}
	p.layernorm = float64(2 * a.HiddenSize * normSize)
	if a.NumExperts != nil {
		p.router = float64(a.HiddenSize * numExperts)
		if a.AddBiasLinear {
			p.router += float64(numExperts)
		}
	}
	if shared > 0 && a.MoESharedExpertGate {
		p.sharedGate = h
	}
	return p
}

// mlaAttention is multi-latent attention's parameter count (q LoRA or a
// full q projection, the kv LoRA with its norm, the rope key, the output).
func mlaAttention(a MegatronArgs, normSize int) int {
	h, heads := a.HiddenSize, a.NumAttentionHeads
	qk, rope, v := intOr(a.QKHeadDim, 0), intOr(a.QKPosEmbHeadDim, 0), intOr(a.VHeadDim, 0)
	q := h * heads * (qk + rope)
	if a.QLoRARank != nil {
		q = *a.QLoRARank * (h + heads*(qk+rope) + normSize)
	}
	return q + intOr(a.KVLoRARank, 0)*(h+heads*(qk+v)+normSize) + h*rope + heads*v*h
}

// MostLoadedShard is the parameter bookkeeping of
// compute_weight_and_optimizer_memory for the first pipeline stage.
func MostLoadedShard(a MegatronArgs) ShardParams {
	p := megatronLayerParams(a)
	numMoE, lastMoE := 0, 0
	if a.NumExperts != nil {
		numMoE, lastMoE = a.MoELayerFreq.moeLayers(a.NumLayers)
	}
	numDense := a.NumLayers - numMoE
	mtpMoE, mtpDense := 0, 0
	if a.MTPNumLayers != nil {
		mtpMoE = lastMoE * *a.MTPNumLayers
		mtpDense = (1 - lastMoE) * *a.MTPNumLayers
	}
	normSize := 2
	if a.Normalization == "RMSNorm" {
		normSize = 1
	}
	embedding := float64(a.HiddenSize * a.PaddedVocabSize)
	finalNorm := float64(normSize * a.HiddenSize)
	tp, pp := float64(a.TensorModelParallelSize), float64(a.PipelineModelParallelSize)
	etp, ep := a.ExpertTensorParallelSize, a.ExpertModelParallelSize

	tpBlock := (p.attention+p.denseMLP)*float64(numDense) + (p.attention+p.sharedExpert)*float64(numMoE)
	moeReplicated := p.layernorm + p.latent + p.router + p.sharedGate
	repBlock := p.layernorm*float64(numDense) + moeReplicated*float64(numMoE) + finalNorm
	expertBlock := p.routedExperts * float64(numMoE)
	tpMTP := (p.attention+p.denseMLP)*float64(mtpDense) + (p.attention+p.sharedExpert)*float64(mtpMoE)
	repMTP := p.layernorm*float64(mtpDense) + moeReplicated*float64(mtpMoE)
	expertMTP := p.routedExperts * float64(mtpMoE)

	tpShard := (tpBlock/pp + tpMTP + embedding) / tp
	repShard := repBlock/pp + repMTP
	expertShard := (expertBlock/pp + expertMTP) / float64(etp*ep)
	if a.UntieEmbeddingsAndOutputWeights && a.PipelineModelParallelSize == 1 {
		tpShard += embedding / tp
	}
	edp := 1
	if d := etp * ep * a.PipelineModelParallelSize; d > 0 && a.WorldSize/d > 0 {
		edp = a.WorldSize / d
	}
	return ShardParams{Dense: tpShard + repShard, Expert: expertShard, DP: max(a.DataParallelSize, 1), EDP: edp,
		DistOpt: a.UseDistributedOptimizer}
}

// ActivationBytes is Megatron's compute_activation_memory (Korthikanti et
// al. 2022, Table 2: sequence parallelism, selective recompute, flash
// attention), for the first pipeline stage. numMicrobatches < 1 means None.
func ActivationBytes(a MegatronArgs, numMicrobatches int) float64 {
	s, b, h := float64(a.SeqLength), float64(a.MicroBatchSize), float64(a.HiddenSize)
	pp := float64(a.PipelineModelParallelSize)
	act := (s * b * h) * (18 + (4 * (float64(a.FFNHiddenSize) / h)))
	act *= float64(a.NumLayers)
	act += 8 * s * b * pp
	act += s * b * h * pp
	act = pipelineFactor(a, act, numMicrobatches)
	if a.PipelineModelParallelSize == 1 {
		act += s * b * h * 4 * (1 + (float64(a.PaddedVocabSize) / h))
	}
	return act / float64(a.TensorModelParallelSize)
}

// ActivationBytesWithoutSP is Megatron's compute_activation_memory_without_sp.
func ActivationBytesWithoutSP(a MegatronArgs, numMicrobatches int) float64 {
	s, b, h := float64(a.SeqLength), float64(a.MicroBatchSize), float64(a.HiddenSize)
	tp, pp := float64(a.TensorModelParallelSize), float64(a.PipelineModelParallelSize)
	perLayer := s * b * h * (10 + (24 / tp))
	act := perLayer * float64(a.NumLayers)
	act += 8 * s * b * pp
	act += s * b * h * pp
	act = pipelineFactor(a, act, numMicrobatches)
	if a.PipelineModelParallelSize == 1 {
		logits := s * b * float64(a.PaddedVocabSize)
		logits /= tp
		finalLN := s * b * h
		act += (logits + finalLN) * 2
	}
	return act * 1.05
}

// pipelineFactor applies the interleaved schedule's penalty, or the
// non-interleaved discount when fewer micro-batches than stages are in
// flight.
func pipelineFactor(a MegatronArgs, act float64, numMicrobatches int) float64 {
	pp := float64(a.PipelineModelParallelSize)
	if a.VirtualPipelineModelParallelSize != nil {
		return act * (1 + ((pp - 1) / (pp * float64(*a.VirtualPipelineModelParallelSize))))
	}
	if a.PipelineModelParallelSize > 1 && numMicrobatches > 0 {
		return act * math.Min(1, float64(numMicrobatches)/pp)
	}
	return act
}

// UsesSPFormula reports which activation formula Megatron's
// report_theoretical_memory picks: the SP one only for sequence
// parallelism with selective recompute.
func UsesSPFormula(a MegatronArgs) bool {
	return a.SequenceParallel && a.RecomputeGranularity != nil && *a.RecomputeGranularity == "selective"
}
