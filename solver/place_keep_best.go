package solver

import (
	"slices"
	"sort"
)

// bestKeep is a largest set of workers (by rank) that can all stay, as
// far as the devices available between them allow. Worker r holds share
// k = r/perDevice: kept workers a < b either hold the same share (the
// same devices) or leave at least share*(k_b-k_a-1) available devices
// between them for the shares in between; share*k_b before the first, and
// share*(n-1-k_b) after the last. It relaxes what the other components
// take, so the set's size bounds what any placement keeps.
//
// It is a longest chain, found in rank order. With F the available
// positions before b's first device and L those up to a's last, a may
// precede b of a later share when L - share*k_a <= F - share*(k_b-1) (b's
// first device is available, so that also puts a's devices before b's):
// the best chain ending at such an a is a prefix maximum over that key,
// kept in a Fenwick tree as each share's workers are done. Ties go to the
// lowest rank, as a scan of every earlier worker would choose.
func (v *demandVars) bestKeep(in *instance, pos [][]int, share, perDevice, n int) []int {
	avail := v.availBefore(in)
	valid := func(r int) bool {
		return len(pos[r]) == share && r/perDevice < n && v.available(in, pos[r])
	}
	key := func(r int) int { return avail[pos[r][len(pos[r])-1]+1] - share*(r/perDevice) }
	var keys []int
	for r := range pos {
		if valid(r) {
			keys = append(keys, key(r))
		}
	}
	sort.Ints(keys)
	keys = slices.Compact(keys)
	// A chain's length and its end, as one number whose larger values are
	// longer chains, then lower ranks; 0 is none.
	size := len(pos) + 1
	enc := func(length, r int) int { return length*size + len(pos) - r }
	tree := make([]int, len(keys)+1) // prefix maxima of enc, 1-based
	insert := func(r, c int) {
		for i := sort.SearchInts(keys, key(r)) + 1; i < len(tree); i += i & -i {
			tree[i] = max(tree[i], c)
		}
	}
	below := func(q int) int { // the best chain with a key at most q
		c := 0
		for i := sort.SearchInts(keys, q+1); i > 0; i -= i & -i {
			c = max(c, tree[i])
		}
		return c
	}
	best, from := make([]int, len(pos)), make([]int, len(pos))
	sameShare := map[int]int{} // first position -> best chain ending there in this share
	top, topAt, group := 0, -1, 0
	for r := range pos {
		k := r / perDevice
		if r > 0 && k != (r-1)/perDevice { // share k-1 is done
			for a := group; a < r; a++ {
				if best[a] > 0 {
					insert(a, enc(best[a], a))
				}
			}
			group = r
			clear(sameShare)
		}
		best[r], from[r] = -1, -1
		if !valid(r) {
			continue
		}
		if avail[pos[r][0]] >= share*k {
			best[r] = 1
		}
		if c := max(below(avail[pos[r][0]]-share*(k-1)), sameShare[pos[r][0]]); c > 0 {
			best[r], from[r] = c/size+1, len(pos)-c%size
		}
		if best[r] > 0 {
			sameShare[pos[r][0]] = max(sameShare[pos[r][0]], enc(best[r], r))
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
