// Package topology builds inventories: uniform ones from flags, the assumed
// default, and discovery: this node through NVML (DiscoverNVML), a Slurm
// allocation or partition (DiscoverSlurm), a Ray node-list dump (ImportRay),
// and per-node files combined (Merge); Encode writes any of them as an
// inventory file. Order ranks nodes that carry no explicit rank (D13).
package topology

import (
	"fmt"

	"github.com/rlsolve/rlsolve/model"
)

// DefaultGPUsPerNode is what rlsolve assumes when nothing says otherwise.
const DefaultGPUsPerNode = 8

// Uniform is an inventory of n identical NVIDIA nodes with gpus GPUs each.
func Uniform(n, gpus int, source string) *model.Inventory {
	inv := &model.Inventory{Source: source, Nodes: make([]model.Node, n)}
	for i := range inv.Nodes {
		inv.Nodes[i] = model.Node{Rank: i, AccelType: model.AccelNVGPU, AccelCount: gpus}
	}
	return inv
}

// Choice says where an inventory can come from, in design.md's order of
// precedence: --inventory FILE, the config's inventory: key,
// --gpus-per-node, else nodes assumed. RLinf's configs, slime's flags and
// suggest choose with it.
type Choice struct {
	File        *model.Inventory // --inventory FILE
	InConfig    *model.Inventory // a top-level inventory: key in the config
	GPUsPerNode int              // --gpus-per-node N; <0 when not given
	// Nodes is how many nodes a uniform inventory of per GPUs each has:
	// the config's num_nodes, or as many as the GPUs it needs.
	Nodes func(per int) int
	// Assume is the GPUs per node assumed when nothing says; From, when
	// set, says where that number comes from ("--num-gpus-per-node").
	Assume int
	From   string
}

// Choose picks the inventory. The note is non-empty when rlsolve had to
// assume one.
func Choose(c Choice) (*model.Inventory, string) {
	switch {
	case c.File != nil:
		return c.File, ""
	case c.InConfig != nil:
		return c.InConfig, ""
	case c.GPUsPerNode >= 0:
		return Uniform(c.Nodes(c.GPUsPerNode), c.GPUsPerNode, fmt.Sprintf("--gpus-per-node %d", c.GPUsPerNode)), ""
	}
	inv := Uniform(c.Nodes(c.Assume), c.Assume, "assumed")
	inv.Assumed = true
	from := ""
	if c.From != "" {
		from = ", from " + c.From
	}
	return inv, fmt.Sprintf("no inventory given: assuming %d node(s) with %d NVIDIA GPUs each%s (pass --inventory FILE or --gpus-per-node N)", len(inv.Nodes), c.Assume, from)
}

// NumNodes is a Choice's Nodes for a config that says how many nodes it
// has.
func NumNodes(n int) func(int) int { return func(int) int { return n } }
