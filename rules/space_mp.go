package rules

import (
	"slices"

	"github.com/rlsolve/rlsolve/model"
)

// The model-parallel classes assert of the components a config names,
// whatever their devices, what solve cannot change by choosing devices
// (semantics §5.2 steps 3-4): solve refuses such a config before placing,
// with the codes check gives, rather than place what check refuses.

// mpAssertions refuses a model-parallel config that solve cannot make
// valid: a component the class asserts is missing, inference beside a
// collocated rollout or with recompute_logprobs false; and what solve does
// not place (yet): AUTO mode, multi-agent runs.
func (s *Space) mpAssertions() {
	if !s.mpClass() {
		return
	}
	required := []string{"actor", "rollout", "reward"}
	eval := s.Class == model.ClassModelParallelEval || s.Class == model.ClassMultiAgentEval
	if eval {
		required = []string{"rollout", "reward"}
	}
	for _, n := range required {
		if s.entryNaming(n) < 0 {
			s.Diagnostics.Errorf(model.CodeMPMissing, s.cfg.ComponentsSpan, "", "%s needs a `%s` component, placed or required; solve places the components the config names and adds none", s.Class.RLinfClass(), n).Why =
				"RLinf's " + s.Class.RLinfClass() + " asserts " + joinAnd(required) + " GPUs before anything else."
			return
		}
	}
	if (s.Class == model.ClassMultiAgent || s.Class == model.ClassMultiAgentEval) && len(s.Demands) > 0 {
		s.errorf(s.cfg.Components[s.Demands[0].Entry].Requirement.Span, "solve does not place the components of a multi-agent run (%s), whose rollouts, reward and extra engines share the actor's GPUs in shapes of their own; write their placements", s.Class.RLinfClass())
		return
	}
	if eval || !slices.ContainsFunc(s.Demands, func(d *Demand) bool { return s.names(d, "actor") || s.names(d, "rollout") }) {
		return // placed by hand: check judges them as they are
	}
	mp := &s.cfg.ModelParallel
	if mp.AutoScheduler.Value && s.entryNaming("critic") < 0 {
		s.errorf(mp.AutoScheduler.Span, "solve does not place AUTO mode (auto_scheduler), whose order RLinf fixes: actor, rollout and inference from GPU 0 to the last; write their placements")
		return
	}
	infer := s.entryNaming("inference")
	if infer < 0 {
		infer = s.entryNaming("actor_inference")
	}
	if extra := max(infer, s.entryNaming("critic_inference")); extra >= 0 && s.Collocated() {
		s.Diagnostics.Errorf(model.CodeMPCollocatedExtra, s.cfg.Components[extra].KeySpan, "", "rollout shares actor's devices (collocated mode), where RLinf refuses %s GPUs", names(&s.cfg.Components[extra])).Why =
			"In collocated mode actor and rollout take turns on the same GPUs; RLinf asserts that no inference GPUs are given."
	} else if infer >= 0 && mp.RecomputeLogprobs.Set && !mp.RecomputeLogprobs.Value {
		d := s.Diagnostics.Errorf(model.CodeMPRecompute, s.cfg.Components[infer].KeySpan, "", "algorithm.recompute_logprobs is false, which disables inference, but %s is given", names(&s.cfg.Components[infer]))
		d.Labels = []model.Label{{Span: mp.RecomputeLogprobs.Span, Message: "disables inference"}}
	}
}

// Collocated reports whether actor and rollout share their devices: one
// entry, or one's requirement is `with` the other (directly or not).
func (s *Space) Collocated() bool {
	a, r := s.entryNaming("actor"), s.entryNaming("rollout")
	if a == r {
		return true
	}
	root := func(entry int) int {
		for i, d := range s.Demands {
			if d.Entry == entry {
				rd := s.Demands[s.Root(i)]
				if rd.WithPlaced >= 0 {
					return rd.WithPlaced
				}
				return rd.Entry
			}
		}
		return entry
	}
	return root(a) == root(r)
}

// entryNaming is the entry naming component n, placed or required; -1.
func (s *Space) entryNaming(n string) int {
	return slices.IndexFunc(s.cfg.Components, func(e model.ComponentEntry) bool { return slices.Contains(e.Names, n) })
}
