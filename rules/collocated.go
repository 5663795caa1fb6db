package rules

import (
	"slices"

	"github.com/rlsolve/rlsolve/model"
)

// Which components share devices before any has them: a requirement
// `with` another takes that one's devices (its placement, when it is
// placed), any other requirement gets devices of its own. Solve reads it
// for the mode it asks the cost model for; the model-parallel rules for
// the mode of actor and rollout that are not placed yet.

// entryNamed is the entry naming component n, placed or required; -1.
func entryNamed(cfg *model.Config, n string) int {
	return slices.IndexFunc(cfg.Components, func(e model.ComponentEntry) bool { return slices.Contains(e.Names, n) })
}

// owner follows `with` from entry ei to the entry whose devices it uses:
// itself, or the end of its chain, placed or required (a name no entry
// has ends it: solve says so); ok is false on a cycle.
func owner(cfg *model.Config, ei int) (int, bool) {
	for range len(cfg.Components) {
		r := cfg.Components[ei].Requirement
		if r == nil || !r.With.Set() {
			return ei, true
		}
		next := entryNamed(cfg, r.With.Name)
		switch {
		case next < 0:
			return ei, true
		case next == ei:
			return ei, false
		}
		ei = next
	}
	return ei, false
}

// Collocated reports whether actor and rollout share their devices: one
// entry, or one's requirement is `with` the other (directly or not).
func (s *Space) Collocated() bool {
	a, r := entryNamed(s.cfg, "actor"), entryNamed(s.cfg, "rollout")
	if a == r || a < 0 || r < 0 {
		return a == r
	}
	oa, _ := owner(s.cfg, a)
	or, _ := owner(s.cfg, r)
	return oa == or
}
