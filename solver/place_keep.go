package solver

import (
	"sort"
	"strings"

	"github.com/go-air/gini/z"
	"github.com/rlsolve/rlsolve/rules"
)

// movedWorkers are, per worker of the previous plan, whether it moves: a
// worker stays when the new placement gives its rank exactly its old node
// and devices. Rank r holds the r-th share of the devices in position
// order, so it stays when its old devices are taken and exactly
// share*index devices come before them.
func (in *instance) movedWorkers(prev map[string][]Worker) []z.Lit {
	var moved []z.Lit
	for i, d := range in.sp.Demands {
		workers := previousOf(prev, d.Name)
		v := in.rootVars(i)
		if v == nil || len(workers) == 0 {
			continue
		}
		share, perDevice := in.share(d)
		need := make([]int, 0, len(workers))
		starts := make([][]int, len(workers))
		for r, w := range workers {
			starts[r] = v.positions(w)
			if len(starts[r]) > 0 {
				need = append(need, starts[r][0])
			}
		}
		prefix := v.prefixCounts(in, need)
		for r := range workers {
			moved = append(moved, in.stays(v, starts[r], prefix, r, share, perDevice).Not())
		}
	}
	return moved
}

// previousOf finds a demand's workers in the previous plan by any of its
// names.
func previousOf(prev map[string][]Worker, names string) []Worker {
	for _, n := range strings.Split(names, ",") {
		if w, ok := prev[n]; ok {
			return w
		}
	}
	return nil
}

// share is how many devices each worker of d holds, or (perDevice > 1)
// how many workers share one device.
func (in *instance) share(d *rules.Demand) (share, perDevice int) {
	switch {
	case d.PerDevice:
		return 1, 1
	case d.Procs > 0 && d.Count > 0 && d.Procs > d.Count:
		return 1, d.Procs / d.Count
	case d.Procs > 0 && d.Count > 0:
		return d.Count / d.Procs, 1
	}
	return max(1, d.Unit), 1
}

// positions are the flat positions of a worker's old devices when they
// are consecutive positions of one block of the root (else nil: the
// worker cannot keep them).
func (v *demandVars) positions(w Worker) []int {
	for b, blk := range v.blocks {
		devices := w.Devices
		if blk.Type == "" && len(devices) == 0 {
			devices = []int{0} // a node placement: the node is the device
		}
		if blk.Node != w.Node || len(devices) == 0 {
			continue
		}
		var out []int
		for k, l := range devices {
			if l < 0 || l >= blk.Cap || k > 0 && l != devices[k-1]+1 {
				return nil
			}
			out = append(out, v.pos[b]+l)
		}
		return out
	}
	return nil
}

// prefixCounts gives, for each position asked, the number of devices the
// root takes before it, as one running sum.
func (v *demandVars) prefixCounts(in *instance, at []int) map[int][]z.Lit {
	sort.Ints(at)
	var flat []z.Lit
	for _, ls := range v.lit {
		flat = append(flat, ls...)
	}
	out := map[int][]z.Lit{}
	var run []z.Lit
	next := 0
	for _, p := range at {
		if _, ok := out[p]; ok {
			continue
		}
		if p > next {
			run = add(in.c, run, popcount(in.c, flat[next:p]))
			next = p
		}
		out[p] = run
	}
	return out
}

// stays is true when worker r keeps its old devices.
func (in *instance) stays(v *demandVars, pos []int, prefix map[int][]z.Lit, r, share, perDevice int) z.Lit {
	c := in.c
	if len(pos) != share {
		return c.F
	}
	ls := []z.Lit{eq(c, prefix[pos[0]], r/perDevice*share)}
	for _, p := range pos {
		ls = append(ls, v.flat(p))
	}
	return c.Ands(ls...)
}

// flat is the literal at a flat position.
func (v *demandVars) flat(p int) z.Lit {
	b := sort.Search(len(v.pos), func(i int) bool { return v.pos[i] > p }) - 1
	return v.lit[b][p-v.pos[b]]
}
