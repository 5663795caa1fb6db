package rules

import (
	"slices"

	"github.com/rlsolve/rlsolve/model"
)

// NVLink islands in placing: a process or TP group that spans several
// GPUs belongs inside one island, where the inventory knows the islands
// (each GPU's NVLink peers). Each node's block is split into one block per
// island, so that a demand's runs, which are whole units per block, never
// cross an island. Islands that are not runs of local indices are left to
// check's warning (RLS-W0601).

// splitIslands splits accelerator blocks at the islands of their nodes.
func (s *Space) splitIslands(bs []Block) []Block {
	var out []Block
	for _, b := range bs {
		isl := islands(&s.view.Nodes[b.Node])
		if b.Type != model.HardwareAccelerator || len(isl) < 2 {
			out = append(out, b)
			continue
		}
		for _, r := range isl {
			out = append(out, Block{Node: b.Node, Type: b.Type, First: b.First + r[0], Cap: r[1] - r[0], Local0: r[0], Group: b.Group})
		}
	}
	return out
}

// islands are a node's NVLink islands as runs [start, end) of local
// indices; nil when the inventory does not say, or they are not runs.
func islands(n *model.Node) [][2]int {
	if len(n.Devices) != n.AccelCount || n.AccelCount == 0 {
		return nil
	}
	peers := make([][]int, n.AccelCount) // by device index
	for _, d := range n.Devices {
		if !d.NVLinkKnown || d.Index < 0 || d.Index >= n.AccelCount || peers[d.Index] != nil {
			return nil
		}
		peers[d.Index] = append([]int{}, d.NVLinkPeers...)
	}
	island := make([]int, n.AccelCount) // island id per device, -1 unknown
	for i := range island {
		island[i] = -1
	}
	next := 0
	for i := range island {
		if island[i] < 0 {
			mark(peers, island, i, next)
			next++
		}
	}
	var out [][2]int
	for start := 0; start < len(island); {
		end := start + 1
		for end < len(island) && island[end] == island[start] {
			end++
		}
		if slices.ContainsFunc(out, func(r [2]int) bool { return island[r[0]] == island[start] }) {
			return nil // an island in two pieces
		}
		out = append(out, [2]int{start, end})
		start = end
	}
	return out
}

// mark gives device i's island (its NVLink peers, transitively) the id.
func mark(peers [][]int, island []int, i, id int) {
	stack := []int{i}
	island[i] = id
	for len(stack) > 0 {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range peers[d] {
			if p >= 0 && p < len(island) && island[p] < 0 {
				island[p] = id
				stack = append(stack, p)
			}
		}
	}
}
