package strategies

import (
	"sort"

	"github.com/rlsolve/rlsolve/model"
)

// Node is RLinf's NodePlacementStrategy (semantics §4.4): one process per
// listed node index, counted across the groups' nodes in label order.
type Node struct {
	NodeRanks  []int
	NodeGroups []string
}

// Place expands the strategy. local_accelerator_rank is the integer 0, not
// RLinf's string '0' (D12).
func (ns Node) Place(c *Cluster, isolate bool) (model.Placements, *Failure) {
	if len(ns.NodeRanks) == 0 {
		return model.Placements{}, fail(-1, "the node_ranks list must not be empty")
	}
	labels := ns.NodeGroups
	if len(labels) == 0 {
		labels = []string{"cluster"}
	}
	// flat lists the groups' nodes in label order; flatGroup[x] is the
	// group of flat[x] (nil: all of one group, the common case).
	var flat []int
	var flatGroup []*model.Group
	var only *model.Group
	if len(labels) == 1 {
		only = c.Group(labels[0])
		if only == nil {
			_, f := c.resolve(labels)
			return model.Placements{}, f
		}
		flat = only.Nodes
	} else {
		owner := map[int]string{}
		for _, l := range labels {
			g := c.Group(l)
			if g == nil {
				_, f := c.resolve([]string{l})
				return model.Placements{}, f
			}
			for _, n := range g.Nodes {
				if o, ok := owner[n]; ok {
					return model.Placements{}, fail(-1, "node groups %q and %q both contain node %d: node placement across several groups needs disjoint node sets", o, l, n)
				}
				owner[n] = l
			}
			flat = append(flat, g.Nodes...)
			for range g.Nodes {
				flatGroup = append(flatGroup, g)
			}
		}
	}
	idx := ns.NodeRanks
	if !sort.IntsAreSorted(idx) {
		idx = append([]int(nil), idx...)
		sort.Ints(idx)
	}
	var out model.Placements
	out.Grow(len(idx))
	for i, x := range idx {
		if x < 0 || x >= len(flat) {
			return model.Placements{}, fail(i, "node index %d is out of range for node groups %v (%d nodes)", x, labels, len(flat))
		}
		n := flat[x]
		g := only
		if g == nil {
			g = flatGroup[x]
		}
		vis, lacc := c.AllVisible(n), -1
		if len(vis) > 0 {
			lacc = 0
		}
		out.Append(&model.Placement{Rank: i, ClusterNodeRank: n, LocalAcceleratorRank: lacc, VisibleAccelerators: vis,
			IsolateAccelerator: isolate, NodeGroupLabel: g.Label, AcceleratorType: c.Nodes[n].AcceleratorType()})
	}
	if f := ascending(&out); f != nil {
		return model.Placements{}, f
	}
	return out, nil
}
