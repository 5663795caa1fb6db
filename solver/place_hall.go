package solver

import (
	"fmt"
	"slices"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
)

// Counting before searching: demands that keep their own devices cannot
// together take more devices than there are free where they may go (Hall's
// condition). A SAT solver proves that by case analysis, exponentially
// slowly (it is the pigeonhole principle); arithmetic proves it at once,
// and names the facts that make it so. Every bound here is an upper bound
// on what a demand can take, so a shortfall is a proof.

// shortfall is a set of facts whose demands need more than they can have.
type shortfall struct {
	facts      []int
	need, have int
	unit       string
	who        []string
}

// hall looks for a shortfall among the facts present.
func hall(sp *rules.Space, present []bool) *shortfall {
	if s := placedOnExcluded(sp, present); s != nil {
		return s
	}
	hs := newHallSet(sp, present)
	for _, t := range hs.types() {
		if s := hs.worst(t); s != nil {
			return s
		}
	}
	return nil
}

// placedOnExcluded is a placed component on a node solve must not use.
func placedOnExcluded(sp *rules.Space, present []bool) *shortfall {
	var found *shortfall
	for dev, f := range sp.Taken {
		df, down := sp.Down[dev.Node]
		if !down || !present[f] || !present[df] {
			continue
		}
		s := &shortfall{facts: []int{f, df}}
		if found == nil || f < found.facts[0] || f == found.facts[0] && df < found.facts[1] {
			found = s
		}
	}
	return found
}

// hallRoot is one root demand under the facts present: what it needs and
// the free devices it may take.
type hallRoot struct {
	i      int
	d      *rules.Demand
	need   int
	whole  int
	facts  []int // its count facts (and with facts)
	free   *freeSet
	blocks []rules.Block
	// domainFacts are the facts that shape free (groups, placed, excluded).
	domainFacts map[rules.Device][]int
	groupFacts  []int
	usable      int
}

type hallSet struct {
	sp      *rules.Space
	present []bool
	roots   []*hallRoot
}

func newHallSet(sp *rules.Space, present []bool) *hallSet {
	hs := &hallSet{sp: sp, present: present}
	for i, d := range sp.Demands {
		if sp.Root(i) != i || d.With >= 0 || d.WithPlaced >= 0 || d.Type == "" {
			continue
		}
		if r := hs.root(i, d); r != nil {
			hs.roots = append(hs.roots, r)
		}
	}
	return hs
}

func (hs *hallSet) has(f int) bool { return f >= 0 && hs.present[f] }

// root reads demand i's need and free devices; nil when it needs nothing
// under the facts present.
func (hs *hallSet) root(i int, d *rules.Demand) *hallRoot {
	r := &hallRoot{i: i, d: d, domainFacts: map[rules.Device][]int{}}
	if hs.has(d.CountFact) {
		r.need, r.whole = d.Count, d.Whole
		r.facts = append(r.facts, d.CountFact)
	}
	for j, w := range hs.sp.Demands {
		if j == i || hs.sp.Root(j) != i || !hs.has(w.CountFact) || w.Whole > 0 || w.Count == 0 {
			continue
		}
		if r.need == 0 {
			r.need = w.Count
			r.facts = append(r.facts, w.CountFact, w.WithFact)
		}
	}
	if r.need == 0 && r.whole == 0 {
		return nil
	}
	hs.domain(r)
	r.usable = hs.usable(r)
	return r
}

// domain collects the free devices a root may take: its node groups (all
// of its type once a group fact is lifted), less what placed components
// hold and excluded nodes.
func (hs *hallSet) domain(r *hallRoot) {
	d := r.d
	blocks := d.Blocks
	if hs.restricted(d) {
		r.groupFacts = append(r.groupFacts, d.GroupFact)
		for _, l := range d.Labels {
			if f, ok := hs.sp.GroupFacts[l]; ok {
				r.groupFacts = append(r.groupFacts, f)
			}
		}
	} else if d.GroupFact >= 0 {
		blocks = hs.sp.TypeBlocks[d.Type]
	}
	r.free = &freeSet{by: map[blockKey][]bool{}}
	for _, b := range blocks {
		ls := r.free.block(b)
		for l := 0; l < b.Cap; l++ {
			dev := b.Device(l)
			if df, ok := hs.sp.Down[b.Node]; ok && hs.has(df) {
				r.domainFacts[dev] = append(r.domainFacts[dev], df)
				continue
			}
			if uf, ok := hs.sp.Unfit[r.i][b.Node]; ok && hs.has(uf) {
				r.domainFacts[dev] = append(r.domainFacts[dev], uf)
				continue
			}
			if tf, ok := hs.sp.Taken[dev]; ok && hs.has(tf) {
				r.domainFacts[dev] = append(r.domainFacts[dev], tf)
				continue
			}
			if !ls[dev.Local] {
				ls[dev.Local] = true
				r.free.n++
			}
		}
	}
	r.blocks = blocks
}

// restricted says the root's node groups hold under the facts present.
func (hs *hallSet) restricted(d *rules.Demand) bool {
	if !hs.has(d.GroupFact) {
		return false
	}
	for _, l := range d.Labels {
		if f, ok := hs.sp.GroupFacts[l]; ok && !hs.has(f) {
			return false
		}
	}
	return true
}

// usable bounds what the root can take: per block, its longest free run
// in whole units (whole nodes: free blocks).
func (hs *hallSet) usable(r *hallRoot) int {
	u := r.d.Unit
	for j, w := range hs.sp.Demands {
		if j != r.i && hs.sp.Root(j) == r.i {
			u = max(u, w.Unit)
		}
	}
	n := 0
	for _, b := range r.blocks {
		run, best := 0, 0
		for l := 0; l < b.Cap; l++ {
			if r.free.has(b.Device(l)) {
				run++
				best = max(best, run)
			} else {
				run = 0
			}
		}
		switch {
		case r.whole > 0 && best == b.Cap:
			n++
		case r.whole == 0:
			n += best / max(1, u) * max(1, u)
		}
	}
	return n
}

func (hs *hallSet) types() []string {
	var ts []string
	for _, r := range hs.roots {
		if !slices.Contains(ts, r.d.Type) {
			ts = append(ts, r.d.Type)
		}
	}
	return ts
}

// maxHallRoots bounds the subsets tried (2^n); past it only single
// demands and the whole set are counted.
const maxHallRoots = 12

// worst finds, among the roots of type t, the smallest set that needs more
// than it can have.
func (hs *hallSet) worst(t string) *shortfall {
	var rs []*hallRoot
	for _, r := range hs.roots {
		if r.d.Type == t {
			rs = append(rs, r)
		}
	}
	for _, r := range rs {
		if r.whole > 0 && r.whole > r.usable || r.whole == 0 && r.need > r.usable {
			return hs.single(r)
		}
	}
	var subsets [][]*hallRoot
	if len(rs) <= maxHallRoots {
		for size := 2; size <= len(rs); size++ {
			subsets = append(subsets, combinations(rs, size)...)
		}
	} else {
		subsets = [][]*hallRoot{rs}
	}
	for _, set := range subsets {
		if s := hs.together(set); s != nil {
			return s
		}
	}
	return nil
}

func (hs *hallSet) single(r *hallRoot) *shortfall {
	s := &shortfall{need: r.need, have: r.usable, unit: model.HardwareUnit(r.d.Type), who: []string{r.d.Name}}
	if r.whole > 0 {
		s.need, s.unit = r.whole, "whole nodes"
	}
	s.facts = append(append(s.facts, r.facts...), r.groupFacts...)
	s.facts = append(s.facts, hs.shaping(r.domainFacts)...)
	return s
}

// together is the shortfall of a set of roots that keep apart, or nil.
func (hs *hallSet) together(set []*hallRoot) *shortfall {
	var sep []int
	for a := range set {
		for b := a + 1; b < len(set); b++ {
			f := hs.separation(set[a], set[b])
			if f < 0 {
				return nil
			}
			sep = append(sep, f)
		}
	}
	need, widest := 0, 0
	for _, r := range set {
		need, widest = need+r.need, max(widest, r.free.n)
	}
	if need <= widest {
		// The union holds at least the widest root's devices: no shortfall,
		// and no union to build (thousands of subsets of a large cluster).
		return nil
	}
	union := &freeSet{by: map[blockKey][]bool{}}
	shape := map[rules.Device][]int{}
	s := &shortfall{unit: model.HardwareUnit(set[0].d.Type)}
	for _, r := range set {
		if r.whole > 0 {
			return nil
		}
		s.need += r.need
		s.who = append(s.who, r.d.Name)
		union.or(r.free)
		for dev, fs := range r.domainFacts {
			shape[dev] = append(shape[dev], fs...)
		}
		s.facts = append(append(s.facts, r.facts...), r.groupFacts...)
	}
	s.have = union.n
	if s.need <= s.have {
		return nil
	}
	s.facts = append(append(s.facts, sep...), hs.shaping(shape)...)
	return s
}

// separation is a fact present that keeps two roots apart, or -1.
func (hs *hallSet) separation(a, b *hallRoot) int {
	for k, d := range hs.sp.Demands {
		rk := hs.sp.Root(k)
		for _, x := range d.Apart {
			rx := hs.sp.Root(x)
			if (rk == a.i && rx == b.i || rk == b.i && rx == a.i) && hs.has(d.ApartFacts[x]) {
				return d.ApartFacts[x]
			}
		}
	}
	for _, f := range []int{a.d.OwnFact, b.d.OwnFact} {
		if hs.has(f) {
			return f
		}
	}
	return -1
}

// shaping lists, once each, the facts that took devices out of a domain.
func (hs *hallSet) shaping(facts map[rules.Device][]int) []int {
	var out []int
	for _, fs := range facts {
		for _, f := range fs {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	slices.Sort(out)
	return out
}

func combinations(rs []*hallRoot, k int) [][]*hallRoot {
	var out [][]*hallRoot
	var rec func(start int, cur []*hallRoot)
	rec = func(start int, cur []*hallRoot) {
		if len(cur) == k {
			out = append(out, append([]*hallRoot(nil), cur...))
			return
		}
		for i := start; i < len(rs); i++ {
			rec(i+1, append(cur, rs[i]))
		}
	}
	rec(0, nil)
	return out
}

// describe says what the shortfall is, in one sentence.
func (s *shortfall) describe() string {
	switch {
	case len(s.who) == 0:
		return "a placed component uses a node that solve must not use"
	case len(s.who) == 1:
		return fmt.Sprintf("%s needs %d %s but can have at most %d where it may go", s.who[0], s.need, s.unit, s.have)
	}
	return fmt.Sprintf("%s need %d %s of their own, but only %d are free where they may go", joinAnd(s.who), s.need, s.unit, s.have)
}

func joinAnd(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	out := ""
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			out += " and "
		default:
			out += ", "
		}
		out += n
	}
	return out
}

// freeSet is a set of devices by node and type, a flag per local index:
// a map entry per block rather than per device (a large cluster's sets
// are hundreds of thousands of devices).
type freeSet struct {
	by map[blockKey][]bool
	n  int
}

// block is the flags of block b's node and type, long enough for b.
func (s *freeSet) block(b rules.Block) []bool {
	k := blockKey{b.Node, b.Type}
	ls := s.by[k]
	if need := b.Local0 + b.Cap; len(ls) < need {
		ls = append(ls, make([]bool, need-len(ls))...)
		s.by[k] = ls
	}
	return ls
}

func (s *freeSet) has(dev rules.Device) bool {
	ls := s.by[blockKey{dev.Node, dev.Type}]
	return dev.Local < len(ls) && ls[dev.Local]
}

// or adds the devices of t.
func (s *freeSet) or(t *freeSet) {
	for k, tl := range t.by {
		ls := s.by[k]
		if len(ls) < len(tl) {
			ls = append(ls, make([]bool, len(tl)-len(ls))...)
			s.by[k] = ls
		}
		for l, x := range tl {
			if x && !ls[l] {
				ls[l] = true
				s.n++
			}
		}
	}
}
