package memory

import (
	"fmt"
	"math"
)

// Activation formulas beyond Megatron's estimator (spec/memory.md §1.2):
// full recompute, context parallelism, forward-only log-prob passes and the
// logits spike.

// perLayerBytes is one layer's stored activations with selective
// recompute and flash attention: s·b·h·(18 + 4f/h)/t with sequence
// parallelism; without it the TP-replicated part (10·s·b·h) is not split:
// s·b·h·(10 + (8 + 4f/h)/t), which is Megatron's 10 + 24/t for f = 4h.
func perLayerBytes(a MegatronArgs) float64 {
	s, b, h := float64(a.SeqLength), float64(a.MicroBatchSize), float64(a.HiddenSize)
	t, f := float64(max(a.TensorModelParallelSize, 1)), float64(a.FFNHiddenSize)
	if a.SequenceParallel {
		return s * b * h * (18 + 4*f/h) / t
	}
	return s * b * h * (10 + (8+4*f/h)/t)
}

// outputLayerBytes is the output layer's input and fp32 logits of one
// micro-batch on the last stage: 4·s·b·h·(1 + V/h)/t.
func outputLayerBytes(a MegatronArgs) float64 {
	s, b, h := float64(a.SeqLength), float64(a.MicroBatchSize), float64(a.HiddenSize)
	return s * b * h * 4 * (1 + float64(a.PaddedVocabSize)/h) / float64(max(a.TensorModelParallelSize, 1))
}

// FullRecomputeBytes is the first stage's activations under full
// recompute (Korthikanti et al. §4): recomputed layers keep only their
// input, 2·s·b·h (/t with SP); `block` recomputes the first r layers of the
// stage and keeps the others whole; `uniform` recomputes every layer in
// chunks of r and keeps one input per chunk. One layer (block) or one
// chunk (uniform) is rebuilt whole during its backward. The pipeline
// factors and the output layer are Megatron's.
func FullRecomputeBytes(a MegatronArgs, method string, r, numMicrobatches int) float64 {
	s, b, h := float64(a.SeqLength), float64(a.MicroBatchSize), float64(a.HiddenSize)
	t := float64(max(a.TensorModelParallelSize, 1))
	pp := max(a.PipelineModelParallelSize, 1)
	input := 2 * s * b * h
	if a.SequenceParallel {
		input /= t
	}
	layer := perLayerBytes(a)
	stage := (a.NumLayers + pp - 1) / pp
	r = max(r, 1)
	var stored, working float64
	if method == "block" {
		rec := min(r, stage)
		stored = float64(rec)*input + float64(stage-rec)*layer
		working = layer
	} else {
		chunks := (stage + r - 1) / r
		stored = float64(chunks) * input
		working = float64(min(r, stage)) * layer
	}
	act := stored*float64(pp) + (8*s*b*float64(pp)+s*b*h*float64(pp))/t
	act = pipelineFactor(a, act, numMicrobatches) + working
	if pp == 1 {
		act += outputLayerBytes(a)
	}
	return act
}

// TrainActivation is the actor's activation estimate and the formula used:
// Megatron's report path for selective recompute or none, the
// full-recompute formula for full; divided by CP (Megatron's estimator
// ignores context parallelism, which splits every sequence).
func TrainActivation(a MegatronArgs, granularity, method string, r, cp, numMicrobatches int) (float64, string) {
	var act float64
	var formula string
	switch {
	case granularity == "full":
		act = FullRecomputeBytes(a, method, r, numMicrobatches)
		formula = fmt.Sprintf("full recompute (%s, %d layers)", orDefault(method, "uniform"), max(r, 1))
	case UsesSPFormula(a):
		act = ActivationBytes(a, numMicrobatches)
		formula = "Megatron compute_activation_memory (SP, selective recompute)"
	default:
		act = ActivationBytesWithoutSP(a, numMicrobatches)
		formula = "Megatron compute_activation_memory_without_sp"
	}
	if cp > 1 {
		act /= float64(cp)
		formula += fmt.Sprintf(", /CP %d", cp)
	}
	return act, formula
}

// ForwardActivation is a forward-only pass (log-probs): one layer's
// working set and the output layer's fp32 logits, divided by CP.
func ForwardActivation(a MegatronArgs, cp int) float64 {
	act := perLayerBytes(a)
	if a.PipelineModelParallelSize <= 1 {
		act += outputLayerBytes(a)
	}
	return act / float64(max(cp, 1))
}

// LogitsBytes is one fp32 logits tensor of a micro-batch: tokens/CP ×
// vocabulary/TP × 4 bytes. Computing log-probs, entropy or KL materialises
// it, often two or three times over (softmax, gradient, a .float() copy:
// slime #1767's 61 GiB at 108k tokens).
func LogitsBytes(tokens int64, vocab, tp, cp int) float64 {
	return math.Ceil(float64(tokens)/float64(max(cp, 1))) * float64(vocab) / float64(max(tp, 1)) * 4
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
