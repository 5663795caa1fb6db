package strategies

import (
	"strconv"

	"github.com/rlsolve/rlsolve/model"
)

// visibleFor applies RLinf's rule (semantics §4.1): isolated accelerator
// workers see their own devices (written into *scratch, which the next
// call reuses: model.Placements.Append copies them); robots, or isolation
// off, see the node's whole set (shared: never written).
func (c *Cluster) visibleFor(node int, hwType string, localHW []int, isolate bool, scratch *[]string) ([]string, int) {
	if isolate && hwType == model.HardwareAccelerator {
		*scratch = (*scratch)[:0]
		for _, h := range localHW {
			*scratch = append(*scratch, strconv.Itoa(h))
		}
		return *scratch, localHW[0]
	}
	if c.Nodes[node].AccelCount == 0 {
		return c.AllVisible(node), -1
	}
	return c.AllVisible(node), 0
}

// ascending is RLinf's "Placements must be sorted by node_id" check of
// Flexible and Node placement: a worker on a lower node than the one
// before it.
func ascending(ps *model.Placements) *Failure {
	for i := 1; i < ps.Len(); i++ {
		if n, prev := ps.Node(i), ps.Node(i-1); n < prev {
			return fail(i,
				"worker %d lands on node %d after a worker on node %d: placements must be sorted by node (list node groups in ascending node order)",
				i, n, prev)
		}
	}
	return nil
}
