package model

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strconv"
	"testing"
)

// withRuns is list with placement_node_rank, local_rank and
// local_world_size filled from its node sequence, as RLinf fills them.
func withRuns(list []Placement) []Placement {
	out := append([]Placement(nil), list...)
	pnode, start := 0, 0
	for i := 1; i <= len(out); i++ {
		if i < len(out) && out[i].ClusterNodeRank == out[start].ClusterNodeRank {
			continue
		}
		for j := start; j < i; j++ {
			out[j].PlacementNodeRank, out[j].LocalRank, out[j].LocalWorldSize = pnode, j-start, i-start
		}
		pnode++
		start = i
	}
	return out
}

func TestPlacementsRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		list []Placement
	}{
		{"empty", nil},
		{"isolated GPUs (visible = own ranks)", []Placement{
			{Rank: 0, ClusterNodeRank: 0, LocalAcceleratorRank: 0, VisibleAccelerators: []string{"0"}, IsolateAccelerator: true, LocalHardwareRanks: []int{0}, NodeGroupLabel: "cluster", AcceleratorType: "NV_GPU", HardwareType: HardwareAccelerator},
			{Rank: 1, ClusterNodeRank: 0, LocalAcceleratorRank: 2, VisibleAccelerators: []string{"2", "3"}, IsolateAccelerator: true, LocalHardwareRanks: []int{2, 3}, NodeGroupLabel: "cluster", AcceleratorType: "NV_GPU", HardwareType: HardwareAccelerator},
			{Rank: 2, ClusterNodeRank: 1, LocalAcceleratorRank: 0, VisibleAccelerators: []string{"0"}, IsolateAccelerator: true, LocalHardwareRanks: []int{0}, NodeGroupLabel: "cluster", AcceleratorType: "NV_GPU", HardwareType: HardwareAccelerator},
		}},
		{"node workers (visible = the node's devices, no hardware)", []Placement{
			{Rank: 0, ClusterNodeRank: 3, LocalAcceleratorRank: 0, VisibleAccelerators: []string{"0", "1", "2", "3"}, LocalHardwareRanks: []int{}, NodeGroupLabel: "node", AcceleratorType: "NV_GPU"},
			{Rank: 1, ClusterNodeRank: 4, LocalAcceleratorRank: -1, VisibleAccelerators: []string{}, LocalHardwareRanks: []int{}, NodeGroupLabel: "node", AcceleratorType: ""},
		}},
		{"robots and listed devices (slime's GPU ids)", []Placement{
			{Rank: 0, ClusterNodeRank: 2, LocalAcceleratorRank: -1, VisibleAccelerators: []string{"4", "6"}, LocalHardwareRanks: []int{1}, NodeGroupLabel: "franka", HardwareType: "Franka"},
			{Rank: 5, ClusterNodeRank: 2, LocalAcceleratorRank: 1, VisibleAccelerators: []string{"GPU-a", "07"}, LocalHardwareRanks: []int{1, 0}, NodeGroupLabel: "franka", HardwareType: "Franka"},
			{Rank: 6, ClusterNodeRank: 1, LocalAcceleratorRank: 1, VisibleAccelerators: []string{"GPU-a"}, LocalHardwareRanks: []int{1}, NodeGroupLabel: "a800", AcceleratorType: "NV_GPU", HardwareType: HardwareAccelerator},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := PlacementsOf(tc.list)
			if ps.Len() != len(tc.list) {
				t.Fatalf("Len %d, want %d", ps.Len(), len(tc.list))
			}
			want := withRuns(tc.list)
			got := ps.Slice()
			if len(want) == 0 {
				want = []Placement{}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
			}
			for i := range want {
				if ps.Node(i) != want[i].ClusterNodeRank || ps.Label(i) != want[i].NodeGroupLabel {
					t.Errorf("worker %d: Node %d Label %q, want %d %q", i, ps.Node(i), ps.Label(i), want[i].ClusterNodeRank, want[i].NodeGroupLabel)
				}
			}
			gotJSON, err := json.Marshal(ps)
			if err != nil {
				t.Fatal(err)
			}
			wantJSON, _ := json.Marshal(want)
			if tc.list == nil {
				wantJSON = []byte("null")
			}
			if string(gotJSON) != string(wantJSON) {
				t.Errorf("JSON %s, want %s", gotJSON, wantJSON)
			}
		})
	}
}

// TestPlacementsRandom: any list of placements comes back as it went in,
// with the run fields derived from the node sequence.
func TestPlacementsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for c := 0; c < 300; c++ {
		n := rng.IntN(40)
		list := make([]Placement, n)
		node := 0
		for i := range list {
			node += rng.IntN(3) - 1 // runs, and sometimes a lower node
			hw := make([]int, rng.IntN(4))
			for k := range hw {
				hw[k] = rng.IntN(16)
			}
			var vis []string
			switch rng.IntN(4) {
			case 0:
				vis = make([]string, len(hw))
				for k, h := range hw {
					vis[k] = strconv.Itoa(h)
				}
			case 1:
				vis = make([]string, rng.IntN(9))
				for k := range vis {
					vis[k] = strconv.Itoa(k)
				}
			case 2:
				vis = []string{strconv.Itoa(rng.IntN(100)), "1"}
			default:
				vis = []string{"GPU-" + strconv.Itoa(rng.IntN(3)), "-1", "+2"}
			}
			list[i] = Placement{Rank: i, ClusterNodeRank: node, LocalAcceleratorRank: rng.IntN(8) - 1, VisibleAccelerators: vis,
				IsolateAccelerator: rng.IntN(2) == 0, LocalHardwareRanks: hw, NodeGroupLabel: []string{"a", "b"}[rng.IntN(2)],
				AcceleratorType: []string{"NV_GPU", ""}[rng.IntN(2)], HardwareType: []string{HardwareAccelerator, "Franka", ""}[rng.IntN(3)]}
		}
		ps := PlacementsOf(list)
		want := withRuns(list)
		if got := ps.Slice(); !reflect.DeepEqual(got, want) && n > 0 {
			t.Fatalf("case %d:\n got %+v\nwant %+v", c, got, want)
		}
	}
}

// TestPlacementsCompact guards the point of the type: a plan of a million
// workers must not cost a Placement's 150 bytes and two slices per worker.
func TestPlacementsCompact(t *testing.T) {
	const n = 1 << 17
	p := Placement{ClusterNodeRank: 0, VisibleAccelerators: []string{"0", "1"}, IsolateAccelerator: true, LocalHardwareRanks: []int{0, 1},
		NodeGroupLabel: "cluster", AcceleratorType: "NV_GPU", HardwareType: HardwareAccelerator}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var ps Placements
	ps.Grow(n)
	for i := range n {
		p.Rank, p.ClusterNodeRank = i, i/8
		p.LocalHardwareRanks[0], p.LocalHardwareRanks[1] = i%8, i%8+1
		p.VisibleAccelerators[0], p.VisibleAccelerators[1] = strconv.Itoa(i%8), strconv.Itoa(i%8+1)
		ps.Append(&p)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perWorker := float64(after.HeapAlloc-before.HeapAlloc) / n
	t.Logf("%.1f bytes a worker", perWorker)
	if perWorker > 48 {
		t.Errorf("%.1f bytes a worker held, want at most 48", perWorker)
	}
	if q := ps.At(n - 1); q.Rank != n-1 || q.LocalRank != 7 || q.LocalWorldSize != 8 || q.PlacementNodeRank != n/8-1 {
		t.Errorf("last worker %+v", q)
	}
	runtime.KeepAlive(&ps)
}

// TestPlacementsCopy: appending to a copy must not make the original
// misread its own workers (the interning maps are shared by copies).
func TestPlacementsCopy(t *testing.T) {
	a := Placement{VisibleAccelerators: []string{"GPU-a"}, LocalHardwareRanks: []int{0}, NodeGroupLabel: "a"}
	b := Placement{Rank: 1, VisibleAccelerators: []string{"GPU-b"}, LocalHardwareRanks: []int{0}, NodeGroupLabel: "b"}
	c := Placement{Rank: 1, VisibleAccelerators: []string{"GPU-c"}, LocalHardwareRanks: []int{0}, NodeGroupLabel: "c"}
	orig := PlacementsOf([]Placement{a})
	cp := orig
	cp.Append(&b)
	orig.Append(&c)
	if got := orig.At(1); got.NodeGroupLabel != "c" || got.VisibleAccelerators[0] != "GPU-c" {
		t.Errorf("the original's second worker reads %+v", got)
	}
}
