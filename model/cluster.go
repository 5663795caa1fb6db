package model

import (
	"sort"
	"strconv"
)

// Group is a node group as RLinf's NodeProbe builds it (semantics §3.1).
type Group struct {
	Label string
	// Nodes are the group's node ranks, ascending.
	Nodes []int
	// HardwareType is "" for groups without hardware (node placement).
	HardwareType string
	Config       *NodeGroup // nil for cluster and node
	// prefix[i] is the hardware count of Nodes[:i].
	prefix []int
	total  int
}

// ResourceCount is the group's resource count: hardware of its type, or
// nodes when it has none.
func (g *Group) ResourceCount() int { return g.total }

// Cluster is the inventory as RLinf sees it once the config's node groups
// are applied: the configured groups with nodes, then `cluster`, then `node`.
type Cluster struct {
	Nodes  []Node
	Groups []*Group
	// robots[node][type] is the robot count RLinf will detect on the node.
	robots []map[string]int
	// allVisible[node] is the shared list "0".."n-1" of the node's accelerators.
	allVisible [][]string
	// Empty lists configured groups RLinf drops because they have no nodes.
	Empty map[string]*NodeGroup
}

// NewCluster builds the cluster view. cfg may be nil (only the `cluster` and
// `node` groups then exist). The inventory's nodes are used in rank order.
func NewCluster(inv *Inventory, cfg *Config) *Cluster {
	c := &Cluster{Nodes: inv.Nodes, Empty: map[string]*NodeGroup{}}
	c.robots = make([]map[string]int, len(c.Nodes))
	c.allVisible = make([][]string, len(c.Nodes))
	var groupsCfg []NodeGroup
	if cfg != nil {
		groupsCfg = cfg.NodeGroups
	}
	// Robot counts per (node, type): a type's hardware configs (from every
	// group) on the node when it has any, else what the inventory says of
	// that type (RLinf's env-var auto-configuration). Configs of one type
	// never change another type's count (D20).
	configured := make([]map[string]int, len(c.Nodes))
	for gi := range groupsCfg {
		g := &groupsCfg[gi]
		if g.Hardware == nil {
			continue
		}
		for _, rc := range g.Hardware.Configs {
			if rc.NodeRank < 0 || rc.NodeRank >= len(c.Nodes) {
				continue
			}
			if configured[rc.NodeRank] == nil {
				configured[rc.NodeRank] = map[string]int{}
			}
			configured[rc.NodeRank][g.Hardware.Type]++
		}
	}
	anyAccel := false
	visByCount := map[int][]string{} // nodes of one size share their list
	for i := range c.Nodes {
		c.robots[i] = c.Nodes[i].Hardware
		if configured[i] != nil {
			counts := make(map[string]int, len(c.Nodes[i].Hardware)+len(configured[i]))
			for t, n := range c.Nodes[i].Hardware {
				counts[t] = n
			}
			for t, n := range configured[i] {
				counts[t] = n
			}
			c.robots[i] = counts
		}
		n := c.Nodes[i].AccelCount
		if visByCount[n] == nil {
			visByCount[n] = make([]string, n)
			for j := range n {
				visByCount[n][j] = strconv.Itoa(j)
			}
		}
		c.allVisible[i] = visByCount[n]
		anyAccel = anyAccel || c.Nodes[i].AccelCount > 0
	}
	for gi := range groupsCfg {
		g := &groupsCfg[gi]
		var nodes []int
		for _, r := range g.NodeRanks {
			if r < len(c.Nodes) {
				nodes = append(nodes, r)
			}
		}
		if len(nodes) == 0 {
			c.Empty[g.Label] = g
			continue
		}
		ht := g.HardwareType
		if ht == "" && !g.IgnoreHardware {
			for _, r := range nodes {
				if c.Nodes[r].AccelCount > 0 {
					ht = HardwareAccelerator
					break
				}
			}
		}
		c.addGroup(&Group{Label: g.Label, Nodes: nodes, HardwareType: ht, Config: g})
	}
	all := make([]int, len(c.Nodes))
	for i := range all {
		all[i] = i
	}
	clusterType := ""
	if anyAccel {
		clusterType = HardwareAccelerator
	}
	c.addGroup(&Group{Label: "cluster", Nodes: all, HardwareType: clusterType})
	c.addGroup(&Group{Label: "node", Nodes: all})
	return c
}

func (c *Cluster) addGroup(g *Group) {
	g.prefix = make([]int, len(g.Nodes)+1)
	for i, r := range g.Nodes {
		n := 1
		if g.HardwareType != "" {
			n = c.Count(r, g.HardwareType)
		}
		g.prefix[i+1] = g.prefix[i] + n
	}
	g.total = g.prefix[len(g.Nodes)]
	c.Groups = append(c.Groups, g)
}

// Count is how many resources of hardware type t node r has.
func (c *Cluster) Count(r int, t string) int {
	if t == HardwareAccelerator {
		return c.Nodes[r].AccelCount
	}
	return c.robots[r][t]
}

// Robots returns the robot counts RLinf will see on node r.
func (c *Cluster) Robots(r int) map[string]int { return c.robots[r] }

// AllVisible is the node's accelerators as "0".."n-1", shared: do not modify.
func (c *Cluster) AllVisible(r int) []string { return c.allVisible[r] }

// Group returns the first group with the label, or nil.
func (c *Cluster) Group(label string) *Group {
	for _, g := range c.Groups {
		if g.Label == label {
			return g
		}
	}
	return nil
}

// NumAccelerators is the cluster's accelerator count.
func (c *Cluster) NumAccelerators() int {
	n := 0
	for i := range c.Nodes {
		n += c.Nodes[i].AccelCount
	}
	return n
}

// Resolver maps global resource ranks of several groups, concatenated in
// label order (RLinf's MultiNodeGroupResolver, semantics §3.3).
type Resolver struct {
	Groups []*Group
	offset []int
	// Total is the resource count over the groups.
	Total int
	// Typed is false when a group has no hardware type (node placement).
	Typed bool
}

// Resolve builds the resolver for labels (none: `cluster`). r is nil when a
// label names no group; missing is then that label, which may be "".
func (c *Cluster) Resolve(labels []string) (r *Resolver, missing string) {
	if len(labels) == 0 {
		labels = []string{"cluster"}
	}
	r = &Resolver{Typed: true}
	for _, l := range labels {
		g := c.Group(l)
		if g == nil {
			return nil, l
		}
		r.Groups = append(r.Groups, g)
		r.offset = append(r.offset, r.Total)
		r.Total += g.total
		if g.HardwareType == "" {
			r.Typed = false
		}
	}
	return r, ""
}

// Where is a global resource rank located.
type Where struct {
	Group *Group
	Node  int // cluster node rank
	Local int // index within the node's block of the group's type
}

// Locate finds global resource rank h (0 <= h < Total).
func (r *Resolver) Locate(h int) Where {
	gi := sort.SearchInts(r.offset, h+1) - 1
	g := r.Groups[gi]
	x := h - r.offset[gi]
	ni := sort.SearchInts(g.prefix, x+1) - 1
	return Where{Group: g, Node: g.Nodes[ni], Local: x - g.prefix[ni]}
}

// Labels are the resolver's group labels, in order.
func (r *Resolver) Labels() []string {
	out := make([]string, len(r.Groups))
	for i, g := range r.Groups {
		out[i] = g.Label
	}
	return out
}

// Unit names the resolver's resources for messages ("GPUs", "Franka robots", "nodes").
func (r *Resolver) Unit() string {
	if !r.Typed {
		return "nodes"
	}
	t := r.Groups[0].HardwareType
	for _, g := range r.Groups {
		if g.HardwareType != t {
			return "resources"
		}
	}
	return HardwareUnit(t)
}

// HardwareUnit names a hardware type's devices in the plural; a group
// without a type places on nodes.
func HardwareUnit(t string) string {
	if t == "" {
		return "nodes"
	}
	if t == HardwareAccelerator {
		return "GPUs"
	}
	return t + " robots"
}
