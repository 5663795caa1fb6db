package solver

import (
	"fmt"
	"math/bits"

	"github.com/rlsolve/rlsolve/rules"
)

// MaxInstance bounds the SAT instance solve builds, in variables plus
// clauses (each about 100 bytes once gini and the circuit hold it): 30
// million is about 3 GB. A larger instance is refused before any of it is
// allocated, with the estimate, rather than crash out of memory.
const MaxInstance = 30_000_000

// Per-device costs of the encoding, measured on bench/scale.sh's cases
// (TestEstimateBoundsInstance keeps them honest): a device literal, its
// block's popcount tree, run and unit gates (three clauses per gate); a
// clause per pair of roots that may share a device; keep's prefix sum,
// offset and comparison per block and bit of a count of devices, and its
// test and sum per worker (place_keep_blocks.go).
const (
	costPerDevice       = 100
	costPerKeepBlockBit = 30
	costPerKeepWorker   = 20
)

// The node encoding's costs, measured the same way: a unit literal, its
// order clause and its share of the count circuit; a root's block (its
// count's bits, their share of the total's adder tree, the range's
// ladder); a root on a block others share, per pair of a sum so far and
// one of its unit counts (the totalizer's merges: about 90 on a node of
// 8 devices, quadratic in a node's devices).
const (
	costPerStep      = 20
	costPerBlock     = 60
	costPerMergePair = 1
)

// SizeError is a space whose instance would exceed MaxInstance.
type SizeError struct {
	Estimate, Limit int
	// Devices is the device literals the estimate counts, Pairs the
	// devices two components may both take; by nodes (Encoding "node"),
	// the unit literals and the nodes' shares between components.
	Devices, Pairs int
	Encoding       string
}

func (e *SizeError) Error() string {
	if e.Encoding == byNode.String() {
		return fmt.Sprintf("the placing instance would have about %d variables and clauses (%d unit choices on nodes, %d shares of nodes between components), over the limit of %d",
			e.Estimate, e.Devices, e.Pairs, e.Limit)
	}
	return fmt.Sprintf("the placing instance would have about %d variables and clauses (%d device choices, %d shared by two components), over the limit of %d",
		e.Estimate, e.Devices, e.Pairs, e.Limit)
}

// estimate is the size of newInstanceBy(sp, explain, enc) (with the keep
// objective's counters for workers previous workers: every root's blocks
// counted, as any may hold one), from the blocks alone: no literal is
// made. For the node encoding, devices counts the unit choices.
func estimate(sp *rules.Space, enc encoding, explain bool, workers int) (size, devices, pairs int) {
	if enc == byNode {
		size, devices, pairs = estimateNodes(sp)
		return size + estimateKeepNodes(sp, workers), devices, pairs
	}
	type where struct {
		node int
		typ  string
	}
	takers := map[where]int{}
	blocks := 0
	perNode := map[where]int{}
	for i, d := range sp.Demands {
		if sp.Root(i) != i || d.With >= 0 || d.WithPlaced >= 0 {
			continue
		}
		seen := map[where]bool{}
		add := func(b rules.Block, inGroup bool) {
			key := where{b.Node, b.Type}
			if seen[key] && !inGroup {
				return
			}
			if !seen[key] && d.Type != "" {
				takers[key]++
			}
			seen[key] = true
			blocks++
			devices += b.Cap
			perNode[key] = max(perNode[key], b.Local0+b.Cap)
		}
		for _, b := range d.Blocks {
			add(b, true)
		}
		if explain && d.GroupFact >= 0 {
			for _, b := range sp.TypeBlocks[d.Type] {
				add(b, false)
			}
		}
	}
	for key, k := range takers {
		pairs += k * (k - 1) / 2 * perNode[key]
	}
	factsPerPair := 1
	if explain {
		factsPerPair = 3 // own devices twice, and apart_from
	}
	size = costPerDevice*devices + factsPerPair*pairs
	if workers > 0 {
		size += costPerKeepBlockBit*bits.Len(uint(devices))*blocks + costPerKeepWorker*workers
	}
	return size, devices, pairs
}

// estimateNodes is the size of the node encoding's instance: per root
// and block it may take, the unit literals and their count circuit; per
// block several typed roots share, their sum and its bound. steps counts
// the unit literals, shares the roots' blocks others share. The capacity
// sums and the count totals are counted although solve adds them only for
// the nodes a model overfills and the counts it breaks (node_capacity.go):
// the estimate bounds the instance every rule would make, the most the
// search can build.
func estimateNodes(sp *rules.Space) (size, steps, shares int) {
	type shared struct{ roots, pairs int }
	sharers := map[blockKey]shared{}
	probe := &instance{sp: sp}
	for i, d := range sp.Demands {
		if !ownsDevices(sp, i) {
			continue
		}
		v := &demandVars{d: d, idx: i}
		v.unit, _, _ = probe.want(i, v, all)
		for _, b := range d.Blocks {
			if !blockOpen(sp, i, b) {
				continue
			}
			v.blocks = append(v.blocks, b)
			k := b.Cap / v.step(len(v.blocks)-1)
			steps += k
			size += costPerStep*k + costPerBlock
			if b.Type != "" {
				s := sharers[blockKey{b.Node, b.Type}]
				sharers[blockKey{b.Node, b.Type}] = shared{s.roots + 1, s.pairs + (b.Cap+2)*(k+1)}
			}
		}
	}
	for _, s := range sharers {
		if s.roots > 1 {
			size += costPerMergePair * s.pairs
			shares += s.roots
		}
	}
	return size, steps, shares
}

// checkSize refuses a space whose instance in the encoding enc would
// exceed MaxInstance.
func checkSize(sp *rules.Space, enc encoding, explain bool, prev map[string][]Worker) error {
	workers := 0
	for _, ws := range prev {
		workers += len(ws)
	}
	size, devices, pairs := estimate(sp, enc, explain, workers)
	if size > MaxInstance {
		return &SizeError{Estimate: size, Limit: MaxInstance, Devices: devices, Pairs: pairs, Encoding: enc.String()}
	}
	return nil
}
