package solver

import (
	"github.com/go-air/gini/z"
	"github.com/rlsolve/rlsolve/rules"
)

// demandRules adds demand i's constraints on the literals it places on:
// the shape of a root's devices, and every demand's units, count and
// node groups.
func (in *instance) demandRules(i int) {
	d := in.sp.Demands[i]
	v := in.rootVars(i)
	if v == nil {
		return // it copies a placed component, or its with chain is broken
	}
	switch {
	case v.d == d && in.enc == byNode:
		// shaped with its literals: a sharer before it in the file reads
		// its counts
	case v.d == d:
		in.shape(v)
	default:
		in.restrictGroup(d, v)
	}
	if in.enc == byDevice {
		in.units(d, v) // the node encoding counts in units of every sharer's
	}
	in.count(d, v)
}

// shape makes each block's share one contiguous run (or the whole range
// one run, for a model-parallel component; or whole nodes), and builds the
// counts.
func (in *instance) shape(v *demandVars) {
	c := in.c
	var starts []z.Lit
	for b, ls := range v.lit {
		if v.d.Whole > 0 {
			for _, m := range ls[1:] {
				in.clause(ls[0].Not(), m)
				in.clause(ls[0], m.Not())
			}
		} else if !v.d.Global {
			in.atMostOne(localStarts(in, ls))
		}
		v.count = append(v.count, popcount(c, ls))
		v.any = append(v.any, c.Ors(ls...))
		if v.d.Global {
			prev := c.F
			if b > 0 {
				prevLs := v.lit[b-1]
				prev = prevLs[len(prevLs)-1]
			}
			for l, m := range ls {
				if l > 0 {
					prev = ls[l-1]
				}
				starts = append(starts, c.And(m, prev.Not()))
			}
		}
	}
	if v.d.Global {
		in.atMostOne(starts)
	}
	v.total = sum(c, v.count)
}

// localStarts are the literals "a run starts at device l" of one block.
func localStarts(in *instance, ls []z.Lit) []z.Lit {
	out := make([]z.Lit, len(ls))
	for l, m := range ls {
		out[l] = m
		if l > 0 {
			out[l] = in.c.And(m, ls[l-1].Not())
		}
	}
	return out
}

// atMostOne is the sequential (ladder) encoding: prefix ORs, and no
// literal true once one before it is.
func (in *instance) atMostOne(ms []z.Lit) {
	prefix := in.c.F
	for _, m := range ms {
		if m == in.c.F {
			continue
		}
		in.clause(prefix.Not(), m.Not())
		prefix = in.c.Or(prefix, m)
	}
}

// units makes each block's run a multiple of the demand's unit: a run
// starting at l ends at l+k*unit-1.
func (in *instance) units(d *rules.Demand, v *demandVars) {
	u := d.Unit
	if u <= 1 {
		return
	}
	if d.Whole > 0 {
		for _, ls := range v.lit {
			if len(ls)%u != 0 {
				in.clause(ls[0].Not()) // whole nodes of whole units only
			}
		}
		return
	}
	c := in.c
	for _, ls := range v.lit {
		n := len(ls)
		for l := range ls {
			start := ls[l]
			if l > 0 {
				start = c.And(ls[l], ls[l-1].Not())
			}
			ends := []z.Lit{start.Not()}
			for e := l + u - 1; e < n; e += u {
				end := ls[e]
				if e+1 < n {
					end = c.And(ls[e], ls[e+1].Not())
				}
				ends = append(ends, end)
			}
			in.clause(ends...)
		}
	}
}

// count holds the demand to its devices (or whole nodes) while its count
// fact is present.
func (in *instance) count(d *rules.Demand, v *demandVars) {
	switch {
	case d.CountFact < 0:
	case d.Whole > 0:
		in.unless(d.CountFact, eq(in.c, popcount(in.c, v.any), d.Whole))
	case d.Count > 0 && in.enc == byNode && !in.explain:
		in.uncounted = append(in.uncounted, countRule{d: d, v: v})
	case d.Count > 0:
		in.unless(d.CountFact, eq(in.c, v.total, d.Count))
	}
}

// countRule is a demand's device count on its root's devices, not yet a
// clause (node encoding).
type countRule struct {
	d *rules.Demand
	v *demandVars
}

// restrictGroup keeps a demand that shares its root's devices inside its
// own node groups (while its node_group is present).
func (in *instance) restrictGroup(d *rules.Demand, v *demandVars) {
	if d.GroupFact < 0 {
		return
	}
	own := map[rules.Device]bool{}
	for _, b := range d.Blocks {
		own[rules.Device{Node: b.Node, Type: b.Type}] = true
	}
	for b, blk := range v.blocks {
		if own[rules.Device{Node: blk.Node, Type: blk.Type}] {
			continue
		}
		if in.enc == byNode {
			in.unless(d.GroupFact, v.any[b].Not())
			continue
		}
		for _, m := range v.lit[b] {
			in.unless(d.GroupFact, m.Not())
		}
	}
}

// separate keeps demands that do not share devices off each other's: each
// root has devices of its own, and apart_from says so again.
func (in *instance) separate() {
	index := make([]map[rules.Device]z.Lit, len(in.roots))
	for i, v := range in.roots {
		if v == nil || v.d.Type == "" {
			continue
		}
		index[i] = map[rules.Device]z.Lit{}
		for b, blk := range v.blocks {
			for l, m := range v.lit[b] {
				if m != in.c.F {
					index[i][blk.Device(l)] = m
				}
			}
		}
	}
	for i := range in.roots {
		for j := i + 1; j < len(in.roots); j++ {
			if index[i] == nil || index[j] == nil || in.roots[i].d.Type != in.roots[j].d.Type {
				continue
			}
			facts := in.separation(i, j)
			for dev, mi := range index[i] {
				if mj, ok := index[j][dev]; ok {
					in.apart(facts, mi, mj)
				}
			}
		}
	}
}

// separation lists the facts that keep roots i and j apart: their own
// devices, and apart_from between any demands on them.
func (in *instance) separation(i, j int) []int {
	facts := []int{in.roots[i].d.OwnFact, in.roots[j].d.OwnFact}
	for k, d := range in.sp.Demands {
		rk := in.sp.Root(k)
		for _, a := range d.Apart {
			ra := in.sp.Root(a)
			if rk == i && ra == j || rk == j && ra == i {
				facts = append(facts, d.ApartFacts[a])
			}
		}
	}
	return facts
}

// apart forbids one device to both literals while any of the facts holds.
func (in *instance) apart(facts []int, a, b z.Lit) {
	if !in.explain {
		in.clause(a.Not(), b.Not())
		return
	}
	for _, f := range facts {
		if f >= 0 {
			in.clause(a.Not(), b.Not(), in.sel[f].Not())
		}
	}
}
