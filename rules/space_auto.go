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
// what is wrong; what no layout can make valid is refused here.
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
	if a.Entries[0] < 0 || a.Entries[1] < 0 || !s.autoRequired(a) || s.autoRefused(a) {
		return
	}
	for k, ei := range a.Entries {
		if ei < 0 {
			continue
		}
		// A requirement `with` a placed component takes that one's GPUs.
		chain, _ := withChain(s.cfg, ei)
		if owner := chain[len(chain)-1]; s.cfg.Components[owner].Requirement == nil {
			ranks, r := s.placedOn(owner)
			if r == nil {
				return
			}
			a.Placed[k] = ranks
			a.PlacedFacts[k] = slices.IndexFunc(s.Facts, func(f Fact) bool { return f.Kind == FactPlaced && f.Entry == owner })
		}
	}
	a.Fact = s.fact(Fact{Kind: FactAuto, Span: mp.AutoScheduler.Span,
		What: "auto_scheduler: AUTO mode places actor, rollout and inference in that order, from the first GPU to the last"})
	s.Auto = a
}

// autoRequired reports whether solve places one of AUTO's components.
func (s *Space) autoRequired(a *AutoOrder) bool {
	return slices.ContainsFunc(a.Entries[:], func(ei int) bool { return ei >= 0 && s.cfg.Components[ei].Requirement != nil })
}

// autoRefused refuses what no AUTO layout holds: two of its components on
// the same GPUs (RLinf asserts a disaggregated layout), another component
// with GPUs of its own (AUTO's take every GPU), and, with
// use_pre_process_policy, an actor count that rollout TP does not divide.
func (s *Space) autoRefused(a *AutoOrder) bool {
	bad := false
	roles := [3]string{"actor", "rollout", "inference"}
	for i, x := range a.Entries {
		for j := i + 1; j < len(a.Entries); j++ {
			y := a.Entries[j]
			if x >= 0 && y >= 0 {
				if same, _ := collocated(s.cfg, x, y, s.placedRanks); same || s.placedOverlap(x, y) {
					s.errorf(s.cfg.Components[y].KeySpan, "AUTO mode (auto_scheduler) runs %s and %s on GPUs of their own, in order; here they share GPUs", roles[i], roles[j])
					bad = true
				}
			}
		}
	}
	for _, d := range s.Demands {
		if d.Type == model.HardwareAccelerator && d.With < 0 && d.WithPlaced < 0 && !slices.Contains(a.Entries[:], d.Entry) {
			s.errorf(s.cfg.Components[d.Entry].Requirement.Span, "%s: in AUTO mode (auto_scheduler) actor, rollout and inference take every GPU, so %s cannot have GPUs of its own; give it another's, e.g. `with: rollout`", d.Name, d.Name)
			bad = true
		}
	}
	return s.preProcessCount(a) || bad
}

// preProcessCount refuses a required actor count that rollout TP does
// not divide under use_pre_process_policy (AUTO's rollout then starts
// with the actor's GPUs, in engines of rollout TP).
func (s *Space) preProcessCount(a *AutoOrder) bool {
	if !s.cfg.ModelParallel.UsePreProcessPolicy.Value {
		return false
	}
	e := &s.cfg.Components[a.Entries[0]]
	n, at := 0, e.PlacementSpan
	if r := e.Requirement; r != nil && r.GPUs.Set {
		n, at = r.GPUs.Value, r.GPUs.Span
	} else if ranks, ok := s.placedRanks(a.Entries[0]); ok && ranks != nil {
		n = len(ranks)
	}
	rtp := max(1, s.cfg.ModelParallel.RolloutTP.Value)
	if n == 0 || n%rtp == 0 {
		return false
	}
	s.errorf(at, "actor: with use_pre_process_policy the actor's %d GPUs must be divisible by rollout TP %d", n, rtp)
	return true
}

// placedOverlap reports whether placed entries x and y share a GPU.
func (s *Space) placedOverlap(x, y int) bool {
	a, okA := s.placedRanks(x)
	b, okB := s.placedRanks(y)
	return okA && okB && slices.ContainsFunc(a, func(r int) bool { return slices.Contains(b, r) })
}
