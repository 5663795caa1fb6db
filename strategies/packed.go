package strategies

import (
	"fmt"

	"github.com/rlsolve/rlsolve/model"
)

// Packed is RLinf's PackedPlacementStrategy (semantics §4.2): hardware ranks
// Start..End, HardwarePerProcess devices per process, Stride apart.
type Packed struct {
	Start, End         int
	HardwarePerProcess int // 0 means 1
	Stride             int // 0 means 1
	NodeGroups         []string
}

func (p Packed) norm() (nhpp, stride int) {
	nhpp, stride = p.HardwarePerProcess, p.Stride
	if nhpp == 0 {
		nhpp = 1
	}
	if stride == 0 {
		stride = 1
	}
	return
}

// Check runs the constructor's assertions.
func (p Packed) Check() *Failure {
	nhpp, stride := p.norm()
	switch {
	case p.Start < 0:
		return fail(-1, "the start hardware rank %d must be non-negative", p.Start)
	case p.End < 0:
		return fail(-1, "the end hardware rank %d must be non-negative", p.End)
	case p.End < p.Start:
		return fail(-1, "the end hardware rank %d must be at least the start hardware rank %d", p.End, p.Start)
	case nhpp < 1 || stride < 1:
		return fail(-1, "num_hardware_per_process (%d) and stride (%d) must be at least 1", nhpp, stride)
	}
	if n := p.End - p.Start + 1; n%(nhpp*stride) != 0 {
		return fail(-1, "the number of hardware %d must be divisible by num_hardware_per_process * stride (%d)", n, nhpp*stride)
	}
	return nil
}

// Place expands the strategy. Unlike RLinf (whose capacity check is off by
// one, §4.2 E1), a process whose devices would run past its node is refused (D1).
func (p Packed) Place(c *Cluster, isolate bool) (model.Placements, *Failure) {
	if f := p.Check(); f != nil {
		return model.Placements{}, f
	}
	nhpp, stride := p.norm()
	r, f := c.resolve(p.NodeGroups)
	if f != nil {
		return model.Placements{}, f
	}
	if p.Start >= r.Total || p.End >= r.Total {
		return model.Placements{}, fail(-1, "hardware ranks [%d, %d] exceed the %d available across node groups %v", p.Start, p.End, r.Total, r.Labels())
	}
	if !r.Typed {
		return model.Placements{}, fail(-1, "packed placement needs hardware, but a selected node group (%v) has none", r.Labels())
	}
	used := make([]bool, r.Total)
	var out model.Placements
	out.Grow((p.End - p.Start + 1) / nhpp)
	local := make([]int, nhpp) // scratch: Append copies it
	var scratch []string
	for cur := p.Start; cur <= p.End; {
		w := r.Locate(cur)
		t := w.Group.HardwareType
		count := c.Count(w.Node, t)
		if last := w.Local + (nhpp-1)*stride; last >= count {
			if h := cur + (nhpp-1)*stride; h < r.Total {
				if w2 := r.Locate(h); w2.Node == w.Node && w2.Group.HardwareType != t {
					return model.Placements{}, fail(out.Len(), "worker %d would mix %s and %s on node %d", out.Len(), model.HardwareUnit(t), model.HardwareUnit(w2.Group.HardwareType), w.Node)
				}
			}
			f := fail(out.Len(),
				"worker %d would need %s %s on node %d, but the node has %d (%s): one process cannot span nodes",
				out.Len(), deviceList(w.Local, nhpp, stride), model.HardwareUnit(t), w.Node, count, countRange(count))
			f.Why = "RLinf's own check is off by one here and would hand out a device index the node does not have (D1)."
			return model.Placements{}, f
		}
		for k := range local {
			local[k] = w.Local + k*stride
			used[cur+k*stride] = true
		}
		vis, lacc := c.visibleFor(w.Node, t, local, isolate, &scratch)
		out.Append(&model.Placement{
			Rank: out.Len(), ClusterNodeRank: w.Node, LocalAcceleratorRank: lacc, VisibleAccelerators: vis,
			IsolateAccelerator: isolate, LocalHardwareRanks: local, NodeGroupLabel: w.Group.Label,
			AcceleratorType: c.Nodes[w.Node].AcceleratorType(), HardwareType: t,
		})
		for cur <= p.End && used[cur] {
			cur++
		}
	}
	// Packed has no "sorted by node" check in RLinf.
	return out, nil
}

func deviceList(first, n, stride int) string {
	s := ""
	for k := 0; k < n; k++ {
		if k > 0 {
			s += ","
		}
		s += fmt.Sprint(first + k*stride)
	}
	return s
}

func countRange(n int) string {
	switch n {
	case 0:
		return "none"
	case 1:
		return "index 0"
	}
	return fmt.Sprintf("indices 0-%d", n-1)
}
