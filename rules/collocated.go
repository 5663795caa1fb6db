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

// withChain is entry ei and the entries its `with` leads to, in order,
// ending at the entry whose devices they all use (placed or required; a
// name no entry has ends it: solve says so); ok is false on a cycle.
func withChain(cfg *model.Config, ei int) ([]int, bool) {
	chain := []int{ei}
	for range len(cfg.Components) {
		r := cfg.Components[ei].Requirement
		if r == nil || !r.With.Set() {
			return chain, true
		}
		next := entryNamed(cfg, r.With.Name)
		switch {
		case next < 0:
			return chain, true
		case slices.Contains(chain, next):
			return chain, false
		}
		ei = next
		chain = append(chain, ei)
	}
	return chain, false
}

// collocated reports whether entries a and b share their devices: one
// entry, `with` chains that end at one entry, or chains that end at
// entries placed on the same ranks (ranks gives a placed entry's ranks,
// nil for a requirement, which gets devices of its own; ok false when
// they cannot be read). known is false when that cannot be told.
func collocated(cfg *model.Config, a, b int, ranks func(ei int) ([]int, bool)) (same, known bool) {
	if a == b {
		return true, true
	}
	ca, okA := withChain(cfg, a)
	cb, okB := withChain(cfg, b)
	if !okA || !okB {
		return false, false
	}
	oa, ob := ca[len(ca)-1], cb[len(cb)-1]
	if oa == ob {
		return true, true
	}
	la, okA := ranks(oa)
	lb, okB := ranks(ob)
	if !okA || !okB {
		return false, false
	}
	return la != nil && slices.Equal(la, lb), true
}

// Collocated reports whether actor and rollout share their devices: one
// entry, one's requirement `with` the other (directly or not), or both
// taking the devices of components placed on the same GPUs.
func (s *Space) Collocated() bool {
	a, r := entryNamed(s.cfg, "actor"), entryNamed(s.cfg, "rollout")
	if a < 0 || r < 0 {
		return a == r
	}
	same, _ := collocated(s.cfg, a, r, s.placedRanks)
	return same
}
