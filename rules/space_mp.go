package rules

import (
	"slices"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// mpUnplaced refuses the parts of a multi-agent run (wideseek) that solve
// does not place, before placing: RLinf asserts the reward on the actor's
// GPUs, every rollout component's GPUs a subset of the actor's and the
// extra engines on GPUs of their own, and its AUTO mode checks come first
// and refuse such a run. Components that share the actor's devices
// (`with`, directly or through a chain) are placed; an engine on a part
// of the actor's GPUs is the run's choice, written as a placement. What
// RLinf asserts of the components a config names, whatever their
// devices, is the model-parallel rules' (mpChecks); AUTO mode's order is
// a constraint of the space (autoOrder).
func (s *Space) mpUnplaced() {
	if s.Class != model.ClassMultiAgent && s.Class != model.ClassMultiAgentEval {
		return
	}
	if mp := &s.cfg.ModelParallel; mp.AutoScheduler.Value && entryNamed(s.cfg, "critic") < 0 {
		s.errorf(mp.AutoScheduler.Span, "%s runs ModelParallel's AUTO mode checks first, which refuse the GPUs a multi-agent run shares; drop auto_scheduler", s.Class.RLinfClass())
		return
	}
	s.placedInRequiredActor()
	exclusive := 0 // extra engines on all of the actor's GPUs
	for _, d := range s.Demands {
		if s.names(d, "actor") {
			continue
		}
		onActor := s.onActorGPUs(d)
		e := &s.cfg.Components[d.Entry]
		switch {
		case s.names(d, "reward") && !onActor:
			s.errorf(e.Requirement.Span, "%s: %s puts reward on the actor's GPUs; write `with: actor`", d.Name, s.Class.RLinfClass()).Help =
				[]model.Fix{{Message: "share the actor's devices: `reward: {with: actor}`"}}
		case strings.HasPrefix(names(e), "rollout") && !onActor:
			s.errorf(e.Requirement.Span, "%s: %s runs each rollout engine on a part of the actor's GPUs, which solve does not choose; write `with: actor` (all of them) or its placement", d.Name, s.Class.RLinfClass()).Help =
				[]model.Fix{{Message: "write the engine's part of the actor's GPUs as a placement, e.g. `" + d.Name + ": 0-3`"}}
		case onActor && !slices.ContainsFunc(e.Names, model.SharedInMultiAgent):
			exclusive++
			if exclusive == 2 || exclusive == 1 && s.placedExclusive() {
				s.errorf(e.Requirement.Span, "%s: %s runs each extra engine on GPUs of its own, but %s takes all of the actor's GPUs beside another engine; write their placements (parts of the actor's GPUs)", d.Name, s.Class.RLinfClass(), d.Name)
			}
		}
	}
}

// onActorGPUs reports whether demand d takes the actor's devices: its
// `with` chain ends at the actor's entry, or at a component placed on the
// actor's placed GPUs.
func (s *Space) onActorGPUs(d *Demand) bool {
	actor := entryNamed(s.cfg, "actor")
	if actor < 0 || d.With < 0 && d.WithPlaced < 0 {
		return false
	}
	same, _ := collocated(s.cfg, d.Entry, actor, s.placedRanks)
	return same
}

// placedExclusive reports whether an extra engine is placed: its GPUs
// are the actor's too, so another engine cannot take all of them.
func (s *Space) placedExclusive() bool {
	return slices.ContainsFunc(s.cfg.Components, func(e model.ComponentEntry) bool {
		return e.Requirement == nil && len(e.Segments) > 0 && !slices.ContainsFunc(e.Names, model.SharedInMultiAgent)
	})
}

// placedInRequiredActor refuses a placed rollout engine or reward inside
// an actor solve is to place: their GPUs must be the actor's, which solve
// would keep the actor off (a placed component's devices are its own).
func (s *Space) placedInRequiredActor() {
	actor := entryNamed(s.cfg, "actor")
	if actor < 0 || s.cfg.Components[actor].Requirement == nil {
		return
	}
	for ei := range s.cfg.Components {
		e := &s.cfg.Components[ei]
		if e.Requirement == nil && len(e.Segments) > 0 && (strings.HasPrefix(names(e), "rollout") || slices.Contains(e.Names, "reward")) {
			s.errorf(e.PlacementSpan, "%s is placed on the actor's GPUs, which solve is to choose; place the actor too, or give %s as `with: actor`", names(e), names(e))
		}
	}
}
