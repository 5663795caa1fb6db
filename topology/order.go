package topology

import (
	"fmt"
	"net/netip"
	"sort"

	"github.com/rlsolve/rlsolve/model"
)

// Order ranks discovered nodes that carry no explicit rank (decision D13):
// IPv4 addresses numerically, else by host name, else by the address's
// characters. It returns the nodes with Rank set, and a warning when RLinf's
// own order (accelerator type groups in discovery order, IPs compared as
// strings) would number them differently; the head node, which RLinf moves
// to the front, is not known here.
func Order(nodes []model.Node) ([]model.Node, string) {
	return OrderWithHead(nodes, -1)
}

// OrderWithHead is Order for a discovery that knows Ray's head node
// (nodes[head]; -1 when unknown): RLinf moves it to the front of its own
// order, which the warning then takes into account. rlsolve's order stays
// numeric (D13).
func OrderWithHead(nodes []model.Node, head int) ([]model.Node, string) {
	out := append([]model.Node(nil), nodes...)
	sort.SliceStable(out, func(i, j int) bool { return lessNode(&out[i], &out[j]) })
	for i := range out {
		out[i].Rank = i
	}
	rl := rlinfOrder(nodes, head)
	for i := range out {
		if out[i].IP != rl[i].IP || out[i].Hostname != rl[i].Hostname {
			return out, fmt.Sprintf("RLinf would order these nodes differently (it compares IPs as strings and groups by accelerator type): rank %d is %s here but %s in RLinf; set RLINF_NODE_RANK on each node to make the order explicit",
				i, nodeName(&out[i]), nodeName(&rl[i]))
		}
	}
	return out, ""
}

// RLinfOrderWarning is the D13 warning for a config whose nodes RLinf would
// number differently from the inventory's ranks (nil when it would not),
// pointing at at (the config's num_nodes).
func RLinfOrderWarning(nodes []model.Node, at model.Span) *model.Diagnostic {
	msg := RLinfOrderDiffers(nodes)
	if msg == "" {
		return nil
	}
	return &model.Diagnostic{Code: model.WarnNodeOrderRLinf, Severity: model.SeverityWarning, Summary: msg, Primary: at, PrimaryLabel: "these nodes",
		Why: "RLinf sorts node IPs as strings (10.0.0.10 before 10.0.0.2) and groups them by accelerator type (D13)."}
}

// RLinfOrderDiffers compares an inventory's ranks with the order RLinf
// gives the same nodes when RLINF_NODE_RANK is not set (IPs as strings,
// grouped by accelerator type; the head node unknown). It returns a
// sentence when they differ and every node has an IP, else "".
func RLinfOrderDiffers(nodes []model.Node) string {
	if len(nodes) < 2 {
		return ""
	}
	for i := range nodes {
		if nodes[i].IP == "" {
			return ""
		}
	}
	rl := rlinfOrder(nodes, -1)
	for i := range nodes {
		if nodes[i].IP != rl[i].IP {
			return fmt.Sprintf("without RLINF_NODE_RANK, RLinf orders these nodes by IP as strings: node rank %d (%s) would be %s; set RLINF_NODE_RANK=<rank> on each node so that RLinf uses this inventory's ranks",
				i, nodes[i].IP, rl[i].IP)
		}
	}
	return ""
}

func nodeName(n *model.Node) string {
	if n.IP != "" {
		return n.IP
	}
	return n.Hostname
}

func lessNode(a, b *model.Node) bool {
	ia, ea := netip.ParseAddr(a.IP)
	ib, eb := netip.ParseAddr(b.IP)
	switch {
	case ea == nil && eb == nil && ia.Is4() && ib.Is4():
		return ia.Less(ib)
	case ea == nil && ia.Is4() && !(eb == nil && ib.Is4()):
		return true // numeric addresses first
	case eb == nil && ib.Is4() && !(ea == nil && ia.Is4()):
		return false
	case a.Hostname != b.Hostname:
		return a.Hostname < b.Hostname
	}
	return a.IP < b.IP
}

// rlinfOrder reproduces RLinf's _sort_nodes without RLINF_NODE_RANK
// (semantics §6.1): type groups in order of first appearance, IPs sorted
// as strings, then the head node (nodes[head], when head >= 0) moved to
// the front.
func rlinfOrder(nodes []model.Node, head int) []model.Node {
	type item struct {
		n    model.Node
		head bool
	}
	var types []string
	byType := map[string][]item{}
	for i, n := range nodes {
		t := n.AcceleratorType()
		if _, ok := byType[t]; !ok {
			types = append(types, t)
		}
		byType[t] = append(byType[t], item{n, i == head})
	}
	var all []item
	for _, t := range types {
		g := byType[t]
		sort.SliceStable(g, func(i, j int) bool { return g[i].n.IP < g[j].n.IP })
		all = append(all, g...)
	}
	out := make([]model.Node, 0, len(all))
	for _, it := range all {
		if it.head {
			out = append(out, it.n)
		}
	}
	for _, it := range all {
		if !it.head {
			out = append(out, it.n)
		}
	}
	return out
}
