package solver

import (
	"github.com/go-air/gini"
	"github.com/go-air/gini/logic"
	"github.com/go-air/gini/z"
	"github.com/rlsolve/rlsolve/rules"
)

// The placing instance: one literal per device a demand may take, in the
// order of its placement string's ranks. Each node's share of a demand is
// one contiguous run whose length is a multiple of the demand's unit (a
// process, an engine, a TP group on one node); a model-parallel component
// is one contiguous range over the cluster. Demands that do not share
// devices (with) never take the same device. With selectors (explain),
// every constraint a fact stands for holds only while the fact's selector
// is assumed, and a demand may also reach devices its facts keep it from.

// instance is one SAT encoding of a space.
type instance struct {
	sp *rules.Space
	c  *logic.C
	g  *gini.Gini
	// roots[i] holds demand i's literals when i owns its devices, else nil.
	roots []*demandVars
	// sel[f] is fact f's selector (explain), or the true literal.
	sel     []z.Lit
	explain bool
	mark    []int8
	pending []z.Lit
	clauses int
	// spreadCap bounds each root's devices per block in a guess (0: none).
	spreadCap int
	// enc is what the literals stand for (encodingFor); byNode keeps, per
	// shared block, the roots that may take it (node_rules.go).
	enc    encoding
	shared map[blockKey][]blockRef
	// layFixed is set once a circuit reads the order in which shared's
	// roots are laid out on a node (keep's offsets): guesses then leave
	// that order as it is (layIn), so the layout the circuit counts on is
	// the one extracted.
	layFixed bool
	// uncounted are the node encoding's count rules not built yet: each
	// is added when a model breaks it (instance.solve), as node capacity is.
	uncounted []countRule
}

// demandVars are a root demand's device literals.
type demandVars struct {
	d   *rules.Demand
	idx int
	// blocks are the demand's candidate blocks, lit[b][l] the literal of
	// local device l of block b (false where it may never go), inGroup[b]
	// whether block b is one its node groups give.
	blocks  []rules.Block
	lit     [][]z.Lit
	inGroup []bool
	// pos[b] is the position of block b's first device in the flat order.
	pos []int
	// count[b] is block b's device count, total their sum; any[b] says
	// block b is used. The node encoding's total is clauses, not gates
	// (node_circuit.go): the circuit cannot evaluate it.
	count [][]z.Lit
	total []z.Lit
	any   []z.Lit
	// beyond[p] is true when a device at position p or later is taken.
	beyond []z.Lit
	// The node encoding's (lit is nil there): units[b][j-1] says the root
	// takes at least j steps of block b (nil: it may take none of b), a
	// step being its unit, or the whole block for whole nodes; lastBlock
	// is beyond's counterpart over blocks (node_objective.go).
	unit      int
	units     [][]z.Lit
	lastBlock []z.Lit
}

// newInstance is sp's instance for explaining, or for placing with any
// objective but keep.
func newInstance(sp *rules.Space, explain bool) *instance {
	return newInstanceBy(sp, explain, encodingFor(sp, explain))
}

// newInstanceBy is sp's instance in the encoding enc.
func newInstanceBy(sp *rules.Space, explain bool, enc encoding) *instance {
	// Sized from the estimate (about a quarter of it variables, half of
	// it clauses; a ninth variables by nodes, whose totals are mostly
	// clauses): growing gini's arrays one doubling at a time copied them
	// over and over, and a hint far above the need is memory gini clears.
	est, _, _ := estimate(sp, enc, explain, 0)
	vars := est / 4
	if enc == byNode {
		vars = est / 9
	}
	in := &instance{sp: sp, c: logic.NewCCap(max(1<<12, vars)), g: gini.NewVc(max(1<<12, vars), max(1<<12, est/2)), explain: explain, enc: enc}
	in.sel = make([]z.Lit, len(sp.Facts))
	for f := range in.sel {
		in.sel[f] = in.c.T
		if explain {
			in.sel[f] = in.c.Lit()
		}
	}
	in.roots = make([]*demandVars, len(sp.Demands))
	for i, d := range sp.Demands {
		switch {
		case !ownsDevices(sp, i):
		case enc == byNode:
			in.roots[i] = in.nodeVars(i, d)
		default:
			in.roots[i] = in.vars(i, d)
		}
	}
	for i := range sp.Demands {
		in.demandRules(i)
	}
	if enc == byNode {
		in.nodeSeparate()
		return in
	}
	in.separate()
	in.autoOrder()
	return in
}

// ownsDevices says whether demand i is a root with devices of its own
// (not a copy of a placed component's, nor on another's).
func ownsDevices(sp *rules.Space, i int) bool {
	d := sp.Demands[i]
	return sp.Root(i) == i && d.With < 0 && d.WithPlaced < 0
}

// clause adds a clause over literals of the circuit.
func (in *instance) clause(ms ...z.Lit) {
	for _, m := range ms {
		if m == in.c.T {
			return
		}
	}
	for _, m := range ms {
		if m != in.c.F {
			in.g.Add(m)
		}
	}
	in.pend(ms...)
	in.g.Add(0)
	in.clauses++
}

// pend keeps the gates among ms for the next flush; inputs (the device
// and unit literals, most of what clauses name) need no clauses of their
// own, and listing them cost memory and time at scale.
func (in *instance) pend(ms ...z.Lit) {
	for _, m := range ms {
		if a, _ := in.c.Ins(m); a != z.LitNull {
			in.pending = append(in.pending, m)
		}
	}
}

// flush adds the gates that clauses and assumptions reach.
func (in *instance) flush(extra ...z.Lit) {
	in.mark, _ = in.c.CnfSince(in.g, in.mark, append(in.pending, extra...)...)
	in.pending = in.pending[:0]
}

// unless is the clause ms guarded by fact f's selector.
func (in *instance) unless(f int, ms ...z.Lit) {
	if f < 0 || !in.explain {
		in.clause(ms...)
		return
	}
	in.clause(append(ms, in.sel[f].Not())...)
}

// vars creates demand i's device literals: in its own blocks, and (explain)
// in every block of its type, which only a lifted fact opens.
func (in *instance) vars(i int, d *rules.Demand) *demandVars {
	v := &demandVars{d: d, idx: i}
	type where struct {
		node int
		typ  string
	}
	seen := map[where]bool{}
	addBlock := func(b rules.Block, inGroup bool) {
		key := where{b.Node, b.Type}
		if seen[key] && !inGroup {
			return
		}
		seen[key] = true
		pos := 0
		if n := len(v.blocks); n > 0 {
			pos = v.pos[n-1] + v.blocks[n-1].Cap
		}
		v.blocks, v.inGroup, v.pos = append(v.blocks, b), append(v.inGroup, inGroup), append(v.pos, pos)
		v.lit = append(v.lit, in.blockLits(i, d, b, inGroup))
	}
	for _, b := range d.Blocks {
		addBlock(b, true)
	}
	if in.explain && d.GroupFact >= 0 {
		for _, b := range in.sp.TypeBlocks[d.Type] {
			addBlock(b, false)
		}
	}
	return v
}

// blockLits are a block's literals: false for a device a placed component
// holds, on an excluded node, or too small for demand i (unless
// explaining: then guarded by those facts), and outside the demand's
// groups only while a group fact is lifted.
func (in *instance) blockLits(i int, d *rules.Demand, b rules.Block, inGroup bool) []z.Lit {
	ls := make([]z.Lit, b.Cap)
	down, isDown := in.sp.Down[b.Node]
	unfit, isUnfit := in.sp.Unfit[i][b.Node]
	for l := range ls {
		taken, isTaken := in.sp.Taken[b.Device(l)]
		if !in.explain && (isDown || isUnfit || isTaken && b.Type != "") {
			ls[l] = in.c.F
			continue
		}
		m := in.c.Lit()
		ls[l] = m
		if isDown {
			in.unless(down, m.Not())
		}
		if isUnfit {
			in.unless(unfit, m.Not())
		}
		if isTaken && b.Type != "" {
			in.unless(taken, m.Not())
		}
		if !inGroup {
			in.outsideGroup(d, m)
		}
	}
	return ls
}

// outsideGroup lets m be taken only when the demand's node_group or its
// group's node_ranks is lifted.
func (in *instance) outsideGroup(d *rules.Demand, m z.Lit) {
	ms := []z.Lit{m.Not(), in.sel[d.GroupFact].Not()}
	for _, l := range d.Labels {
		if f, ok := in.sp.GroupFacts[l]; ok {
			ms = append(ms, in.sel[f].Not())
		}
	}
	in.clause(ms...)
}

// rootVars is the literal set demand i places on.
func (in *instance) rootVars(i int) *demandVars { return in.roots[in.sp.Root(i)] }
