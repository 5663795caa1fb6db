package memory

import (
	"fmt"

	"github.com/rlsolve/rlsolve/model"
)

// Worker is one process of a component on one GPU: what it holds in each
// phase. All ranks of a component are given the most-loaded rank's numbers
// (Megatron's first pipeline stage), so a component is one Worker.
type Worker struct {
	Component string
	// StartOrder orders the workers' starts on a GPU (lower first): RLinf
	// and slime start the rollout engines before the trainers.
	StartOrder int
	// Phases holds what the worker has resident during each phase;
	// Phases[PhaseInit] is its own start.
	Phases [NumPhases]Usage
	// AfterStart is what stays resident once it has started, which the
	// workers starting after it find taken.
	AfterStart Usage
	// Engine, when set, replaces Phases and AfterStart with the engine's
	// fraction-sized numbers, resolved on the GPU.
	Engine *Engine
	// Spikes are worst-case transient logits beyond Phases (extra fp32
	// copies), per phase.
	Spikes [NumPhases]Part
	// Open marks the phases whose micro-batch nothing bounds.
	Open [NumPhases]*OpenTokens
	// Drivers are the settings that drive its numbers.
	Drivers Drivers
	// Notes say what the estimate leaves out.
	Notes []string
}

// Layout is what memory needs to know of the placement.
type Layout struct {
	// Collocated: the RLinf mode (or slime --colocate) where the trainer and
	// the rollout engine time-share GPUs: engines release their memory
	// between rollouts and RLinf's offload flags act.
	Collocated bool
	// GPU counts of the components (the trainer's data-parallel size is
	// its count over TP·PP·CP).
	ActorGPUs, RolloutGPUs, InferenceGPUs int
	// GPUsPerNode bounds FSDP's hybrid sharding.
	GPUsPerNode int
	// ActorLogprob: the actor recomputes log-probs itself (RLinf
	// recompute_logprobs without an inference worker; slime always).
	ActorLogprob bool
}

// Input is everything Workers needs.
type Input struct {
	Settings *model.MemorySettings
	Arch     Arch
	Source   ArchSource
	Profile  Profile
	Layout   Layout
}

// Workers computes every modelled component's worker: "actor", "critic"
// (when trained), "inference" (RLinf's log-prob worker, when configured),
// "rollout", and the other engines that run the same model. An engine of
// another model (a judge) needs its own architecture: call EngineWorker
// with it. Other components (env, reward, agent) get OtherWorker.
func Workers(in Input) map[string]Worker {
	s := in.Settings
	out := map[string]Worker{}
	out["actor"] = trainer(in, &s.Actor, "actor", 1)
	if s.Critic.Value {
		out["critic"] = trainer(in, &s.Actor, "critic", 3)
	}
	if s.Inference != nil {
		out["inference"] = inference(in, s.Inference)
	}
	out["rollout"] = EngineWorker(in, "rollout", s.Rollout)
	for name, e := range s.OtherEngines {
		if !e.ModelPath.Set || e.ModelPath.Value == s.ModelPath.Value {
			out[name] = EngineWorker(in, name, e)
		}
	}
	return out
}

// OtherWorker is a component rlsolve does not model: its CUDA context and
// what the profile declares for it (component_gib.<name>) in every phase.
func OtherWorker(component string, prof Profile) Worker {
	u := Usage{part(KindContext, float64(prof.ContextBytes), prof.Source("cuda_context_gib"))}
	var notes []string
	if b, ok := prof.Components[component]; ok {
		u = append(u, part(KindProfiled, float64(b), prof.Source(componentPrefix+component)))
	} else {
		notes = append(notes, fmt.Sprintf("%s's own memory is not modelled; declare it with %s%s in --mem-profile", component, componentPrefix, component))
	}
	w := Worker{Component: component, StartOrder: 2, AfterStart: u, Notes: notes}
	for p := range w.Phases {
		w.Phases[p] = u
	}
	return w
}

// context is a process's CUDA context and NCCL buffers.
func (in Input) context() Usage {
	p := in.Profile
	return Usage{
		part(KindContext, float64(p.ContextBytes), p.Source("cuda_context_gib")),
		part(KindNCCL, float64(p.NCCLBytes), p.Source("nccl_gib")),
	}
}

// modelDriver is the model path (or type) as a driver.
func (in Input) modelDriver() Driver {
	s := in.Settings
	d := stringDriver(RoleModel, s.ModelPath)
	if !s.ModelPath.Set {
		d = stringDriver(RoleModel, s.ModelType)
	}
	if d.Span == (model.Span{}) {
		d.Span = in.Source.Span
	}
	return d
}
