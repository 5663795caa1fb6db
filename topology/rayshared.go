package topology

import (
	"fmt"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
)

// sharedAddress refuses two alive raylets on one address (a local
// multi-raylet cluster, or a raylet restarted before Ray saw the old one
// die): grammar's duplicate-address error, said the Ray way. RLinf numbers
// every alive raylet as a node of its own and pins workers by node id, so
// it would run on both; rlsolve's inventory, plan and launch preflight tell
// nodes apart by address and could not say which raylet is which node, so
// it refuses rather than guess.
func (r *rayReader) sharedAddress(alive []RayNode) *model.Diagnostic {
	addrs := make([]string, len(alive))
	first := make(map[string]int, len(alive))
	second := -1
	for i, n := range alive {
		addrs[i] = n.IP
		if _, dup := first[n.IP]; !dup {
			first[n.IP] = i
		} else if second < 0 {
			second = i
		}
	}
	d := grammar.DuplicateAddress(addrs, func(i int) model.Span { return r.spanOf(alive[i].obj) })
	if d == nil {
		return nil
	}
	a, b := alive[first[alive[second].IP]], alive[second]
	d.Summary = fmt.Sprintf("two alive raylets%s have the address %s: RLinf numbers each raylet as a node of its own, but rlsolve tells nodes apart by address and cannot say which raylet is which node",
		raylets(a, b), b.IP)
	d.Help = []model.Fix{{Message: "run one raylet per address (a test cluster: one network namespace per node, as scripts/ray-test-cluster.sh does), or wait until Ray lists the stale raylet as DEAD"}}
	return d
}

// raylets names two raylets by node id where the rows give them.
func raylets(a, b RayNode) string {
	if a.NodeID == "" || b.NodeID == "" {
		return ""
	}
	id := func(s string) string { // Ray's are 56 hex digits: whole, for `ray list nodes`
		if len(s) > 64 {
			return clip(s)
		}
		return s
	}
	return fmt.Sprintf(" (%s and %s)", id(a.NodeID), id(b.NodeID))
}
