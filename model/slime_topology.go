package model

import (
	"slices"
	"sort"
)

// SlimeTopology is an inventory's GPUs in slime's stable order: nodes in the
// given order (numeric IPv4, else host name, else characters; see
// topology.Order), GPUs of a node by id. Stable bundle b is the b-th GPU.
type SlimeTopology struct {
	Nodes []Node
	// Span is the inventory's position (its `nodes:` key), when from a file.
	Span Span
	// Order holds indices into Nodes in stable order.
	Order []int
	// prefix[i] is the GPU count of Order[:i].
	prefix []int
}

// NewSlimeTopology builds the stable order; order nil means the
// inventory's order. Invalid or repeated indices are dropped.
func NewSlimeTopology(nodes []Node, order []int) *SlimeTopology {
	t := &SlimeTopology{Nodes: nodes}
	seen := make([]bool, len(nodes))
	if order == nil {
		order = make([]int, len(nodes))
		for i := range order {
			order[i] = i
		}
	}
	for _, i := range order {
		if i >= 0 && i < len(nodes) && !seen[i] {
			seen[i] = true
			t.Order = append(t.Order, i)
		}
	}
	t.prefix = make([]int, len(t.Order)+1)
	for p, i := range t.Order {
		t.prefix[p+1] = t.prefix[p] + max(nodes[i].AccelCount, 0)
	}
	return t
}

// NumGPUs is the inventory's GPU count.
func (t *SlimeTopology) NumGPUs() int { return t.prefix[len(t.Order)] }

// Locate returns the stable position of the node holding bundle b
// (0 <= b < NumGPUs) and the bundle's index among the node's GPUs.
func (t *SlimeTopology) Locate(b int) (pos, local int) {
	pos = sort.SearchInts(t.prefix, b+1) - 1
	return pos, b - t.prefix[pos]
}

// NodeRange is the bundles [start, end) of the node at stable position pos.
func (t *SlimeTopology) NodeRange(pos int) (start, end int) { return t.prefix[pos], t.prefix[pos+1] }

// Boundary reports whether bundle b starts a node (or is the end).
func (t *SlimeTopology) Boundary(b int) bool {
	i := sort.SearchInts(t.prefix, b)
	return i < len(t.prefix) && t.prefix[i] == b
}

// Node is the node at stable position pos.
func (t *SlimeTopology) Node(pos int) *Node { return &t.Nodes[t.Order[pos]] }

// GPUID is the device id of the node's local-th GPU: the inventory's device
// indices in ascending order when it lists every device, else local.
func (t *SlimeTopology) GPUID(pos, local int) int {
	n := t.Node(pos)
	if len(n.Devices) == n.AccelCount && local < len(n.Devices) {
		ids := make([]int, len(n.Devices))
		for i, d := range n.Devices {
			ids[i] = d.Index
		}
		slices.Sort(ids)
		return ids[local]
	}
	return local
}

// Address is how slime names a node: its IP, else its host name ("" when
// the inventory knows neither).
func (n *Node) Address() string {
	if n.IP != "" {
		return n.IP
	}
	return n.Hostname
}

// Positions calls f for each stable node position whose GPUs meet the
// bundles [from, to), with the overlap [a, b).
func (t *SlimeTopology) Positions(from, to int, f func(pos, a, b int) bool) {
	if from >= to {
		return
	}
	p, _ := t.Locate(from)
	for ; p < len(t.Order) && t.prefix[p] < to; p++ {
		a, b := max(t.prefix[p], from), min(t.prefix[p+1], to)
		if a < b && !f(p, a, b) {
			return
		}
	}
}

// SlimeStraddle is an engine whose GPUs cross a node boundary without
// covering whole nodes.
type SlimeStraddle struct {
	Engine     int
	Start, End int // bundles [Start, End)
}

// Straddler finds the first engine of s that straddles nodes, in
// O(nodes log nodes); ok is false when none does. The layout must fit.
func (t *SlimeTopology) Straddler(s SlimeSettings) (SlimeStraddle, bool) {
	total, off := s.Bundles()
	r, g := s.Rollout(), s.GPUsPerEngine
	if r <= 0 || g <= 0 || total > t.NumGPUs() {
		return SlimeStraddle{}, false
	}
	end := off + s.Engines()*g
	for p := range t.Order {
		b := t.prefix[p]
		if b <= off || b >= end || (b-off)%g == 0 {
			continue
		}
		e := (b - off) / g
		st := off + e*g
		if !t.Boundary(st) || !t.Boundary(st+g) {
			return SlimeStraddle{Engine: e, Start: st, End: st + g}, true
		}
	}
	return SlimeStraddle{}, false
}

// SlimeNodeMismatch is an engine that slime, from --num-gpus-per-node,
// splits into workers (one Ray actor and SGLang node each) otherwise than
// its GPUs lie on nodes.
type SlimeNodeMismatch struct {
	Engine     int
	Start, End int // bundles [Start, End)
	// Pos is the node that contradicts --num-gpus-per-node.
	Pos int
}

// NodeMismatch finds the first engine whose node split slime computes
// wrongly, in O(nodes log nodes); ok is false when none does. Only engines
// that really span nodes, or that slime believes do (an engine larger
// than --num-gpus-per-node), can: slime starts an engine as
// max(1, gpus_per_engine // num_gpus_per_node) workers of
// min(gpus_per_engine, num_gpus_per_node) GPUs. Engines that straddle
// nodes are the straddle rule's. The layout must fit.
func (t *SlimeTopology) NodeMismatch(s SlimeSettings) (SlimeNodeMismatch, bool) {
	total, off := s.Bundles()
	g, n := s.GPUsPerEngine, s.Engines()
	if n <= 0 || g <= 0 || total > t.NumGPUs() {
		return SlimeNodeMismatch{}, false
	}
	end := off + n*g
	straddles := func(e int) bool {
		st := off + e*g
		return t.crosses(st, st+g) && !(t.Boundary(st) && t.Boundary(st+g))
	}
	var bad SlimeNodeMismatch
	found := false
	t.Positions(off, end, func(pos, a, b int) bool {
		e := (a - off) / g
		if g > s.NumGPUsPerNode {
			// slime splits every engine into whole nodes of num_gpus_per_node GPUs
			found = t.Node(pos).AccelCount != s.NumGPUsPerNode && !straddles(e)
		} else if a > off && t.Boundary(a) && (a-off)%g != 0 {
			// an engine crosses into this node, but slime starts it on one
			found = !straddles(e)
		}
		if found {
			bad = SlimeNodeMismatch{Engine: e, Start: off + e*g, End: off + (e+1)*g, Pos: pos}
		}
		return !found
	})
	return bad, found
}

// crosses reports whether the bundles [a, b) meet more than one node.
func (t *SlimeTopology) crosses(a, b int) bool {
	p, _ := t.Locate(a)
	_, end := t.NodeRange(p)
	return b > end
}

// SlimePortProblem is a port plan failure: a node's ports reaching the
// ephemeral range, or two nodes with one address planning the same ports.
type SlimePortProblem struct {
	// Pos is the node (stable position); Other the second node of an
	// overlap (-1 for the ephemeral range).
	Pos, Other int
	// Last is the node's last planned port.
	Last int
	// At is the node's allocation that reaches furthest.
	At SlimeNodePorts
}

// PortProblems checks the port plan of s in O(groups x nodes): the first
// node whose ports reach the ephemeral range, and the first two nodes with
// the same address that both plan ports. The layout must fit.
func (t *SlimeTopology) PortProblems(s SlimeSettings) (ephemeral, overlap *SlimePortProblem) {
	total, _ := s.Bundles()
	if total > t.NumGPUs() {
		return nil, nil
	}
	byAddr := map[string]int{}
	t.PortPlan(s, func(np SlimeNodePorts) bool {
		if ephemeral == nil && np.End-1 >= SlimeEphemeralFirst {
			ephemeral = &SlimePortProblem{Pos: np.Pos, Other: -1, Last: np.End - 1, At: np}
		}
		addr := t.Node(np.Pos).Address()
		if q, dup := byAddr[addr]; addr != "" && dup && q != np.Pos && overlap == nil {
			overlap = &SlimePortProblem{Pos: q, Other: np.Pos, Last: np.End - 1, At: np}
		} else if addr != "" && !dup {
			byAddr[addr] = np.Pos
		}
		return ephemeral == nil || overlap == nil
	})
	return ephemeral, overlap
}
