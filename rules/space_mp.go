package rules

import (
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// mpUnplaced refuses the parts of a multi-agent run (wideseek) that solve
// does not place: a rollout engine on a part of the actor's GPUs (RLinf
// asserts every rollout component's GPUs are a subset of the actor's;
// which part is the run's choice), and a reward on GPUs of its own (RLinf
// asserts actor and reward on the same GPUs). Components that share the
// actor's devices (`with`) are placed. What RLinf asserts of the
// components a config names, whatever their devices, is the
// model-parallel rules' (mpChecks); AUTO mode's order is a constraint of
// the space (autoOrder).
func (s *Space) mpUnplaced() {
	if s.Class != model.ClassMultiAgent && s.Class != model.ClassMultiAgentEval {
		return
	}
	s.enginesInRequiredActor()
	for _, d := range s.Demands {
		if d.With >= 0 || d.WithPlaced >= 0 {
			continue
		}
		e := &s.cfg.Components[d.Entry]
		switch {
		case s.names(d, "reward"):
			s.errorf(e.Requirement.Span, "%s: %s puts reward on the actor's GPUs; write `with: actor`", d.Name, s.Class.RLinfClass()).Help =
				[]model.Fix{{Message: "share the actor's devices: `reward: {with: actor}`"}}
		case strings.HasPrefix(names(e), "rollout") && !s.names(d, "actor"):
			s.errorf(e.Requirement.Span, "%s: %s runs each rollout engine on a part of the actor's GPUs, which solve does not choose; write `with: actor` (all of them) or its placement", d.Name, s.Class.RLinfClass()).Help =
				[]model.Fix{{Message: "write the engine's part of the actor's GPUs as a placement, e.g. `" + d.Name + ": 0-3`"}}
		}
	}
}

// enginesInRequiredActor refuses a placed rollout engine inside an actor
// solve is to place: the engine's GPUs must be the actor's, which solve
// would keep the actor off (a placed component's devices are its own).
func (s *Space) enginesInRequiredActor() {
	actor := entryNamed(s.cfg, "actor")
	if actor < 0 || s.cfg.Components[actor].Requirement == nil {
		return
	}
	for ei := range s.cfg.Components {
		e := &s.cfg.Components[ei]
		if e.Requirement == nil && len(e.Segments) > 0 && strings.HasPrefix(names(e), "rollout") {
			s.errorf(e.PlacementSpan, "%s is placed inside the actor's GPUs, which solve is to choose; place the actor too, or give %s as `with: actor`", names(e), names(e))
		}
	}
}
