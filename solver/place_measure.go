package solver

import (
	"slices"

	"github.com/go-air/gini/z"
)

// nodesUsed are, per node no placed component holds, whether a demand
// takes devices on it; held counts the nodes placed components hold
// (used whatever solve does); lb is a lower bound on the nodes used in
// all: each type's devices, wanted and held, over its largest node.
func (in *instance) nodesUsed() (used []z.Lit, held, lb int) {
	byNode := map[int][]z.Lit{}
	need := map[string]int{}
	largest := map[string]int{}
	for _, v := range in.roots {
		if v == nil || v.d.Type == "" {
			continue
		}
		for b, blk := range v.blocks {
			byNode[blk.Node] = append(byNode[blk.Node], v.any[b])
			largest[blk.Type] = max(largest[blk.Type], blk.Cap)
		}
	}
	for _, v := range in.roots {
		if v != nil && v.d.Type != "" {
			need[v.d.Type] += v.d.Count + v.d.Whole*largest[v.d.Type]
		}
	}
	isHeld := map[int]bool{}
	for dev := range in.sp.Taken {
		if dev.Type != "" {
			isHeld[dev.Node] = true
			need[dev.Type]++
		}
	}
	nodes := make([]int, 0, len(byNode))
	for n := range byNode {
		if !isHeld[n] {
			nodes = append(nodes, n)
		}
	}
	slices.Sort(nodes)
	for _, n := range nodes {
		used = append(used, in.c.Ors(byNode[n]...))
	}
	for t, n := range need {
		if largest[t] > 0 {
			lb = max(lb, (n+largest[t]-1)/largest[t])
		}
	}
	return used, len(isHeld), lb
}

// suffix is, per position p (and one past the last), whether the root
// takes a device at p or later.
func (v *demandVars) suffix(in *instance) []z.Lit {
	if v.beyond != nil {
		return v.beyond
	}
	var flat []z.Lit
	for _, ls := range v.lit {
		flat = append(flat, ls...)
	}
	v.beyond = make([]z.Lit, len(flat)+1)
	v.beyond[len(flat)] = in.c.F
	for p := len(flat) - 1; p >= 0; p-- {
		v.beyond[p] = in.c.Or(flat[p], v.beyond[p+1])
	}
	return v.beyond
}

// lowestLast is the least last position the root can have with as many
// devices as it takes in snap: past every device it may never take.
func (v *demandVars) lowestLast(in *instance, snap []bool) int {
	n := 0
	for _, t := range snap {
		if t {
			n++
		}
	}
	p := 0
	for _, ls := range v.lit {
		for _, m := range ls {
			if m != in.c.F {
				n--
				if n <= 0 {
					return p
				}
			}
			p++
		}
	}
	return p - 1
}

// nodesTaken is how many nodes a placement uses: those its typed roots
// take devices on, and those placed components hold.
func (in *instance) nodesTaken(snap [][]bool) int {
	nodes := map[int]bool{}
	for dev := range in.sp.Taken {
		if dev.Type != "" {
			nodes[dev.Node] = true
		}
	}
	for i, v := range in.roots {
		if v == nil || v.d.Type == "" {
			continue
		}
		for b, blk := range v.blocks {
			for l := 0; l < blk.Cap; l++ {
				if snap[i][v.pos[b]+l] {
					nodes[blk.Node] = true
				}
			}
		}
	}
	return len(nodes)
}
