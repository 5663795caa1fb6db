package strategies

import (
	"strconv"

	"github.com/rlsolve/rlsolve/model"
)

// visibleFor applies RLinf's rule (semantics §4.1): isolated accelerator
// workers see their own devices; robots, or isolation off, see the node's
// whole set.
func (c *Cluster) visibleFor(node int, hwType string, localHW []int, isolate bool) ([]string, int) {
	if isolate && hwType == model.HardwareAccelerator {
		vis := make([]string, len(localHW))
		for i, h := range localHW {
			vis[i] = strconv.Itoa(h)
		}
		return vis, localHW[0]
	}
	if c.Nodes[node].AccelCount == 0 {
		return c.AllVisible(node), -1
	}
	return c.AllVisible(node), 0
}

// finishRuns fills placement_node_rank, local_rank and local_world_size from
// runs of consecutive workers on one node. With ascending set, a return to a
// lower node is the "Placements must be sorted by node_id" failure.
func finishRuns(ps []model.Placement, ascending bool) *Failure {
	pnode, start := 0, 0
	for i := 1; i <= len(ps); i++ {
		if i < len(ps) && ps[i].ClusterNodeRank == ps[start].ClusterNodeRank {
			continue
		}
		for j := start; j < i; j++ {
			ps[j].PlacementNodeRank = pnode
			ps[j].LocalRank = j - start
			ps[j].LocalWorldSize = i - start
		}
		if i < len(ps) {
			if ascending && ps[i].ClusterNodeRank < ps[start].ClusterNodeRank {
				return fail(i,
					"worker %d lands on node %d after a worker on node %d: placements must be sorted by node (list node groups in ascending node order)",
					i, ps[i].ClusterNodeRank, ps[start].ClusterNodeRank)
			}
			pnode++
		}
		start = i
	}
	return nil
}
