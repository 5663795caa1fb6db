// Package suggest is rlsolve's placement suggester: RLinf's auto-placement
// cost model (spec/auto-placement.md §1.3-1.4) for reasoning layouts, a
// consistent per-iteration model for embodied ones, and an exact search over
// every collocated and contiguous split layout of N GPUs. Only layouts that
// rlsolve's own check accepts are suggested: a fast arithmetic filter prunes
// the enumeration, and every suggestion is re-checked with the real check
// (pipeline.CheckBytes) before it is returned.
//
// design.md puts suggest's search in solver/; it lives in its own package so
// that it can use the whole check pipeline (pipeline imports solver).
package suggest

import (
	"fmt"
	"sort"

	"github.com/rlsolve/rlsolve/model"
)

// Task types.
const (
	TaskReasoning = "reasoning"
	TaskEmbodied  = "embodied"
)

// Where the costs came from.
const (
	SourceConfig  = "profile_data"
	SourceFlag    = "--profile"
	SourceDefault = "default (balanced)"
)

// Spec is everything the cost model needs, read from an RLinf training
// config (or defaulted), independent of the cluster it is planned for.
type Spec struct {
	Task      string
	Reasoning *Reasoning
	Embodied  *Embodied
	// ProfileSource says where the costs came from: SourceConfig,
	// SourceFlag or SourceDefault.
	ProfileSource string
	// Notes are what the reader assumed (defaults used), for the user.
	Notes []string
	// Warnings are like notes but point at something RLinf would reject.
	Warnings []string
	// NumNodes is the config's cluster.num_nodes (0 when absent), and
	// Inventory its top-level inventory: (nil when absent): the CLI plans
	// for them when no flag says otherwise.
	NumNodes  int
	Inventory *model.Inventory

	// file is the config's name ("" without one), spans the positions of
	// spanPaths in it, and current the GPUs it places each component on
	// (current.go).
	file    string
	spans   map[string]model.Span
	current map[string]placed
}

// Reasoning holds the keys the reasoning cost model reads (§1.1).
type Reasoning struct {
	RolloutBatch       int // data.rollout_batch_size (R)
	GroupSize          int // algorithm.group_size (gs)
	Minibatches        int // algorithm.n_minibatches (nmb)
	MaxRunningRequests int // rollout.max_running_requests (mrr)
	Recompute          bool

	// Seconds per step, measured in the profiled placement.
	ActorCost, RolloutCost, InferenceCost float64
	HasInferenceCost                      bool

	ActorTP, ActorCP, ActorPP int
	RolloutTP, RolloutPP      int
	// InferenceTP and InferencePP are the inference model's sizes (actor TP
	// and 1 when the config sets none); InferenceTPSet says the config set
	// inference.model.tensor_model_parallel_size, which the generated
	// config then carries.
	InferenceTP, InferencePP int
	InferenceTPSet           bool

	// Profiled world sizes: each component's GPU count in the config's
	// component_placement (0: all N GPUs). ProfiledInference is 0 when
	// inference is not placed there (it then borrows the actor's), -1 when
	// it is placed on all GPUs.
	ProfiledActor, ProfiledRollout, ProfiledInference int
}

// Embodied holds the keys of the embodied model.
type Embodied struct {
	Envs int // data.env_num (E)
	// Env and Rollout map envs per GPU to seconds per iteration; nil means
	// the default (seconds proportional to envs per GPU, any load).
	Env, Rollout Profile
	ActorCost    float64
	// Stages is rollout.pipeline_stage_num: how many chunks the envs are
	// split into so that env and rollout on different GPUs overlap.
	Stages int
}

// Point is one profiled load.
type Point struct {
	Load    int // envs per GPU
	Seconds float64
}

// Profile is a measured time-per-iteration curve, sorted by load.
type Profile []Point

// At is the profile's time at load x (envs per GPU): the measured value
// where one exists, linear interpolation between measured loads, the
// smallest load's value below it (rlsolve extrapolates no speed-up), and
// nothing above the largest measured load. A nil profile is the default:
// one second per env per GPU, at any load.
func (p Profile) At(x int) (float64, bool) {
	if x <= 0 {
		return 0, false
	}
	if p == nil {
		return float64(x), true
	}
	i := sort.Search(len(p), func(i int) bool { return p[i].Load >= x })
	switch {
	case i == len(p):
		return 0, false
	case p[i].Load == x || i == 0:
		return p[i].Seconds, true
	}
	a, b := p[i-1], p[i]
	return a.Seconds + (b.Seconds-a.Seconds)*float64(x-a.Load)/float64(b.Load-a.Load), true
}

// Max is the largest profiled load (0 for the default profile).
func (p Profile) Max() int {
	if len(p) == 0 {
		return 0
	}
	return p[len(p)-1].Load
}

// DefaultReasoning is what suggest assumes without a config file.
func DefaultReasoning() *Reasoning {
	return &Reasoning{RolloutBatch: 512, GroupSize: 16, Minibatches: 4, MaxRunningRequests: 128, Recompute: true,
		ActorCost: 1, RolloutCost: 1, InferenceCost: 1, HasInferenceCost: true,
		ActorTP: 1, ActorCP: 1, ActorPP: 1, RolloutTP: 1, RolloutPP: 1, InferenceTP: 1, InferencePP: 1}
}

// DefaultSpec is a reasoning spec with balanced costs, used when no config
// file is given.
func DefaultSpec() *Spec {
	return &Spec{Task: TaskReasoning, Reasoning: DefaultReasoning(), ProfileSource: SourceDefault,
		Notes: []string{"no config file: reasoning with rollout_batch_size 512, group_size 16, n_minibatches 4, max_running_requests 128, recompute_logprobs true, every TP/PP size 1, profiled collocated on all GPUs"}}
}

// ApplyProfile overrides costs with --profile's name=seconds pairs. Over
// default costs it must name every cost the model needs; over a config's
// profile_data it replaces the costs it names.
func (s *Spec) ApplyProfile(costs map[string]float64) error {
	if len(costs) == 0 {
		return nil
	}
	names := make([]string, 0, len(costs))
	for k := range costs {
		names = append(names, k)
	}
	sort.Strings(names)
	fresh := s.ProfileSource == SourceDefault
	if fresh && s.Task == TaskReasoning {
		r := s.Reasoning
		if _, ok := costs["actor"]; !ok {
			return fmt.Errorf("--profile must give actor=SECONDS (the config has no profile_data)")
		}
		if _, ok := costs["rollout"]; !ok {
			return fmt.Errorf("--profile must give rollout=SECONDS (the config has no profile_data)")
		}
		if _, ok := costs["inference"]; !ok && r.Recompute {
			return fmt.Errorf("--profile must give inference=SECONDS: recompute_logprobs is true, so the inference stage runs")
		}
		r.InferenceCost, r.HasInferenceCost = 0, false
	}
	for _, k := range names {
		v := costs[k]
		switch {
		case s.Task == TaskReasoning && k == "actor":
			s.Reasoning.ActorCost = v
		case s.Task == TaskReasoning && k == "rollout":
			s.Reasoning.RolloutCost = v
		case s.Task == TaskReasoning && k == "inference":
			s.Reasoning.InferenceCost, s.Reasoning.HasInferenceCost = v, true
		case s.Task == TaskEmbodied && k == "actor":
			s.Embodied.ActorCost = v
		default:
			if s.Task == TaskEmbodied {
				return fmt.Errorf("--profile: %q is not a cost of the embodied model (only actor; env and rollout costs are curves: profile_data.env_profile_data and rollout_profile_data)", k)
			}
			return fmt.Errorf("--profile: unknown component %q (use actor, rollout and inference)", k)
		}
	}
	if fresh && s.Task == TaskEmbodied {
		// The env and rollout curves stay the default ones.
		s.ProfileSource = "--profile (actor) and the default env and rollout curves"
		return nil
	}
	s.ProfileSource = SourceFlag
	return nil
}
