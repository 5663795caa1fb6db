package strategies

import (
	"fmt"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// rankMap is one component_placement entry as RLinf's base class reads it
// (semantics §2.3-2.5): its processes and the strategy record that places
// them.
type rankMap struct {
	labels    []string
	worldSize int
	hwRanks   []int
	strategy  model.Strategy
}

func names(e *model.ComponentEntry) string { return strings.Join(e.Names, ",") }

// rankMap reads entry e: Node placement on groups without hardware,
// Flexible placement (one hardware list per process) otherwise.
func (c *Cluster) rankMap(e *model.ComponentEntry) (*rankMap, error) {
	rm := &rankMap{labels: e.NodeGroups}
	if len(rm.labels) == 0 {
		rm.labels = []string{"cluster"}
	}
	r, f := c.resolve(rm.labels)
	if f != nil {
		return nil, f
	}
	parts := make([]model.Part, 0, len(e.Segments))
	last := -1
	for si := range e.Segments {
		pt := model.ResolvePart(&e.Segments[si], si, r.Total, last)
		// RLinf's rank-map parse asserts these before any strategy exists.
		if pt.ResStart < 0 || pt.ResEnd >= r.Total {
			return nil, fmt.Errorf("part %d: resources %d-%d outside 0-%d", si, pt.ResStart, pt.ResEnd, r.Total-1)
		}
		if !pt.Divides() {
			return nil, fmt.Errorf("part %d: %d processes on %d resources", si, pt.Processes(), pt.Resources())
		}
		parts = append(parts, pt)
		last = pt.ProcEnd
	}
	rm.worldSize = model.ProcessTotal(parts)
	rm.hwRanks = model.HardwareRanks(parts)
	kind := model.StrategyFlexible
	if !r.Typed {
		kind = model.StrategyNode
	}
	rm.strategy = model.Strategy{Kind: kind, NodeGroups: rm.labels, Parts: parts}
	return rm, nil
}
