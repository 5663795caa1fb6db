package rules

import (
	"slices"

	"github.com/rlsolve/rlsolve/model"
)

// mpUnplaced refuses the model-parallel configs that solve does not place
// (yet): multi-agent runs, and AUTO mode with the actor or rollout to
// place. What RLinf asserts of the components a config names, whatever
// their devices (those present, inference beside a collocated rollout or
// with recompute_logprobs false), is the model-parallel rules' (mpChecks):
// solve judges them before it builds the space.
func (s *Space) mpUnplaced() {
	if !s.mpClass() {
		return
	}
	if (s.Class == model.ClassMultiAgent || s.Class == model.ClassMultiAgentEval) && len(s.Demands) > 0 {
		s.errorf(s.cfg.Components[s.Demands[0].Entry].Requirement.Span, "solve does not place the components of a multi-agent run (%s), whose rollouts, reward and extra engines share the actor's GPUs in shapes of their own; write their placements", s.Class.RLinfClass())
		return
	}
	if s.Class == model.ClassModelParallelEval || !slices.ContainsFunc(s.Demands, func(d *Demand) bool { return s.names(d, "actor") || s.names(d, "rollout") }) {
		return // placed by hand: check judges them as they are
	}
	if mp := &s.cfg.ModelParallel; mp.AutoScheduler.Value && entryNamed(s.cfg, "critic") < 0 {
		s.errorf(mp.AutoScheduler.Span, "solve does not place AUTO mode (auto_scheduler), whose order RLinf fixes: actor, rollout and inference from GPU 0 to the last; write their placements")
	}
}
