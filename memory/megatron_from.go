package memory

import "github.com/rlsolve/rlsolve/model"

// MegatronArgsFor builds the arguments Megatron would get for this
// architecture and trainer on world GPUs, for sequences of seq tokens in
// micro-batches of mbs. padVocab pads the vocabulary to a multiple of 128·TP
// (Megatron's own parsing; RLinf passes vocab_size unpadded).
func MegatronArgsFor(a Arch, t *model.TrainerSettings, world int, padVocab bool, seq, mbs int) MegatronArgs {
	tp, pp, cp := parallel(t.TP.Value), parallel(t.PP.Value), parallel(t.CP.Value)
	ep := parallel(t.EP.Value)
	etp := tp
	if t.ETP.Set {
		etp = parallel(t.ETP.Value)
	}
	world = min(max(world, tp*pp*cp), maxParallel*maxParallel)
	seq, mbs = min(max(seq, 1), maxTokens), min(max(mbs, 1), maxTokens)
	vocab := a.VocabSize
	if padVocab {
		m := 128 * tp
		vocab = (vocab + m - 1) / m * m
	}
	args := MegatronArgs{
		HiddenSize: a.HiddenSize, NumLayers: a.NumLayers, NumAttentionHeads: a.NumHeads,
		NumQueryGroups: a.NumKVHeads, GroupQueryAttention: !a.MLA && a.NumKVHeads != a.NumHeads,
		FFNHiddenSize: a.FFNSize, UntieEmbeddingsAndOutputWeights: !a.TieEmbeddings, KVChannels: a.HeadDim,
		SwiGLU: a.Gated, Normalization: "RMSNorm", MoERouterTopK: max(a.TopK, 2), MoELayerFreq: LayerFreq{Every: 1},
		MultiLatentAttention: a.MLA, PaddedVocabSize: vocab,
		TensorModelParallelSize: tp, PipelineModelParallelSize: pp, ContextParallelSize: cp,
		ExpertModelParallelSize: ep, ExpertTensorParallelSize: etp, WorldSize: world,
		DataParallelSize: max(world/(tp*pp*cp), 1), UseDistributedOptimizer: t.DistributedOptimizer.Value,
		SequenceParallel: t.SequenceParallel.Value && tp > 1, SeqLength: seq, MicroBatchSize: mbs,
	}
	if a.LayerNorm {
		args.Normalization = "LayerNorm"
	}
	if g := t.RecomputeGranularity.Value; g != "" {
		args.RecomputeGranularity = &g
	}
	if t.VPP.Set && t.VPP.Value > 1 {
		v := t.VPP.Value
		args.VirtualPipelineModelParallelSize = &v
	}
	if a.NumExperts > 0 {
		args.NumExperts, args.MoEFFNHiddenSize = ptr(a.NumExperts), ptr(a.MoEFFNSize)
		args.MoELayerFreq = moePattern(a)
		if a.SharedExpertSize > 0 {
			args.MoESharedExpertIntermediateSize = ptr(a.SharedExpertSize)
			args.MoESharedExpertGate = a.SharedGate
		}
	}
	if a.MLA {
		args.KVLoRARank, args.QKHeadDim = ptr(a.KVLoRARank), ptr(a.QKNopeHeadDim)
		args.QKPosEmbHeadDim, args.VHeadDim = ptr(a.QKRopeHeadDim), ptr(a.VHeadDim)
		if a.QLoRARank > 0 {
			args.QLoRARank = ptr(a.QLoRARank)
		}
	}
	return args
}

// moePattern is the MoE layer pattern as an interval when it is one, else
// as Megatron's explicit list (bounded by archMax layers).
func moePattern(a Arch) LayerFreq {
	if a.FirstDense == 0 && max(a.MoEEvery, 1) == 1 {
		return LayerFreq{Every: 1}
	}
	p := make([]int, a.NumLayers)
	for i := range p {
		if a.isMoELayer(i) {
			p[i] = 1
		}
	}
	return LayerFreq{Pattern: p}
}

func ptr(v int) *int { return &v }

// Bounds on settings, so that their products stay far from overflow: a
// parallel size (TP·PP·CP at most 2^30 GPUs) and a token count.
const (
	maxParallel = 1 << 10
	maxTokens   = 1 << 31
)

// parallel is a parallel size within [1, maxParallel].
func parallel(v int) int { return min(max(v, 1), maxParallel) }
