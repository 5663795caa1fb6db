package suggest

import (
	"fmt"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/topology"
)

// MaxGPUs bounds N: the search is quadratic in it.
const MaxGPUs = 8192

// Cluster is the GPUs a placement is planned for: GPU ranks 0..GPUs-1 laid
// over nodes in rank order, as RLinf's default `cluster` group numbers them.
type Cluster struct {
	GPUs int
	// Inventory is the nodes used (a prefix of the given inventory), the
	// one every suggestion is checked against.
	Inventory *model.Inventory
	// All is true when the GPUs are every GPU of those nodes, so that a
	// placement can say `all`.
	All bool

	node        []int // node (index among nodes with GPUs) of each GPU rank
	first, last []int // first and last GPU rank of each such node
	reach       map[reachKey][]int
}

type reachKey struct {
	unit   int
	strict bool
}

// UniformCluster is gpus GPUs on nodes of perNode GPUs each.
func UniformCluster(gpus, perNode int) (*Cluster, error) {
	if err := wholeNodes(gpus, perNode); err != nil {
		return nil, err
	}
	inv := topology.Uniform(gpus/perNode, perNode, fmt.Sprintf("--gpus-per-node %d", perNode))
	return NewCluster(inv, gpus)
}

// wholeNodes says whether gpus GPUs make whole nodes of perNode GPUs.
func wholeNodes(gpus, perNode int) error {
	if perNode < 1 {
		return fmt.Errorf("--gpus-per-node must be at least 1 to place GPUs")
	}
	if gpus%perNode != 0 {
		return fmt.Errorf("%d GPUs are not whole nodes of %d GPUs: pass a multiple of %d, --gpus-per-node K, or --inventory FILE for nodes of different sizes", gpus, perNode, perNode)
	}
	return nil
}

// ChooseCluster decides the GPUs to plan for and their nodes from the
// config (spec), --inventory's inventory (file), --gpus (0: all of the
// inventory, or num_nodes x GPUs per node) and --gpus-per-node (<0: not
// given). The inventory is chosen as check chooses it (topology.Choose),
// except that --gpus-per-node, describing the cluster to plan for, comes
// before the config's inventory: key. The notes say what was assumed.
func ChooseCluster(spec *Spec, file *model.Inventory, gpus, perNode int) (*Cluster, []string, error) {
	inConfig := spec.Inventory
	if perNode >= 0 {
		inConfig = nil
	}
	given := file != nil || inConfig != nil
	nodes, assume := topology.NumNodes(spec.NumNodes), topology.DefaultGPUsPerNode
	switch {
	case given:
	case gpus == 0 && spec.NumNodes == 0:
		return nil, nil, fmt.Errorf("say how many GPUs to plan for: --gpus N (or --inventory FILE)")
	case gpus > 0:
		assume = min(gpus, assume)
		per := perNode
		if per < 0 {
			per = assume
		}
		if err := wholeNodes(gpus, per); err != nil {
			return nil, nil, err
		}
		nodes = func(per int) int { return gpus / per }
	case perNode == 0:
		return nil, nil, wholeNodes(0, 0)
	}
	inv, note := topology.Choose(topology.Choice{File: file, InConfig: inConfig, GPUsPerNode: perNode, Nodes: nodes, Assume: assume})
	var notes []string
	if note != "" {
		notes = append(notes, note)
	}
	if !given && gpus == 0 {
		per := inv.Nodes[0].AccelCount
		notes = append(notes, fmt.Sprintf("planning for cluster.num_nodes %d x %d GPUs = %d GPUs (pass --gpus N to change)", spec.NumNodes, per, spec.NumNodes*per))
	}
	cl, err := NewCluster(inv, gpus)
	if err != nil {
		return nil, nil, err
	}
	return cl, notes, nil
}

// NewCluster plans for the first gpus GPUs of inv (0: all of them), on the
// fewest leading nodes that hold them.
func NewCluster(inv *model.Inventory, gpus int) (*Cluster, error) {
	total := 0
	for _, n := range inv.Nodes {
		total += n.AccelCount
	}
	if gpus == 0 {
		gpus = total
	}
	switch {
	case gpus < 1:
		return nil, fmt.Errorf("the inventory has no GPUs to place on")
	case gpus > MaxGPUs:
		return nil, fmt.Errorf("suggest plans for at most %d GPUs, not %d", MaxGPUs, gpus)
	case gpus > total:
		return nil, fmt.Errorf("the inventory has %d GPUs, fewer than the %d asked for", total, gpus)
	}
	c := &Cluster{GPUs: gpus, reach: map[reachKey][]int{}}
	used, have := 0, 0
	for have < gpus {
		n := inv.Nodes[used].AccelCount
		if n > 0 {
			take := min(n, gpus-have)
			idx := len(c.first)
			c.first = append(c.first, have)
			c.last = append(c.last, have+take-1)
			for i := 0; i < take; i++ {
				c.node = append(c.node, idx)
			}
			have += take
			c.All = take == n
		}
		used++
	}
	sub := *inv
	sub.Nodes = append([]model.Node(nil), inv.Nodes[:used]...)
	c.Inventory = &sub
	return c, nil
}

// NumNodes is the node count of the generated configs.
func (c *Cluster) NumNodes() int { return len(c.Inventory.Nodes) }

// NodeSizes are the GPU counts of the nodes with GPUs, in order.
func (c *Cluster) NodeSizes() []int {
	out := make([]int, len(c.first))
	for i := range out {
		out[i] = c.last[i] - c.first[i] + 1
	}
	return out
}

// groupOK says whether the unit-sized group starting at GPU a stays on one
// node; a non-strict group (a model-parallel group of single-GPU
// processes) may instead cover whole nodes exactly.
func (c *Cluster) groupOK(a, unit int, strict bool) bool {
	b := a + unit - 1
	if a < 0 || b >= c.GPUs {
		return false
	}
	na, nb := c.node[a], c.node[b]
	return na == nb || !strict && a == c.first[na] && b == c.last[nb]
}

// reachOf returns, for each start s, how many GPUs from s are covered by
// consecutive unit-sized groups that each pass groupOK.
func (c *Cluster) reachOf(unit int, strict bool) []int {
	k := reachKey{unit, strict}
	if r, ok := c.reach[k]; ok {
		return r
	}
	r := make([]int, c.GPUs+1)
	for s := c.GPUs - unit; s >= 0; s-- {
		if c.groupOK(s, unit, strict) {
			r[s] = unit + r[s+unit]
		}
	}
	c.reach[k] = r
	return r
}

// fits says whether GPUs [start, start+g) split into unit-sized groups
// that each pass groupOK.
func (c *Cluster) fits(start, g, unit int, strict bool) bool {
	if unit <= 1 {
		return g >= 1 && start >= 0 && start+g <= c.GPUs
	}
	return g%unit == 0 && start >= 0 && start+g <= c.GPUs && c.reachOf(unit, strict)[start] >= g
}

// rangeText is the placement text of GPUs [first, first+g).
func (c *Cluster) rangeText(first, g int) string {
	if first == 0 && g == c.GPUs && c.All {
		return "all"
	}
	if g == 1 {
		return fmt.Sprint(first)
	}
	return fmt.Sprintf("%d-%d", first, first+g-1)
}
