package solver

import (
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
)

// snapshot records which devices each root takes in the current model,
// by flat position.
func (in *instance) snapshot() [][]bool {
	if in.enc == byNode {
		return in.nodeSnapshot()
	}
	out := make([][]bool, len(in.roots))
	for i, v := range in.roots {
		if v == nil {
			continue
		}
		n := 0
		for _, ls := range v.lit {
			n += len(ls)
		}
		taken := make([]bool, 0, n)
		for _, ls := range v.lit {
			for _, m := range ls {
				taken = append(taken, m != in.c.F && in.g.Value(m))
			}
		}
		out[i] = taken
	}
	return out
}

// placed is demand i's placement in a snapshot: its root's devices as
// ranks of its own node groups, and its processes.
func (in *instance) placed(i int, d *rules.Demand, snap [][]bool) Placed {
	p := Placed{Solved: model.Solved{Entry: d.Entry, Labels: d.Labels, WriteGroup: d.WriteGroup}, Name: d.Name}
	r := in.sp.Root(i)
	if rd := in.sp.Demands[r]; rd.WithPlaced >= 0 {
		// The chain ends at a placed component: its string, copied.
		p.Placement, p.Labels = in.sp.Copied(rd)
		p.WriteGroup = len(d.Labels) == 0 && len(p.Labels) > 0
		return p
	}
	v := in.roots[r]
	if v == nil {
		return p
	}
	first := map[rules.Device]int{}
	for _, b := range d.Blocks {
		first[rules.Device{Node: b.Node, Type: b.Type}] = b.First - b.Local0
	}
	for b, blk := range v.blocks {
		at, ok := first[rules.Device{Node: blk.Node, Type: blk.Type}]
		for l := 0; l < blk.Cap; l++ {
			if ok && snap[r][v.pos[b]+l] {
				p.Ranks = append(p.Ranks, at+blk.Local0+l)
			}
		}
	}
	p.Processes = in.sp.Processes(i, len(p.Ranks))
	if d.PerDevice {
		p.Placement = model.CompactRanks(p.Ranks, ",")
	} else {
		p.Placement = model.PlacementText(p.Ranks, p.Processes)
	}
	return p
}
