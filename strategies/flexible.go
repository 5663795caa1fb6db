package strategies

import (
	"sort"

	"github.com/rlsolve/rlsolve/model"
)

// Flexible is RLinf's FlexiblePlacementStrategy (semantics §4.3): one list of
// hardware ranks per process. Workers are numbered by their first hardware
// rank, not by the input order.
type Flexible struct {
	HardwareRanks [][]int
	NodeGroups    []string
}

// Place expands the strategy. A group without hardware is a clear error
// where RLinf crashes (D7).
func (fx Flexible) Place(c *Cluster, isolate bool) ([]model.Placement, *Failure) {
	if len(fx.HardwareRanks) == 0 {
		return nil, fail(model.CodeEmptyRanks, -1, "the hardware_ranks_list must not be empty")
	}
	r, f := c.resolve(fx.NodeGroups)
	if f != nil {
		return nil, f
	}
	if !r.typed {
		f := fail(model.CodeNeedsHardware, -1, "flexible placement needs hardware ranks, but node group(s) %v have no hardware type", r.labels())
		f.Why = "RLinf crashes with an AttributeError here (D7); use a CPU (node) placement or a group with GPUs or robots."
		return nil, f
	}
	if r.total == 0 {
		return nil, fail(model.CodeNoHardware, -1, "no hardware found in node groups %v", r.labels())
	}
	procs := make([][]int, len(fx.HardwareRanks))
	for i, hw := range fx.HardwareRanks {
		if len(hw) == 0 {
			return nil, fail(model.CodeEmptyRanks, i, "worker %d has no hardware ranks", i)
		}
		// RLinf's order of checks: range, same node, unique, same type.
		ws := make([]where, len(hw))
		for k, h := range hw {
			if h < 0 || h >= r.total {
				return nil, fail(model.CodeHardwareRange, i, "hardware rank %d is out of range: must be between 0 and %d across node groups %v", h, r.total-1, r.labels())
			}
			ws[k] = r.locate(h)
		}
		for _, w := range ws[1:] {
			if w.node != ws[0].node {
				return nil, fail(model.CodeSpansNodes, i, "worker %d's hardware ranks %v lie on nodes %d and %d: one process cannot span nodes", i, hw, ws[0].node, w.node)
			}
		}
		sorted := append([]int(nil), hw...)
		sort.Ints(sorted)
		for k := 1; k < len(sorted); k++ {
			if sorted[k] == sorted[k-1] {
				return nil, fail(model.CodeProcessHardwareDup, i, "worker %d lists hardware rank %d twice", i, sorted[k])
			}
		}
		for _, w := range ws[1:] {
			if w.group.HardwareType != ws[0].group.HardwareType {
				return nil, fail(model.CodeMixedHardware, i, "worker %d mixes hardware types %s and %s", i, ws[0].group.HardwareType, w.group.HardwareType)
			}
		}
		procs[i] = sorted
	}
	sort.SliceStable(procs, func(a, b int) bool { return procs[a][0] < procs[b][0] })
	out := make([]model.Placement, len(procs))
	for i, hw := range procs {
		w := r.locate(hw[0])
		local := make([]int, len(hw))
		for k, h := range hw {
			local[k] = r.locate(h).local
		}
		t := w.group.HardwareType
		vis, lacc := c.visibleFor(w.node, t, local, isolate)
		out[i] = model.Placement{
			Rank: i, ClusterNodeRank: w.node, LocalAcceleratorRank: lacc, VisibleAccelerators: vis,
			IsolateAccelerator: isolate, LocalHardwareRanks: local, NodeGroupLabel: w.group.Label,
			AcceleratorType: c.Nodes[w.node].AcceleratorType(), HardwareType: t,
		}
	}
	if f := finishRuns(out, true); f != nil {
		return nil, f
	}
	return out, nil
}
