package rules

import (
	"slices"

	"github.com/rlsolve/rlsolve/model"
)

// AutoOrder is AUTO mode's order of the model-parallel components
// (semantics §5.2 step 4): the actor from the first GPU, the rollout right
// after it, the inference right after that, ending at the last GPU (the
// rollout ends there when there is no inference). Solve places the
// required ones in that order; placed ones stay where they are.
type AutoOrder struct {
	// Fact is cluster.auto_scheduler's: lifted, the order is not asked.
	Fact int
	// Entries are actor, rollout and inference (-1: absent); Placed[k] the
	// cluster ranks of a placed one (nil for a requirement) and
	// PlacedFacts[k] its fact (-1).
	Entries     [3]int
	Placed      [3][]int
	PlacedFacts [3]int
	// GPUs is the cluster's accelerator count.
	GPUs int
}

// autoOrder records AUTO mode's order when the config asks for it and
// solve places actor, rollout or inference. Without an actor or a
// rollout, or with one that does not read, the model-parallel rules say
// what is wrong.
func (s *Space) autoOrder() {
	mp := &s.cfg.ModelParallel
	if s.Class != model.ClassModelParallel || !mp.AutoScheduler.Value || entryNamed(s.cfg, "critic") >= 0 {
		return
	}
	infer := entryNamed(s.cfg, "inference")
	if infer < 0 {
		infer = entryNamed(s.cfg, "actor_inference")
	}
	a := &AutoOrder{Entries: [3]int{entryNamed(s.cfg, "actor"), entryNamed(s.cfg, "rollout"), infer}, PlacedFacts: [3]int{-1, -1, -1},
		GPUs: s.view.NumAccelerators()}
	if a.Entries[0] < 0 || a.Entries[1] < 0 {
		return
	}
	required := false
	for k, ei := range a.Entries {
		switch {
		case ei < 0:
		case s.cfg.Components[ei].Requirement != nil:
			required = true
		default:
			ranks, r := s.placedOn(ei)
			if r == nil {
				return
			}
			a.Placed[k] = ranks
			a.PlacedFacts[k] = slices.IndexFunc(s.Facts, func(f Fact) bool { return f.Kind == FactPlaced && f.Entry == ei })
		}
	}
	if !required {
		return
	}
	a.Fact = s.fact(Fact{Kind: FactAuto, Span: mp.AutoScheduler.Span,
		What: "auto_scheduler: AUTO mode places actor, rollout and inference in that order, from the first GPU to the last"})
	s.Auto = a
}
