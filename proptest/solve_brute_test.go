package proptest

import (
	"github.com/rlsolve/rlsolve/rules"
)

// Exhaustive search over the same space solve searches, written
// independently of the SAT encoding: every choice of devices per demand
// (each node's share one run, a multiple of the units that apply), under
// the facts present. Small clusters only.

// bruteRoot is one root demand's candidate device sets.
type bruteRoot struct {
	i       int
	options [][]rules.Device
}

// bruteSteps bounds one search; past it the search gives up (ok false)
// and the property skips the case.
const bruteSteps = 300000

// brute reports whether some placement of sp holds under the facts
// present with an objective value at most limit (value says a partial
// placement's value, which only grows as roots are added).
func brute(sp *rules.Space, present []bool, limit int, value func(map[int][]rules.Device) int) (found, ok bool) {
	has := func(f int) bool { return f >= 0 && present[f] }
	for dev, f := range sp.Taken {
		if df, down := sp.Down[dev.Node]; down && has(f) && has(df) {
			return false, true // a placed component on a node solve must not use
		}
	}
	var roots []bruteRoot
	for i, d := range sp.Demands {
		if sp.Root(i) != i || d.With >= 0 || d.WithPlaced >= 0 {
			continue
		}
		roots = append(roots, bruteRoot{i: i, options: bruteOptions(sp, i, has)})
	}
	chosen := map[int][]rules.Device{}
	steps := 0
	var rec func(k int) bool
	rec = func(k int) bool {
		if steps++; steps > bruteSteps {
			return false
		}
		if value != nil && value(chosen) > limit {
			return false
		}
		if k == len(roots) {
			return true
		}
		r := roots[k]
		for _, opt := range r.options {
			if !bruteApart(sp, r.i, opt, chosen, has) {
				continue
			}
			chosen[r.i] = opt
			if rec(k + 1) {
				return true
			}
			delete(chosen, r.i)
		}
		return false
	}
	found = rec(0)
	return found, steps <= bruteSteps
}

// bruteOptions lists root i's device sets that satisfy its own facts and
// those of the demands that share its devices.
func bruteOptions(sp *rules.Space, i int, has func(int) bool) [][]rules.Device {
	d := sp.Demands[i]
	blocks := d.Blocks
	if !bruteRestricted(sp, d, has) && d.GroupFact >= 0 {
		blocks = bruteUnion(d.Blocks, sp.TypeBlocks[d.Type])
	}
	units := []int{d.Unit}
	var sharers []*rules.Demand
	for j, w := range sp.Demands {
		if j != i && sp.Root(j) == i {
			units = append(units, w.Unit)
			sharers = append(sharers, w)
		}
	}
	most := -1 // the most devices any count present allows
	for _, w := range append([]*rules.Demand{d}, sharers...) {
		if has(w.CountFact) && w.Whole == 0 && w.Count > 0 && (most < 0 || w.Count < most) {
			most = w.Count
		}
	}
	var out [][]rules.Device
	var rec func(b int, cur []rules.Device)
	rec = func(b int, cur []rules.Device) {
		if most >= 0 && len(cur) > most {
			return
		}
		if b == len(blocks) {
			if bruteCounts(d, sharers, cur, has) && bruteGlobal(d, blocks, cur) && bruteInGroups(sharers, cur, has) {
				out = append(out, append([]rules.Device(nil), cur...))
			}
			return
		}
		blk := blocks[b]
		rec(b+1, cur) // nothing on this block
		for start := 0; start < blk.Cap; start++ {
			for n := 1; start+n <= blk.Cap; n++ {
				if !bruteUnits(units, n) || d.Whole > 0 && n != blk.Cap {
					continue
				}
				run := make([]rules.Device, 0, n)
				ok := true
				for l := start; l < start+n; l++ {
					dev := blk.Device(l)
					if f, down := sp.Down[blk.Node]; down && has(f) {
						ok = false
					}
					if f, unfit := sp.Unfit[i][blk.Node]; unfit && has(f) {
						ok = false
					}
					if f, taken := sp.Taken[dev]; taken && blk.Type != "" && has(f) {
						ok = false
					}
					run = append(run, dev)
				}
				if ok {
					rec(b+1, append(cur, run...))
				}
			}
		}
	}
	rec(0, nil)
	return out
}

func bruteRestricted(sp *rules.Space, d *rules.Demand, has func(int) bool) bool {
	if !has(d.GroupFact) {
		return false
	}
	for _, l := range d.Labels {
		if f, ok := sp.GroupFacts[l]; ok && !has(f) {
			return false
		}
	}
	return true
}

// bruteUnion is a's blocks, then b's blocks on nodes a lacks.
func bruteUnion(a, b []rules.Block) []rules.Block {
	out := append([]rules.Block(nil), a...)
	for _, x := range b {
		dup := false
		for _, y := range a {
			dup = dup || x.Node == y.Node && x.Type == y.Type
		}
		if !dup {
			out = append(out, x)
		}
	}
	return out
}

func bruteUnits(units []int, n int) bool {
	for _, u := range units {
		if u > 1 && n%u != 0 {
			return false
		}
	}
	return true
}

// bruteCounts checks the counts present: the root's and its sharers'.
func bruteCounts(d *rules.Demand, sharers []*rules.Demand, devs []rules.Device, has func(int) bool) bool {
	for _, w := range append([]*rules.Demand{d}, sharers...) {
		if !has(w.CountFact) {
			continue
		}
		if w.Whole > 0 && bruteNodes(devs) != w.Whole || w.Whole == 0 && w.Count > 0 && len(devs) != w.Count {
			return false
		}
	}
	return true
}

func bruteNodes(devs []rules.Device) int {
	nodes := map[int]bool{}
	for _, x := range devs {
		nodes[x.Node] = true
	}
	return len(nodes)
}

// bruteGlobal checks that a model-parallel demand's devices are one run
// in its blocks' order.
func bruteGlobal(d *rules.Demand, blocks []rules.Block, devs []rules.Device) bool {
	if !d.Global || len(devs) == 0 {
		return true
	}
	in := map[rules.Device]bool{}
	for _, x := range devs {
		in[x] = true
	}
	state := 0 // 0 before, 1 inside, 2 after
	for _, b := range blocks {
		for l := 0; l < b.Cap; l++ {
			t := in[b.Device(l)]
			switch {
			case t && state == 2:
				return false
			case t:
				state = 1
			case state == 1:
				state = 2
			}
		}
	}
	return true
}

// bruteInGroups keeps sharers with node groups inside them.
func bruteInGroups(sharers []*rules.Demand, devs []rules.Device, has func(int) bool) bool {
	for _, w := range sharers {
		if !has(w.GroupFact) {
			continue
		}
		for _, x := range devs {
			ok := false
			for _, b := range w.Blocks {
				ok = ok || b.Node == x.Node && b.Type == x.Type
			}
			if !ok {
				return false
			}
		}
	}
	return true
}

// bruteApart checks root i's devices against the roots chosen so far.
func bruteApart(sp *rules.Space, i int, devs []rules.Device, chosen map[int][]rules.Device, has func(int) bool) bool {
	mine := map[rules.Device]bool{}
	for _, x := range devs {
		mine[x] = true
	}
	for j, other := range chosen {
		if sp.Demands[j].Type != sp.Demands[i].Type || sp.Demands[i].Type == "" || !bruteSeparated(sp, i, j, has) {
			continue
		}
		for _, x := range other {
			if mine[x] {
				return false
			}
		}
	}
	return true
}

func bruteSeparated(sp *rules.Space, i, j int, has func(int) bool) bool {
	if has(sp.Demands[i].OwnFact) || has(sp.Demands[j].OwnFact) {
		return true
	}
	for k, d := range sp.Demands {
		for _, a := range d.Apart {
			rk, ra := sp.Root(k), sp.Root(a)
			if (rk == i && ra == j || rk == j && ra == i) && has(d.ApartFacts[a]) {
				return true
			}
		}
	}
	return false
}

// bruteNodesUsed is the pack objective of a placement: nodes any typed
// demand or placed component holds.
func bruteNodesUsed(sp *rules.Space, chosen map[int][]rules.Device) int {
	nodes := map[int]bool{}
	for dev := range sp.Taken {
		if dev.Type != "" {
			nodes[dev.Node] = true
		}
	}
	for i, devs := range chosen {
		if sp.Demands[i].Type == "" {
			continue
		}
		for _, x := range devs {
			nodes[x.Node] = true
		}
	}
	return len(nodes)
}
