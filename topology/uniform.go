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

// Choice says which inventory to use, in design.md's order of precedence.
type Choice struct {
	File        *model.Inventory // --inventory FILE
	InConfig    *model.Inventory // a top-level inventory: key in the config
	GPUsPerNode int              // --gpus-per-node N; <0 when not given
}

// Choose picks the inventory for a config with numNodes nodes. The note
// is non-empty when rlsolve had to assume one.
func Choose(c Choice, numNodes int) (*model.Inventory, string) {
	switch {
	case c.File != nil:
		return c.File, ""
	case c.InConfig != nil:
		return c.InConfig, ""
	case c.GPUsPerNode >= 0:
		return Uniform(numNodes, c.GPUsPerNode, fmt.Sprintf("--gpus-per-node %d", c.GPUsPerNode)), ""
	}
	inv := Uniform(numNodes, DefaultGPUsPerNode, "assumed")
	inv.Assumed = true
	return inv, fmt.Sprintf("no inventory given: assuming %d node(s) with %d NVIDIA GPUs each (pass --inventory FILE or --gpus-per-node N)", numNodes, DefaultGPUsPerNode)
}
