package memory

import "fmt"

// FSDP and DeepSpeed ZeRO model state (spec/memory.md §1.2, §1.3).

// FSDPState is an FSDP actor's model state on one GPU.
type FSDPState struct {
	Weights, Grads, Optimizer float64
	// Gathered is the all-gathered units in compute dtype (current and
	// prefetched), present whenever parameters are sharded or offloaded.
	Gathered float64
	Formula  string
}

// FSDPStateBytes computes an FSDP actor's state: parameters in paramBytes
// (2 for bf16/fp16, 4 for fp32), gradients of the trainable parameters in
// the same dtype, Adam's two fp32 moments plus an fp32 master copy when the
// parameters are half precision; sharded over n GPUs by the strategy
// (full_shard / FSDP2: all; shard_grad_op: gradients and optimizer;
// no_shard: nothing; hybrid_shard: within a node of nodeGPUs). cpuOffload
// (FSDP's CPUOffload) keeps parameters, gradients and optimizer on the host.
func FSDPStateBytes(params, trainable, largestUnit int64, paramBytes, n, nodeGPUs int, strategy string, cpuOffload bool) FSDPState {
	n = max(n, 1)
	pb := float64(paramBytes)
	opt := 8.0
	if paramBytes < 4 {
		opt = 12
	}
	paramShard, stateShard := 1, 1
	switch strategy {
	case "no_shard":
	case "shard_grad_op":
		stateShard = n
	case "hybrid_shard", "_hybrid_shard_zero2":
		paramShard, stateShard = min(n, max(nodeGPUs, 1)), min(n, max(nodeGPUs, 1))
	default: // full_shard, fsdp2
		paramShard, stateShard = n, n
	}
	s := FSDPState{
		Weights:   pb * float64(params) / float64(paramShard),
		Grads:     pb * float64(trainable) / float64(stateShard),
		Optimizer: opt * float64(trainable) / float64(stateShard),
		Formula:   fmt.Sprintf("FSDP %s over %d GPUs: %g B/param weights, %g+%g B/trainable param", orDefault(strategy, "full_shard"), n, pb, pb, opt),
	}
	if paramShard > 1 || cpuOffload {
		s.Gathered = 2 * float64(largestUnit) * 2
	}
	if cpuOffload {
		s.Weights, s.Grads, s.Optimizer = 0, 0, 0
		s.Formula += ", CPU offload"
	}
	return s
}

// ZeRO2StateBytes is DeepSpeed's estimate_zero2_model_states_mem_needs on
// the GPU: 2P + 18P/N, or 2P with the optimizer offloaded to the CPU.
func ZeRO2StateBytes(params int64, n int, cpuOffload bool) float64 {
	p := float64(params)
	if cpuOffload {
		return 2 * p
	}
	return 2*p + 18*p/float64(max(n, 1))
}

// ZeRO3StateBytes is DeepSpeed's estimate_zero3_model_states_mem_needs on
// the GPU: 4·largest layer + 18P/N; + 2P/N with the optimizer offloaded;
// the largest layer alone with parameters offloaded too.
func ZeRO3StateBytes(params, largestLayer int64, n int, offloadOptimizer, offloadParams bool) float64 {
	p, largest := float64(params), 4*float64(largestLayer)
	switch {
	case offloadParams && offloadOptimizer:
		return largest
	case offloadOptimizer:
		return largest + 2*p/float64(max(n, 1))
	}
	return largest + 18*p/float64(max(n, 1))
}
