package model

import (
	"encoding/json"
	"iter"
	"sort"
	"strconv"
)

// Placements are a component's workers in rank order, held compactly: a
// worker is 24 bytes and a few integers instead of a Placement's 150 bytes
// and two slices, so a plan of a million workers stays tens of megabytes.
// A worker is read back whole with At (or All); Node and Len are cheap.
// A value is built once, by appending; a copy shares its storage, so
// append to one value only.
//
// placement_node_rank, local_rank and local_world_size are not stored:
// they follow from the node sequence (a run of consecutive workers on one
// node is one placement node, semantics §4.1), and Placements derives them
// for every strategy alike.
type Placements struct {
	slots []slot
	// ints holds each worker's local hardware ranks, then its visible
	// devices as visMode says, back to back from slot.at.
	ints  []int32
	kinds []placeKind
	// names are visible-device names that are not plain numbers.
	names  []string
	nameIx map[string]int32
	kindIx map[placeKind]int32
	// runs are the index of each run's first worker.
	runs []int32
}

type slot struct {
	rank, node, lacc, at, nhw, kind int32
}

// placeKind is what many workers share: their group, types, isolation and
// how their visible devices are stored.
type placeKind struct {
	label, accel, hw string
	isolate          bool
	vis              visMode
}

type visMode uint8

const (
	visOwn   visMode = iota // the worker's local hardware ranks
	visRange                // "0".."n-1", n stored after the hardware ranks
	visList                 // numbers stored after the hardware ranks
	visNames                // indices into names stored after the hardware ranks
)

// PlacementsOf holds a list of placements; their run fields are ignored
// (Placements derives them).
func PlacementsOf(list []Placement) Placements {
	var ps Placements
	ps.Grow(len(list))
	for i := range list {
		ps.Append(&list[i])
	}
	return ps
}

// Grow makes room for n more workers.
func (ps *Placements) Grow(n int) {
	if cap(ps.slots)-len(ps.slots) < n {
		grown := make([]slot, len(ps.slots), len(ps.slots)+n)
		copy(grown, ps.slots)
		ps.slots = grown
	}
}

// Len is the worker count.
func (ps *Placements) Len() int { return len(ps.slots) }

// Node is worker i's cluster_node_rank.
func (ps *Placements) Node(i int) int { return int(ps.slots[i].node) }

// Label is worker i's node_group_label.
func (ps *Placements) Label(i int) string { return ps.kinds[ps.slots[i].kind].label }

// Append adds p as the next worker.
func (ps *Placements) Append(p *Placement) {
	at := len(ps.ints)
	for _, h := range p.LocalHardwareRanks {
		ps.ints = append(ps.ints, int32(h))
	}
	k := placeKind{label: p.NodeGroupLabel, accel: p.AcceleratorType, hw: p.HardwareType, isolate: p.IsolateAccelerator}
	k.vis = ps.putVisible(p.VisibleAccelerators, p.LocalHardwareRanks)
	i := len(ps.slots)
	ps.slots = append(ps.slots, slot{rank: int32(p.Rank), node: int32(p.ClusterNodeRank), lacc: int32(p.LocalAcceleratorRank),
		at: int32(at), nhw: int32(len(p.LocalHardwareRanks)), kind: ps.kindOf(k)})
	if i == 0 || ps.slots[i-1].node != int32(p.ClusterNodeRank) {
		ps.runs = append(ps.runs, int32(i))
	}
}

// putVisible stores the visible devices after the hardware ranks, in the
// shortest form that gives them back.
func (ps *Placements) putVisible(vis []string, hw []int) visMode {
	if len(vis) == len(hw) && decimals(vis, func(k int) int { return hw[k] }) {
		return visOwn
	}
	if decimals(vis, func(k int) int { return k }) {
		ps.ints = append(ps.ints, int32(len(vis)))
		return visRange
	}
	from := len(ps.ints)
	for _, v := range vis {
		n, err := strconv.Atoi(v)
		if err != nil || strconv.Itoa(n) != v || int(int32(n)) != n {
			ps.ints = ps.ints[:from]
			return ps.putNames(vis)
		}
		ps.ints = append(ps.ints, int32(n))
	}
	return visList
}

func (ps *Placements) putNames(vis []string) visMode {
	if ps.nameIx == nil {
		ps.nameIx = map[string]int32{}
	}
	for _, v := range vis {
		ix, ok := ps.nameIx[v]
		if !ok || int(ix) >= len(ps.names) || ps.names[ix] != v {
			ix = int32(len(ps.names))
			ps.names = append(ps.names, v)
			ps.nameIx[v] = ix
		}
		ps.ints = append(ps.ints, ix)
	}
	return visNames
}

// decimals reports whether vis[k] is the decimal form of want(k) for
// every k, without allocating.
func decimals(vis []string, want func(int) int) bool {
	var buf [20]byte
	for k, v := range vis {
		if string(strconv.AppendInt(buf[:0], int64(want(k)), 10)) != v {
			return false
		}
	}
	return true
}

func (ps *Placements) kindOf(k placeKind) int32 {
	if n := len(ps.kinds); n > 0 && ps.kinds[n-1] == k {
		return int32(n - 1)
	}
	if ix, ok := ps.kindIx[k]; ok && int(ix) < len(ps.kinds) && ps.kinds[ix] == k {
		return ix
	}
	if ps.kindIx == nil {
		ps.kindIx = map[placeKind]int32{}
	}
	ix := int32(len(ps.kinds))
	ps.kinds = append(ps.kinds, k)
	ps.kindIx[k] = ix
	return ix
}

// At is worker i, whole. Its slices are its own.
func (ps *Placements) At(i int) Placement {
	s := &ps.slots[i]
	k := &ps.kinds[s.kind]
	end := int32(len(ps.ints))
	if i+1 < len(ps.slots) {
		end = ps.slots[i+1].at
	}
	hw := ps.ints[s.at : s.at+s.nhw]
	rest := ps.ints[s.at+s.nhw : end]
	p := Placement{Rank: int(s.rank), ClusterNodeRank: int(s.node), LocalAcceleratorRank: int(s.lacc),
		IsolateAccelerator: k.isolate, NodeGroupLabel: k.label, AcceleratorType: k.accel, HardwareType: k.hw}
	p.PlacementNodeRank, p.LocalRank, p.LocalWorldSize = ps.run(i)
	p.LocalHardwareRanks = make([]int, len(hw))
	for j, h := range hw {
		p.LocalHardwareRanks[j] = int(h)
	}
	switch k.vis {
	case visOwn:
		p.VisibleAccelerators = numbers(hw)
	case visRange:
		p.VisibleAccelerators = make([]string, rest[0])
		for j := range p.VisibleAccelerators {
			p.VisibleAccelerators[j] = strconv.Itoa(j)
		}
	case visList:
		p.VisibleAccelerators = numbers(rest)
	case visNames:
		p.VisibleAccelerators = make([]string, len(rest))
		for j, ix := range rest {
			p.VisibleAccelerators[j] = ps.names[ix]
		}
	}
	return p
}

func numbers(xs []int32) []string {
	out := make([]string, len(xs))
	for j, x := range xs {
		out[j] = strconv.Itoa(int(x))
	}
	return out
}

// run is worker i's placement_node_rank, local_rank and local_world_size:
// the index of its run of workers on one node, its place in the run, and
// the run's length.
func (ps *Placements) run(i int) (pnode, local, size int) {
	r := sort.Search(len(ps.runs), func(r int) bool { return int(ps.runs[r]) > i }) - 1
	end := len(ps.slots)
	if r+1 < len(ps.runs) {
		end = int(ps.runs[r+1])
	}
	return r, i - int(ps.runs[r]), end - int(ps.runs[r])
}

// All yields every worker, whole, in rank order.
func (ps *Placements) All() iter.Seq2[int, Placement] {
	return func(yield func(int, Placement) bool) {
		for i := range ps.slots {
			if !yield(i, ps.At(i)) {
				return
			}
		}
	}
}

// Slice is every worker as a list (for small plans and tests).
func (ps *Placements) Slice() []Placement {
	out := make([]Placement, 0, len(ps.slots))
	for _, p := range ps.All() {
		out = append(out, p)
	}
	return out
}

// MarshalJSON writes the workers as a list of placement records.
func (ps Placements) MarshalJSON() ([]byte, error) {
	if ps.slots == nil {
		return []byte("null"), nil
	}
	return json.Marshal(ps.Slice())
}
