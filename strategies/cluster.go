// Package strategies expands a valid config into one placement record per
// worker, exactly as RLinf's scheduler would (semantics §2-§5), with the
// decisions of §10. It is a Go library in its own right: build a Cluster from
// an Inventory and call Packed, Flexible or Node directly.
package strategies

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/rlsolve/rlsolve/model"
)

// Group is a node group as RLinf's NodeProbe builds it (semantics §3.1).
type Group struct {
	Label string
	// Nodes are the group's node ranks, ascending.
	Nodes []int
	// HardwareType is "" for groups without hardware (node placement).
	HardwareType string
	Config       *model.NodeGroup // nil for cluster and node
	// counts[i] is the hardware count of Nodes[i]; prefix[i] their running sum.
	counts []int
	prefix []int
	total  int
}

// Cluster is the inventory as RLinf sees it once the config's node groups
// are applied.
type Cluster struct {
	Nodes  []model.Node
	Groups []*Group
	// robots[node][type] is the robot count RLinf will detect on the node.
	robots []map[string]int
	// allVisible[node] is the shared list "0".."n-1" of the node's accelerators.
	allVisible [][]string
	// Empty lists configured groups RLinf drops because they have no nodes.
	Empty map[string]*model.NodeGroup
}

// NewCluster builds the cluster view. cfg may be nil (only the `cluster` and
// `node` groups then exist). The inventory's nodes are used in rank order.
func NewCluster(inv *model.Inventory, cfg *model.Config) *Cluster {
	c := &Cluster{Nodes: inv.Nodes, Empty: map[string]*model.NodeGroup{}}
	c.robots = make([]map[string]int, len(c.Nodes))
	c.allVisible = make([][]string, len(c.Nodes))
	var groupsCfg []model.NodeGroup
	if cfg != nil {
		groupsCfg = cfg.NodeGroups
	}
	// Robot counts: a node's hardware configs (from every group) when it has
	// any, else what the inventory says (RLinf's env-var auto-configuration).
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
	for i := range c.Nodes {
		if configured[i] != nil {
			c.robots[i] = configured[i]
		} else {
			c.robots[i] = c.Nodes[i].Hardware
		}
		vis := make([]string, c.Nodes[i].AccelCount)
		for j := range vis {
			vis[j] = strconv.Itoa(j)
		}
		c.allVisible[i] = vis
	}
	anyAccel := false
	for i := range c.Nodes {
		if c.Nodes[i].AccelCount > 0 {
			anyAccel = true
			break
		}
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
					ht = model.HardwareAccelerator
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
		clusterType = model.HardwareAccelerator
	}
	c.addGroup(&Group{Label: "cluster", Nodes: all, HardwareType: clusterType})
	c.addGroup(&Group{Label: "node", Nodes: all})
	return c
}

func (c *Cluster) addGroup(g *Group) {
	g.counts = make([]int, len(g.Nodes))
	g.prefix = make([]int, len(g.Nodes)+1)
	for i, r := range g.Nodes {
		n := 1
		if g.HardwareType != "" {
			n = c.count(r, g.HardwareType)
		}
		g.counts[i] = n
		g.prefix[i+1] = g.prefix[i] + n
	}
	g.total = g.prefix[len(g.Nodes)]
	c.Groups = append(c.Groups, g)
}

// count is how many resources of type t node r has.
func (c *Cluster) count(r int, t string) int {
	if t == model.HardwareAccelerator {
		return c.Nodes[r].AccelCount
	}
	return c.robots[r][t]
}

// Robots returns the robot counts RLinf will see on node r.
func (c *Cluster) Robots(r int) map[string]int { return c.robots[r] }

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

// ResourceCount is the group's resource count: hardware of its type, or
// nodes when it has none.
func (g *Group) ResourceCount() int { return g.total }

// resolver maps global resource ranks of several groups, concatenated in
// label order (MultiNodeGroupResolver, semantics §3.3).
type resolver struct {
	groups []*Group
	offset []int
	total  int
	typed  bool
}

func (c *Cluster) resolve(labels []string) (*resolver, *Failure) {
	if len(labels) == 0 {
		labels = []string{"cluster"}
	}
	r := &resolver{typed: true}
	for _, l := range labels {
		g := c.Group(l)
		if g == nil {
			f := &Failure{Code: model.CodeUnknownGroup, Msg: fmt.Sprintf("node group %q does not exist", l), Label: l}
			if _, empty := c.Empty[l]; empty {
				f.Code, f.Msg = model.CodeEmptyGroup, fmt.Sprintf("node group %q has no nodes (its node_ranks are empty), so RLinf drops it", l)
			}
			return nil, f
		}
		r.groups = append(r.groups, g)
		r.offset = append(r.offset, r.total)
		r.total += g.total
		if g.HardwareType == "" {
			r.typed = false
		}
	}
	return r, nil
}

// where is a global resource rank located.
type where struct {
	group *Group
	node  int // cluster node rank
	local int // index within the node's block of the group's type
}

// locate finds global resource rank h (0 <= h < total).
func (r *resolver) locate(h int) where {
	gi := sort.SearchInts(r.offset, h+1) - 1
	g := r.groups[gi]
	x := h - r.offset[gi]
	ni := sort.SearchInts(g.prefix, x+1) - 1
	return where{group: g, node: g.Nodes[ni], local: x - g.prefix[ni]}
}

func (r *resolver) labels() []string {
	out := make([]string, len(r.groups))
	for i, g := range r.groups {
		out[i] = g.Label
	}
	return out
}

// Failure is why a strategy cannot place a component; Process is the worker
// index it concerns (-1 for the whole strategy).
type Failure struct {
	Code    string
	Msg     string
	Why     string
	Process int
	Label   string
}

func (f *Failure) Error() string { return f.Msg }

func fail(code string, process int, format string, args ...any) *Failure {
	return &Failure{Code: code, Msg: fmt.Sprintf(format, args...), Process: process}
}
