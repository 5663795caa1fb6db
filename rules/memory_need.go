package rules

import (
	"github.com/rlsolve/rlsolve/memory"
	"github.com/rlsolve/rlsolve/model"
)

// GPU memory as a capacity constraint for `rlsolve solve`: a candidate
// layout says how many GPUs each component gets and which components share
// a GPU; Need says what one GPU holds for them in each phase.

// Candidate is a layout solve considers.
type Candidate struct {
	// GPUs is each component's GPU count (the trainer's data-parallel size
	// is its count over TP·PP·CP; FSDP shards over it).
	GPUs map[string]int
	// Collocated: actor and rollout share their GPUs (RLinf's collocated
	// mode, slime's --colocate): engines release their memory between
	// rollouts and RLinf's offload flags act.
	Collocated bool
	// GPUsPerNode bounds FSDP's hybrid sharding (0: 8).
	GPUsPerNode int
	// ActorLogprob: the actor computes the log-probs (RLinf's
	// recompute_logprobs without an inference component; slime always).
	ActorLogprob bool
}

// Need is what one GPU of capacity bytes needs when the candidate places
// components on it (a component's name more than once: that many of its
// processes, for components rlsolve does not model), with settings s: each
// phase's bytes summed over the components (collocated components
// time-share a GPU, so memory is summed per phase, never over phases; the
// init phase in start order, engines sized by what is resident when they
// start) and their peak, with the findings that judge it.
//
// The constraint is: no error finding, and PeakBytes <= CapacityBytes (or
// the stricter: no finding at all). Each component's own per-GPU need is
// Need with that component alone; Need of several is not the sum of their
// peaks, since their phases differ.
func (m *Memory) Need(s *model.MemorySettings, c Candidate, components []string, capacity int64) (memory.GPUReport, []memory.Finding) {
	lay := memory.Layout{Collocated: c.Collocated, ActorGPUs: c.GPUs["actor"], RolloutGPUs: c.GPUs["rollout"],
		InferenceGPUs: c.GPUs["inference"], GPUsPerNode: c.GPUsPerNode, ActorLogprob: c.ActorLogprob}
	if lay.GPUsPerNode <= 0 {
		lay.GPUsPerNode = 8
	}
	workers := memory.Workers(memory.Input{Settings: s, Arch: m.Arch, Source: m.Source, Profile: m.Profile, Layout: lay})
	r := memory.Aggregate(m.gpu(workers, components, "", capacity))
	return r, memory.Check([]memory.GPUReport{r}, m.Profile)
}

// gpu is a GPU holding components (one name per process): one worker of
// each modelled component, one of the others per process.
func (m *Memory) gpu(workers map[string]memory.Worker, components []string, label string, capacity int64) memory.GPU {
	gpu := memory.GPU{Label: label, CapacityBytes: capacity}
	seen := map[string]bool{}
	for _, name := range components {
		w, modelled := workers[name]
		switch {
		case !modelled:
			gpu.Workers = append(gpu.Workers, memory.OtherWorker(name, m.Profile))
		case !seen[name]:
			gpu.Workers = append(gpu.Workers, w)
		}
		seen[name] = true
	}
	return gpu
}
