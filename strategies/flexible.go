package strategies

import (
	"cmp"
	"fmt"
	"slices"
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
func (fx Flexible) Place(c *Cluster, isolate bool) (model.Placements, *Failure) {
	r, f := fx.resolve(c)
	if f != nil {
		return model.Placements{}, f
	}
	procs, f := fx.processes(r)
	if f != nil {
		return model.Placements{}, f
	}
	if !slices.IsSortedFunc(procs, cmpFlexProc) {
		slices.SortStableFunc(procs, cmpFlexProc)
	}
	var out model.Placements
	out.Grow(len(procs))
	var scratch []string
	for i := range procs {
		pr := &procs[i]
		w := pr.w
		t := w.Group.HardwareType
		vis, lacc := c.visibleFor(w.Node, t, pr.local, isolate, &scratch)
		out.Append(&model.Placement{Rank: i, ClusterNodeRank: w.Node, LocalAcceleratorRank: lacc, VisibleAccelerators: vis,
			IsolateAccelerator: isolate, LocalHardwareRanks: pr.local, NodeGroupLabel: w.Group.Label,
			AcceleratorType: c.Nodes[w.Node].AcceleratorType(), HardwareType: t})
	}
	if f := ascending(&out); f != nil {
		return model.Placements{}, f
	}
	return out, nil
}

// resolve is the strategy's groups, which must have hardware.
func (fx Flexible) resolve(c *Cluster) (*model.Resolver, *Failure) {
	if len(fx.HardwareRanks) == 0 {
		return nil, fail(-1, "the hardware_ranks_list must not be empty")
	}
	r, f := c.resolve(fx.NodeGroups)
	if f != nil {
		return nil, f
	}
	if !r.Typed {
		f := fail(-1, "flexible placement needs hardware ranks, but node group(s) %v have no hardware type", r.Labels())
		f.Why = "RLinf crashes with an AttributeError here (D7); use a CPU (node) placement or a group with GPUs or robots."
		return nil, f
	}
	if r.Total == 0 {
		return nil, fail(-1, "no hardware found in node groups %v", r.Labels())
	}
	return r, nil
}

// processes checks each process's hardware ranks in RLinf's order (range,
// same node, unique, same type) and returns where each lands.
func (fx Flexible) processes(r *model.Resolver) ([]flexProc, *Failure) {
	// One backing array for every worker's local ranks instead of one per
	// worker (they live until the workers are appended).
	nhw := 0
	for _, hw := range fx.HardwareRanks {
		nhw += len(hw)
	}
	backing := make([]int, 0, nhw)
	procs := make([]flexProc, len(fx.HardwareRanks))
	var ws []model.Where // scratch, reused by every process
	var sorted []int     // scratch
	for i, hw := range fx.HardwareRanks {
		if len(hw) == 0 {
			return nil, fail(i, "worker %d has no hardware ranks", i)
		}
		ws = ws[:0]
		for _, h := range hw {
			if h < 0 || h >= r.Total {
				return nil, fail(i, "hardware rank %d is out of range: must be between 0 and %d across node groups %v", h, r.Total-1, r.Labels())
			}
			ws = append(ws, r.Locate(h))
		}
		for _, w := range ws[1:] {
			if w.Node != ws[0].Node {
				return nil, fail(i, "worker %d would get %s: one process cannot span nodes", i, perNode(hw, ws))
			}
		}
		from := len(backing)
		if len(hw) == 1 {
			// The common case: nothing to sort, nothing to compare.
			backing = append(backing, ws[0].Local)
			procs[i] = flexProc{first: hw[0], w: ws[0], local: backing[from:len(backing):len(backing)]}
			continue
		}
		sorted = append(sorted[:0], hw...)
		sort.Ints(sorted)
		for k := 1; k < len(sorted); k++ {
			if sorted[k] == sorted[k-1] {
				return nil, fail(i, "worker %d lists hardware rank %d twice", i, sorted[k])
			}
		}
		for _, w := range ws[1:] {
			if w.Group.HardwareType != ws[0].Group.HardwareType {
				return nil, fail(i, "worker %d mixes hardware types %s and %s", i, ws[0].Group.HardwareType, w.Group.HardwareType)
			}
		}
		for _, h := range sorted {
			backing = append(backing, r.Locate(h).Local)
		}
		// Two groups that share a node number its devices twice: distinct
		// ranks can still be one device. RLinf hands it out twice; rlsolve
		// refuses (the worker would see the GPU twice in CUDA_VISIBLE_DEVICES).
		if dev, dup := repeated(backing[from:]); dup {
			return nil, fail(i, "worker %d would get device %d of node %d twice (node groups %v share the node)", i, dev, ws[0].Node, r.Labels())
		}
		procs[i] = flexProc{first: sorted[0], w: r.Locate(sorted[0]), local: backing[from:len(backing):len(backing)]}
	}
	return procs, nil
}

// flexProc is one process of a Flexible strategy once checked: its smallest
// hardware rank, where that rank is, and its local ranks in rank order.
type flexProc struct {
	first int
	w     model.Where
	local []int
}

// cmpFlexProc orders processes by their first hardware rank (RLinf's worker
// order); ties keep the input order (stable sort).
func cmpFlexProc(a, b flexProc) int { return cmp.Compare(a.first, b.first) }

// perNode describes hardware ranks by node: "ranks 3 (node 0, local 3) and
// 4 (node 1, local 0)".
func perNode(hw []int, ws []model.Where) string {
	parts := make([]string, len(hw))
	for k, h := range hw {
		parts[k] = fmt.Sprintf("%d (node %d, local %s %d)", h, ws[k].Node, strings.TrimSuffix(model.HardwareUnit(ws[k].Group.HardwareType), "s"), ws[k].Local)
	}
	return "hardware ranks " + strings.Join(parts, ", ")
}

// repeated reports a value that occurs twice in a short list.
func repeated(xs []int) (int, bool) {
	for i := range xs {
		for j := i + 1; j < len(xs); j++ {
			if xs[i] == xs[j] {
				return xs[i], true
			}
		}
	}
	return 0, false
}
