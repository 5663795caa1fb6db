package model

import "slices"

// The arithmetic of RLinf's model-parallel placement classes (semantics
// §5.2), shared by the rules that judge a layout and the strategies that
// expand it.

// MPComponents are the components ModelParallel placement re-places with
// Packed strategies on the default group (semantics §5.2 step 7).
var MPComponents = []string{"actor", "rollout", "inference", "actor_inference", "critic_inference", "reward", "critic"}

// DecideMPMode is ModelParallel's mode, decided in RLinf's order before
// any validity check: AUTO when auto_scheduler is on and there is no
// critic, COLLOCATED when actor and rollout have the same GPUs, else
// DISAGGREGATED.
func DecideMPMode(auto, hasCritic bool, actor, rollout []int) PlacementMode {
	return MPMode(auto, hasCritic, slices.Equal(actor, rollout))
}

// MPMode is DecideMPMode for actor and rollout known to share their GPUs
// or not (collocated), before they have any: a requirement says so.
func MPMode(auto, hasCritic, collocated bool) PlacementMode {
	switch {
	case auto && !hasCritic:
		return ModeAuto
	case collocated:
		return ModeCollocated
	}
	return ModeDisaggregated
}

// CollocatedStride is the collocated rollout's stride: actor TP / rollout TP
// when the actor's TP is larger (it must divide), else 1.
func CollocatedStride(actorTP, rolloutTP int) int {
	if actorTP > rolloutTP && rolloutTP > 0 {
		return actorTP / rolloutTP
	}
	return 1
}

// RolloutEngines splits a disaggregated (or AUTO) rollout's GPUs into
// engines: dp = gpus / (TP*PP) engines of gpus/dp GPUs each (0, 0 when the
// GPUs are fewer than TP*PP).
func RolloutEngines(gpus, tp, pp int) (dp, perEngine int) {
	if tp*pp <= 0 {
		return 0, 0
	}
	dp = gpus / (tp * pp)
	if dp == 0 {
		return 0, 0
	}
	return dp, gpus / dp
}

// AutoActorGPUs is the AUTO actor's GPUs: every GPU of the cluster (the
// actor runs wherever the rollout is idle).
func AutoActorGPUs(numGPUs int) []int {
	all := make([]int, numGPUs)
	for i := range all {
		all[i] = i
	}
	return all
}

// AutoRolloutGPUs is the AUTO rollout's GPUs: with use_pre_process_policy it
// also takes every GPU from 0 to the actor's last.
func AutoRolloutGPUs(actor, rollout []int, preProcess bool) []int {
	if !preProcess || len(actor) == 0 {
		return rollout
	}
	last := actor[len(actor)-1]
	gpus := make([]int, 0, last+1+len(rollout))
	for g := 0; g <= last; g++ {
		gpus = append(gpus, g)
	}
	return append(gpus, rollout...)
}

// PackedFirst is the first hardware rank of Packed process i: processes of
// nhpp devices, stride apart, fill blocks of nhpp*stride devices.
func PackedFirst(start, nhpp, stride, i int) int {
	return start + (i/stride)*nhpp*stride + i%stride
}

// ExtraEngine reports whether a multi-agent class launches component name
// as an extra rollout engine (rollout_judge, ...): Packed(first, last) of
// its GPUs shaped like the rollout's. Every component is one but those the
// class places itself.
func ExtraEngine(name string) bool {
	return !slices.Contains([]string{"actor", "rollout", "reward", "inference", "critic", "actor_inference", "critic_inference"}, name)
}

// SharedInMultiAgent reports whether the multi-agent class lets component
// name share GPUs with others; the rest must use GPUs of their own.
func SharedInMultiAgent(name string) bool {
	return slices.Contains([]string{"actor", "rollout", "reward", "inference"}, name)
}

// LCMCap is the least common multiple of positive a and b (the devices
// that are whole groups of both sizes), or limit when that is larger.
func LCMCap(a, b, limit int) int {
	if a >= limit || b >= limit {
		return limit
	}
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	if a/x > limit/b {
		return limit
	}
	return min(a/x*b, limit)
}
