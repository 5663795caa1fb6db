package solver

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
)

// TestBestKeepMatchesScan: the chain bestKeep finds in rank order with a
// Fenwick tree is the one a scan of every earlier worker finds (the
// quadratic search it replaced), on the generated cases of
// TestKeepMovedMatchesPlacement: the same workers, so the same bound and
// the same first guess.
func TestBestKeepMatchesScan(t *testing.T) {
	compared := 0
	for seed := int64(0); seed < 300; seed++ {
		rnd := rand.New(rand.NewSource(seed))
		text, inv, cfg, sp, err := keepCase(rnd)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if sp == nil {
			continue
		}
		prev, ok := keepRandomPlan(rnd, sp)
		if !ok {
			continue
		}
		keepScribble(rnd, prev, len(inv.Nodes))
		sp = rules.BuildSpace(cfg, inv, rules.SpaceOptions{Class: model.ClassHybrid, Without: []int{rnd.Intn(len(inv.Nodes))}})
		in := newInstanceBy(sp, false, byDevice)
		for i, d := range sp.Demands {
			v, workers := in.rootVars(i), previousOf(prev, d.Name)
			if v == nil || len(workers) == 0 {
				continue
			}
			share, perDevice := in.share(i)
			pos := make([][]int, len(workers))
			for r, w := range workers {
				pos[r] = v.positions(w)
			}
			n := in.newChunks(d, share, perDevice, len(workers))
			got, want := v.bestKeep(in, pos, share, perDevice, n), bestKeepScan(in, v, pos, share, perDevice, n)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d, %s: bestKeep keeps %v, the scan %v\n%s# previous %v", seed, d.Name, got, want, text, workers)
			}
			compared++
		}
	}
	if compared < 100 {
		t.Errorf("only %d demands compared", compared)
	}
}

// bestKeepScan is bestKeep as a scan of every earlier worker.
func bestKeepScan(in *instance, v *demandVars, pos [][]int, share, perDevice, n int) []int {
	avail := v.availBefore(in)
	between := func(from, to int) int { return avail[max(to, 0)] - avail[min(from+1, len(avail)-1)] }
	follows := func(a, b int) bool {
		ka, kb := a/perDevice, b/perDevice
		if ka == kb {
			return pos[a][0] == pos[b][0]
		}
		last := pos[a][len(pos[a])-1]
		return last < pos[b][0] && between(last, pos[b][0]) >= share*(kb-ka-1)
	}
	best := make([]int, len(pos))
	from := make([]int, len(pos))
	top, topAt := 0, -1
	for r := range pos {
		best[r], from[r] = -1, -1
		k := r / perDevice
		if len(pos[r]) != share || k >= n || !v.available(in, pos[r]) {
			continue
		}
		if avail[pos[r][0]] >= share*k {
			best[r] = 1
		}
		for a := 0; a < r; a++ {
			if best[a] > 0 && best[a]+1 > best[r] && follows(a, r) {
				best[r], from[r] = best[a]+1, a
			}
		}
		if best[r] > top && avail[len(avail)-1]-avail[pos[r][len(pos[r])-1]+1] >= share*(n-1-k) {
			top, topAt = best[r], r
		}
	}
	var kept []int
	for r := topAt; r >= 0; r = from[r] {
		kept = append(kept, r)
	}
	return kept
}
