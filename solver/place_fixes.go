package solver

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
)

// fixes proposes, for a conflict, the edits that make the whole config
// placeable: the count that makes AUTO mode's components fill the cluster,
// a smaller count, another node group. Each is kept only when re-solving
// the edited space finds a placement.
func fixes(sp *rules.Space, core []int, opt PlaceOptions, deadline cpuDeadline) []model.Fix {
	out := autoFill(sp, core, func(v *rules.Space) bool { return conflictGone(v, core, deadline) })
	for _, f := range byPosition(sp, core) {
		if len(out) >= 3 || deadline.left() <= 0 {
			break
		}
		i := demandOf(sp, f)
		if i < 0 {
			continue
		}
		gone := func(v *rules.Space) bool { return conflictGone(v, core, deadline) }
		switch sp.Facts[f].Kind {
		case rules.FactCount:
			if autoDemand(sp, i) {
				continue // AUTO's components fill the cluster: autoFill's count, not a smaller one
			}
			verdict := func(v *rules.Space) (bool, bool) { return conflictVerdict(v, core, deadline) }
			if fix, ok := smallerCount(sp, i, verdict, deadline); ok {
				out = append(out, fix)
			}
		case rules.FactNodeGroup:
			out = append(out, otherGroups(sp, i, 3-len(out), gone, deadline)...)
		}
	}
	return out
}

// demandOf is the demand a count or node_group fact belongs to, or -1.
func demandOf(sp *rules.Space, f int) int {
	for i, d := range sp.Demands {
		if d.CountFact == f || d.GroupFact == f {
			return i
		}
	}
	return -1
}

// conflictGone reports whether the facts of a conflict hold together in
// an edited space: the edit removes this conflict, whatever others the
// config has (each gets its own fixes).
func conflictGone(v *rules.Space, core []int, deadline cpuDeadline) bool {
	gone, _ := conflictVerdict(v, core, deadline)
	return gone
}

// conflictVerdict is conflictGone, and whether a no is proven (sure):
// a yes is always a placement found, a no may be the budget or the size
// limit cutting the search.
func conflictVerdict(v *rules.Space, core []int, deadline cpuDeadline) (gone, sure bool) {
	ok, sure := feasible(v, deadline)
	if ok {
		return true, true
	}
	if checkSize(v, byDevice, true, nil) != nil {
		return false, false // not verified: not offered
	}
	ex := &explainer{sp: v, deadline: deadline, exact: true}
	_, infeasible := ex.infeasible(core)
	return !infeasible && ex.exact, sure || infeasible && ex.exact
}

// feasible reports whether a space has a placement, and whether the
// answer is proven (the budget or the size limit cut it: not sure).
func feasible(sp *rules.Space, deadline cpuDeadline) (ok, sure bool) {
	if sp.Diagnostics.HasErrors() || hall(sp, allPresent(sp)) != nil {
		return false, true
	}
	left := deadline.left()
	if left <= 0 || checkSize(sp, encodingFor(sp, false), false, nil) != nil {
		return false, false
	}
	in := newInstance(sp, false)
	if guess, ok := in.guess(nil); ok {
		in.flush(guess...)
		if st, _, _ := in.solve(left, guess...); st == sat {
			return true, true
		}
		in = afresh(in)
	}
	in.flush()
	st, _, _ := in.solve(deadline.left())
	return st == sat, st != unknown
}

// smallerCount is the largest count below the demand's that places; when
// the budget cut a probe, a count that places, not said to be the largest.
func smallerCount(sp *rules.Space, i int, gone func(*rules.Space) (bool, bool), deadline cpuDeadline) (model.Fix, bool) {
	d := sp.Demands[i]
	cur, unit := d.Count, max(1, d.Unit)
	if d.Whole > 0 {
		cur, unit = d.Whole, 1
	}
	at := func(n int) *rules.Space {
		return sp.Variant(i, func(v *rules.Demand) {
			if v.Whole > 0 {
				v.Whole = n
			} else {
				v.Count = n
				if v.Procs > 0 {
					v.Procs = 0
				}
			}
		})
	}
	lo, hi := 1, cur/unit-1 // in units
	best, most := 0, true
	for lo <= hi {
		if deadline.left() <= 0 {
			most = false
			break
		}
		mid := (lo + hi) / 2
		ok, sure := gone(at(mid * unit))
		switch {
		case ok:
			best, lo = mid, mid+1
		case sure:
			hi = mid - 1
		default: // cut: a smaller count is tried, but best is not the most
			most, hi = false, mid-1
		}
	}
	if best == 0 {
		return model.Fix{}, false
	}
	f := sp.Facts[d.CountFact]
	n := best * unit
	text, was := n, cur
	if f.Name == "processes" {
		text, was = n/unit, cur/unit
	}
	claim := "the most that fit"
	if !most {
		claim = "which fit (the budget cut the search for a larger count)"
	}
	return model.Fix{Message: fmt.Sprintf("ask for %s: %d instead of %d, %s", f.Name, text, was, claim),
		Edits: []model.Edit{{Span: f.Span, NewText: strconv.Itoa(text)}}}, true
}

// otherGroups are the node groups of the demand's type where it places.
func otherGroups(sp *rules.Space, i, limit int, gone func(*rules.Space) bool, deadline cpuDeadline) []model.Fix {
	d := sp.Demands[i]
	var out []model.Fix
	for _, l := range sp.Labels() {
		if len(out) >= limit || deadline.left() <= 0 || slices.Equal(d.Labels, []string{l}) || !model.PlainWord(l) {
			continue
		}
		blocks, ok := sp.GroupBlocks(l, d.Type)
		if !ok || !gone(sp.Variant(i, func(v *rules.Demand) { v.Blocks, v.Labels = blocks, []string{l} })) {
			continue
		}
		f := sp.Facts[d.GroupFact]
		out = append(out, model.Fix{Message: fmt.Sprintf("place %s on node group %s", d.Name, l),
			Edits: []model.Edit{{Span: f.Span, NewText: l}}})
	}
	return out
}
