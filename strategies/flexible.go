package strategies

import (
	"fmt"
	"sort"
	"strings"

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
	if !r.Typed {
		f := fail(model.CodeNeedsHardware, -1, "flexible placement needs hardware ranks, but node group(s) %v have no hardware type", r.Labels())
		f.Why = "RLinf crashes with an AttributeError here (D7); use a CPU (node) placement or a group with GPUs or robots."
		return nil, f
	}
	if r.Total == 0 {
		return nil, fail(model.CodeNoHardware, -1, "no hardware found in node groups %v", r.Labels())
	}
	procs := make([][]int, len(fx.HardwareRanks))
	for i, hw := range fx.HardwareRanks {
		if len(hw) == 0 {
			return nil, fail(model.CodeEmptyRanks, i, "worker %d has no hardware ranks", i)
		}
		// RLinf's order of checks: range, same node, unique, same type.
		ws := make([]model.Where, len(hw))
		for k, h := range hw {
			if h < 0 || h >= r.Total {
				return nil, fail(model.CodeHardwareRange, i, "hardware rank %d is out of range: must be between 0 and %d across node groups %v", h, r.Total-1, r.Labels())
			}
			ws[k] = r.Locate(h)
		}
		for _, w := range ws[1:] {
			if w.Node != ws[0].Node {
				return nil, fail(model.CodeSpansNodes, i, "worker %d would get %s: one process cannot span nodes", i, perNode(hw, ws))
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
			if w.Group.HardwareType != ws[0].Group.HardwareType {
				return nil, fail(model.CodeMixedHardware, i, "worker %d mixes hardware types %s and %s", i, ws[0].Group.HardwareType, w.Group.HardwareType)
			}
		}
		procs[i] = sorted
	}
	sort.SliceStable(procs, func(a, b int) bool { return procs[a][0] < procs[b][0] })
	out := make([]model.Placement, len(procs))
	for i, hw := range procs {
		w := r.Locate(hw[0])
		local := make([]int, len(hw))
		for k, h := range hw {
			local[k] = r.Locate(h).Local
		}
		t := w.Group.HardwareType
		vis, lacc := c.visibleFor(w.Node, t, local, isolate)
		out[i] = model.Placement{
			Rank: i, ClusterNodeRank: w.Node, LocalAcceleratorRank: lacc, VisibleAccelerators: vis,
			IsolateAccelerator: isolate, LocalHardwareRanks: local, NodeGroupLabel: w.Group.Label,
			AcceleratorType: c.Nodes[w.Node].AcceleratorType(), HardwareType: t,
		}
	}
	if f := finishRuns(out, true); f != nil {
		return nil, f
	}
	return out, nil
}

// perNode describes hardware ranks by node: "ranks 3 (node 0, local 3) and
// 4 (node 1, local 0)".
func perNode(hw []int, ws []model.Where) string {
	parts := make([]string, len(hw))
	for k, h := range hw {
		parts[k] = fmt.Sprintf("%d (node %d, local %s %d)", h, ws[k].Node, strings.TrimSuffix(model.HardwareUnit(ws[k].Group.HardwareType), "s"), ws[k].Local)
	}
	return "hardware ranks " + strings.Join(parts, ", ")
}
