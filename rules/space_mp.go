package rules

import "github.com/rlsolve/rlsolve/model"

// mpUnplaced refuses the model-parallel configs that solve does not place
// (yet): multi-agent runs. What RLinf asserts of the components a config
// names, whatever their devices (those present, inference beside a
// collocated rollout or with recompute_logprobs false), is the
// model-parallel rules' (mpChecks): solve judges them before it builds the
// space. AUTO mode's order is a constraint of the space (autoOrder).
func (s *Space) mpUnplaced() {
	if (s.Class == model.ClassMultiAgent || s.Class == model.ClassMultiAgentEval) && len(s.Demands) > 0 {
		s.errorf(s.cfg.Components[s.Demands[0].Entry].Requirement.Span, "solve does not place the components of a multi-agent run (%s), whose rollouts, reward and extra engines share the actor's GPUs in shapes of their own; write their placements", s.Class.RLinfClass())
	}
}
