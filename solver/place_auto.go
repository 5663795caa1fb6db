package solver

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-air/gini/z"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
)

// autoOrder adds AUTO mode's order (rules.AutoOrder) over the cluster's
// GPUs in rank order: the actor takes the first, each of rollout and
// inference starts right after the one before it ends, and the last
// takes the last GPU. With each component one contiguous range and its
// count, that is the one layout RLinf accepts.
func (in *instance) autoOrder() {
	a := in.sp.Auto
	if a == nil || a.GPUs == 0 {
		return
	}
	var flats [][]z.Lit
	var facts []int // the fact of each flat: a placed entry's, else -1
	for k, ei := range a.Entries {
		if ei < 0 {
			continue
		}
		f, ok := in.flat(ei, a.Placed[k], a.GPUs)
		if !ok {
			return // a broken with chain: solve says so
		}
		flats, facts = append(flats, f), append(facts, a.PlacedFacts[k])
	}
	in.unlessAll([]int{a.Fact, facts[0]}, flats[0][0])
	for k := 1; k < len(flats); k++ {
		prev, next := flats[k-1], flats[k]
		for p := 0; p+1 < a.GPUs; p++ {
			in.unlessAll([]int{a.Fact, facts[k-1], facts[k]}, prev[p].Not(), prev[p+1], next[p+1])
		}
	}
	last := len(flats) - 1
	in.unlessAll([]int{a.Fact, facts[last]}, flats[last][a.GPUs-1])
}

// unlessAll is the clause ms guarded by the selectors of facts (-1: none).
func (in *instance) unlessAll(facts []int, ms ...z.Lit) {
	if in.explain {
		for _, f := range facts {
			if f >= 0 {
				ms = append(ms, in.sel[f].Not())
			}
		}
	}
	in.clause(ms...)
}

// flat is entry ei's literal per cluster GPU rank: constants for a placed
// entry (its ranks), its root's device literals for a requirement; ok is
// false when the requirement places on nothing of its own.
func (in *instance) flat(ei int, placed []int, n int) ([]z.Lit, bool) {
	out := make([]z.Lit, n)
	for p := range out {
		out[p] = in.c.F
	}
	if placed != nil {
		for _, r := range placed {
			if r < n {
				out[r] = in.c.T
			}
		}
		return out, true
	}
	var v *demandVars
	for i, d := range in.sp.Demands {
		if d.Entry == ei {
			v = in.rootVars(i)
		}
	}
	if v == nil {
		return nil, false
	}
	for b, ls := range v.lit {
		if !v.inGroup[b] {
			continue
		}
		for l, m := range ls {
			if p := v.blocks[b].First + l; p < n {
				out[p] = m
			}
		}
	}
	return out, true
}

// autoSizes are the GPU counts AUTO's components state (placed: their
// ranks; required: their gpus) and the demand of each required one (-1);
// ok is false when one is not a plain count (auto, with, processes).
func autoSizes(sp *rules.Space) (sizes, demands [3]int, ok bool) {
	a := sp.Auto
	for k, ei := range a.Entries {
		demands[k] = -1
		switch {
		case ei < 0:
		case a.Placed[k] != nil:
			sizes[k] = len(a.Placed[k])
		default:
			i := slices.IndexFunc(sp.Demands, func(d *rules.Demand) bool { return d.Entry == ei })
			if i < 0 || sp.Demands[i].Count == 0 || sp.Demands[i].CountFact < 0 || sp.Facts[sp.Demands[i].CountFact].Name != "gpus" {
				return sizes, demands, false
			}
			sizes[k], demands[k] = sp.Demands[i].Count, i
		}
	}
	return sizes, demands, true
}

// autoWhy says what AUTO mode asks, with the counts when they are known.
func autoWhy(sp *rules.Space) string {
	a := sp.Auto
	why := fmt.Sprintf("In AUTO mode (auto_scheduler) RLinf runs actor, rollout and inference on the cluster's %d GPUs in that order and leaves none over: the actor from GPU 0, each next one right after, the last ending at GPU %d", a.GPUs, a.GPUs-1)
	if sizes, _, ok := autoSizes(sp); ok {
		var parts []string
		total := 0
		for k, ei := range a.Entries {
			if ei >= 0 {
				parts = append(parts, strconv.Itoa(sizes[k]))
				total += sizes[k]
			}
		}
		why += fmt.Sprintf("; these take %s = %d", strings.Join(parts, " + "), total)
		if total == a.GPUs {
			why += ", all of them, but in that order a process, engine or TP group would cross a node boundary"
		}
	}
	return why + "."
}

// autoFill proposes, for a conflict of AUTO mode's order, the count of a
// required component that makes the three fill the cluster, when solving
// again confirms it.
func autoFill(sp *rules.Space, core []int, gone func(*rules.Space) bool) []model.Fix {
	a := sp.Auto
	if a == nil || !slices.Contains(core, a.Fact) {
		return nil
	}
	sizes, demands, ok := autoSizes(sp)
	if !ok {
		return nil
	}
	total := sizes[0] + sizes[1] + sizes[2]
	var out []model.Fix
	for k := 2; k >= 0; k-- {
		i := demands[k]
		if i < 0 || !slices.Contains(core, sp.Demands[i].CountFact) {
			continue
		}
		d := sp.Demands[i]
		n := a.GPUs - (total - sizes[k])
		if n <= 0 || n == d.Count || n%max(1, d.Unit) != 0 || !gone(sp.Variant(i, func(v *rules.Demand) { v.Count, v.Procs = n, 0 })) {
			continue
		}
		f := sp.Facts[d.CountFact]
		out = append(out, model.Fix{Message: fmt.Sprintf("ask for gpus: %d instead of %d, so that AUTO mode's components fill the %d GPUs", n, d.Count, a.GPUs),
			Edits: []model.Edit{{Span: f.Span, NewText: strconv.Itoa(n)}}})
	}
	return out
}

// autoDemand reports whether demand i is one of AUTO mode's components.
func autoDemand(sp *rules.Space, i int) bool {
	return sp.Auto != nil && slices.Contains(sp.Auto.Entries[:], sp.Demands[i].Entry)
}
