package solver

import (
	"strings"

	"github.com/go-air/gini/z"
	"github.com/rlsolve/rlsolve/rules"
)

// keepSet is one demand's previous workers as keep reads them: their
// positions among its root's, the shares, and a best keep set.
type keepSet struct {
	i int
	v *demandVars
	keepFit
}

// keepSets are the demands' previous workers and the lower bound on the
// workers moved: no circuit yet (a guess that meets the bound needs none).
func (in *instance) keepSets(prev map[string][]Worker) (sets []keepSet, lb int) {
	for i, d := range in.sp.Demands {
		workers := previousOf(prev, d.Name)
		v := in.rootVars(i)
		if v == nil || len(workers) == 0 {
			continue
		}
		share, perDevice := in.share(i)
		pos := make([][]int, len(workers))
		for r, w := range workers {
			pos[r] = v.positions(w)
		}
		n := in.newChunks(d, share, perDevice, len(workers))
		kept := v.bestKeep(in, pos, share, perDevice, n)
		lb += len(workers) - len(kept)
		sets = append(sets, keepSet{i: i, v: v, keepFit: keepFit{kept: kept, pos: pos, share: share, perDevice: perDevice, chunks: n}})
	}
	return sets, lb
}

// keepCircuit is the number of workers of the previous plan that move,
// and the stays of each best keep set's workers (to assume first). A
// worker stays when the new placement gives its rank exactly its old node
// and devices: rank r holds share k = r/perDevice of the devices in
// position order, so it stays when its old devices are taken and exactly
// share*k devices come before them (counted per block:
// place_keep_blocks.go).
func (in *instance) keepCircuit(sets []keepSet) (moved, assume []z.Lit) {
	blocks := map[*demandVars]*keepBlocks{}
	var stayed [][]z.Lit
	total := 0
	for _, s := range sets {
		if blocks[s.v] == nil {
			blocks[s.v] = newKeepBlocks(in, s.v)
		}
		stays, counts := in.keepStays(blocks[s.v], s.pos, s.share, s.perDevice)
		stayed = append(stayed, counts...)
		total += len(s.pos)
		for _, r := range s.kept {
			assume = append(assume, stays[r])
		}
	}
	if total == 0 {
		return nil, nil
	}
	return less(in.c, total, sum(in.c, stayed)), assume
}

// keepFits are the keep guess's inputs, by root.
func keepFits(sets []keepSet) map[int]keepFit {
	fits := map[int]keepFit{}
	for _, s := range sets {
		if s.v.idx == s.i {
			fits[s.i] = s.keepFit
		}
	}
	return fits
}

// keepFit is what a root's keep guess is made of: the workers kept (in
// descending rank), their devices, and the shares to place.
type keepFit struct {
	kept                     []int
	pos                      [][]int
	share, perDevice, chunks int
}

// keepFitter chooses a root's devices for the keep guess: its kept
// workers' devices, and every other share on the lowest free devices of
// the gap it must lie in; roots without a previous plan fit first.
func (in *instance) keepFitter(fits map[int]keepFit) fitter {
	return func(i int, v *demandVars, has func(int) bool, blocked func(rules.Device) bool) ([]bool, bool) {
		kf, ok := fits[i]
		if !ok {
			return in.firstFit(i, v, has, blocked)
		}
		n := v.size()
		taken := make([]bool, n)
		free := func(p int) bool {
			b := v.blockOf(p)
			return v.open(in, b, p-v.pos[b]) && !blocked(v.blocks[b].Device(p-v.pos[b]))
		}
		from, k := 0, 0 // next free position, next share
		for j := len(kf.kept) - 1; j >= -1; j-- {
			end, upto := n, kf.chunks
			if j >= 0 {
				r := kf.kept[j]
				end, upto = kf.pos[r][0], r/kf.perDevice
			}
			for ; k < upto; k++ {
				if from = fillShare(taken, from, end, kf.share, free); from < 0 {
					return taken, false
				}
			}
			if j >= 0 {
				r := kf.kept[j]
				for _, p := range kf.pos[r] {
					taken[p] = true
				}
				from, k = kf.pos[r][len(kf.pos[r])-1]+1, r/kf.perDevice+1
			}
		}
		return taken, true
	}
}

// fillShare takes share free positions from from (before end), in order;
// it returns the position after them, or -1.
func fillShare(taken []bool, from, end, share int, free func(int) bool) int {
	got := 0
	for p := from; p < end; p++ {
		if free(p) && !taken[p] {
			taken[p] = true
			if got++; got == share {
				return p + 1
			}
		}
	}
	return -1
}

// newChunks is how many shares of devices the demand takes now (one per
// worker, or one per device its workers share).
func (in *instance) newChunks(d *rules.Demand, share, perDevice, old int) int {
	if d.Count > 0 {
		return d.Count / share
	}
	return (old + perDevice - 1) / perDevice
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

// share is how many devices each worker of demand i holds, or
// (perDevice > 1) how many workers share one device: as its placement
// string will say (processes).
func (in *instance) share(i int) (share, perDevice int) {
	d := in.sp.Demands[i]
	n := d.Count
	if r := in.sp.Demands[in.sp.Root(i)]; n == 0 {
		n = r.Count
	}
	if n == 0 { // whole nodes: the count is not known before placing
		return max(1, d.Unit), 1
	}
	procs := in.sp.Processes(i, n)
	if procs >= n {
		return 1, procs / n
	}
	return n / max(1, procs), 1
}

// positions are the flat positions of a worker's old devices when they
// are consecutive positions of one block of the root (else nil: the
// worker cannot keep them).
func (v *demandVars) positions(w Worker) []int {
	devices := w.Devices
	for b, blk := range v.blocks {
		if blk.Type == "" && len(devices) == 0 {
			devices = []int{0} // a node placement: the node is the device
		}
		if blk.Node != w.Node || len(devices) == 0 || devices[0] < blk.Local0 || devices[0] >= blk.Local0+blk.Cap {
			continue
		}
		var out []int
		for k, l := range devices {
			if l >= blk.Local0+blk.Cap || k > 0 && l != devices[k-1]+1 {
				return nil // past the block (another NVLink island), or not one run
			}
			out = append(out, v.pos[b]+l-blk.Local0)
		}
		return out
	}
	return nil
}

// availBefore[p] is the number of positions before p the root may take
// (p up to and including the number of positions).
func (v *demandVars) availBefore(in *instance) []int {
	avail := []int{0}
	for b, blk := range v.blocks {
		for l := 0; l < blk.Cap; l++ {
			a := avail[len(avail)-1]
			if v.open(in, b, l) {
				a++
			}
			avail = append(avail, a)
		}
	}
	return avail
}

// available says whether the root may take every position of ps.
func (v *demandVars) available(in *instance, ps []int) bool {
	for _, p := range ps {
		if b := v.blockOf(p); !v.open(in, b, p-v.pos[b]) {
			return false
		}
	}
	return true
}
