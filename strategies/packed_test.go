package strategies_test

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/strategies"
)

// §4.2 P-a: a packed range crossing a node boundary.
func TestPackedPa_CrossesNodes(t *testing.T) {
	c := strategies.NewCluster(nodes(4, 4), nil)
	ps := mustPlace(t)(strategies.Packed{Start: 2, End: 5}.Place(c, true))
	checkPlacements(t, ps, []pw{
		{node: 0, pnode: 0, lacc: 2, lrank: 0, lws: 2, vis: "2", lhw: []int{2}, label: "cluster", accel: "NV_GPU"},
		{node: 0, pnode: 0, lacc: 3, lrank: 1, lws: 2, vis: "3", lhw: []int{3}, label: "cluster", accel: "NV_GPU"},
		{node: 1, pnode: 1, lacc: 0, lrank: 0, lws: 2, vis: "0", lhw: []int{0}, label: "cluster", accel: "NV_GPU"},
		{node: 1, pnode: 1, lacc: 1, lrank: 1, lws: 2, vis: "1", lhw: []int{1}, label: "cluster", accel: "NV_GPU"},
	})
	for _, p := range ps {
		if !p.IsolateAccelerator {
			t.Errorf("rank %d: isolate should be true", p.Rank)
		}
	}
}

// §4.2 P-b: two GPUs per process with stride 4 on 2 nodes x 8.
func TestPackedPb_Stride4(t *testing.T) {
	c := strategies.NewCluster(nodes(8, 8), nil)
	ps := mustPlace(t)(strategies.Packed{Start: 0, End: 15, HardwarePerProcess: 2, Stride: 4}.Place(c, true))
	var want []pw
	for n := 0; n < 2; n++ {
		for i := 0; i < 4; i++ {
			want = append(want, pw{node: n, pnode: n, lacc: i, lrank: i, lws: 4,
				vis: []string{"0,4", "1,5", "2,6", "3,7"}[i], lhw: []int{i, i + 4}})
		}
	}
	checkPlacements(t, ps, want)
}

// §4.2 P-c: stride interleaving on one node (and stride that only matters
// through divisibility).
func TestPackedPc_StrideLayouts(t *testing.T) {
	c := strategies.NewCluster(nodes(8), nil)
	for _, tc := range []struct {
		name                     string
		start, end, nhpp, stride int
		want                     []string
	}{
		{"0-7 nhpp2 stride2", 0, 7, 2, 2, []string{"0,2", "1,3", "4,6", "5,7"}},
		{"0-5 nhpp3 stride2", 0, 5, 3, 2, []string{"0,2,4", "1,3,5"}},
		{"0-3 nhpp1 stride2", 0, 3, 1, 2, []string{"0", "1", "2", "3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := mustPlace(t)(strategies.Packed{Start: tc.start, End: tc.end, HardwarePerProcess: tc.nhpp, Stride: tc.stride}.Place(c, true))
			if got := visible(ps); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("visible %v, want %v", got, tc.want)
			}
		})
	}
}

// §4.2 P-d: uneven nodes; a node without GPUs is skipped and does not
// count as a placement node.
func TestPackedPd_UnevenNodes(t *testing.T) {
	c := strategies.NewCluster(nodes(2, 4, 0, 2), nil)
	t.Run("1-4", func(t *testing.T) {
		ps := mustPlace(t)(strategies.Packed{Start: 1, End: 4}.Place(c, true))
		checkPlacements(t, ps, []pw{
			{node: 0, pnode: 0, lacc: 1, lrank: 0, lws: 1, vis: "1", lhw: []int{1}},
			{node: 1, pnode: 1, lacc: 0, lrank: 0, lws: 3, vis: "0", lhw: []int{0}},
			{node: 1, pnode: 1, lacc: 1, lrank: 1, lws: 3, vis: "1", lhw: []int{1}},
			{node: 1, pnode: 1, lacc: 2, lrank: 2, lws: 3, vis: "2", lhw: []int{2}},
		})
	})
	t.Run("0-7", func(t *testing.T) {
		ps := mustPlace(t)(strategies.Packed{Start: 0, End: 7}.Place(c, true))
		var want []pw
		for i := 0; i < 2; i++ {
			want = append(want, pw{node: 0, pnode: 0, lacc: i, lrank: i, lws: 2, vis: itoa(i), lhw: []int{i}})
		}
		for i := 0; i < 4; i++ {
			want = append(want, pw{node: 1, pnode: 1, lacc: i, lrank: i, lws: 4, vis: itoa(i), lhw: []int{i}})
		}
		for i := 0; i < 2; i++ {
			want = append(want, pw{node: 3, pnode: 2, lacc: i, lrank: i, lws: 2, vis: itoa(i), lhw: []int{i}})
		}
		checkPlacements(t, ps, want)
	})
}

// §4.2 P-e: without isolation every worker sees the node's GPUs and
// local_accelerator_rank is 0 for all.
func TestPackedPe_NoIsolation(t *testing.T) {
	c := strategies.NewCluster(nodes(4, 4), nil)
	ps := mustPlace(t)(strategies.Packed{Start: 0, End: 7}.Place(c, false))
	var want []pw
	for i := 0; i < 8; i++ {
		want = append(want, pw{node: i / 4, pnode: i / 4, lacc: 0, lrank: i % 4, lws: 4, vis: "0,1,2,3", lhw: []int{i % 4}})
	}
	checkPlacements(t, ps, want)
	for _, p := range ps {
		if p.IsolateAccelerator {
			t.Errorf("rank %d: isolate should be false", p.Rank)
		}
	}
}

// heteroPf is P-f's cluster: gpu = node0 (2 GPUs); franka = node1 (0 GPU,
// 2 Franka) and node2 (1 GPU, 1 Franka).
func heteroPf(t *testing.T) *strategies.Cluster {
	inv := withRobots(withRobots(nodes(2, 0, 1), 1, "Franka", 2), 2, "Franka", 1)
	return groupsCluster(t, inv, `    - label: gpu
      node_ranks: 0
    - label: franka
      node_ranks: 1-2
      hardware_type: Franka
`)
}

// §4.2 P-f: Packed across two groups of different hardware types.
func TestPackedPf_SeveralGroups(t *testing.T) {
	c := heteroPf(t)
	ps := mustPlace(t)(strategies.Packed{Start: 0, End: 4, NodeGroups: []string{"gpu", "franka"}}.Place(c, true))
	checkPlacements(t, ps, []pw{
		{node: 0, pnode: 0, lacc: 0, lrank: 0, lws: 2, vis: "0", lhw: []int{0}, label: "gpu", accel: "NV_GPU"},
		{node: 0, pnode: 0, lacc: 1, lrank: 1, lws: 2, vis: "1", lhw: []int{1}, label: "gpu", accel: "NV_GPU"},
		{node: 1, pnode: 1, lacc: -1, lrank: 0, lws: 2, vis: "", lhw: []int{0}, label: "franka", accel: "NO_ACCEL"},
		{node: 1, pnode: 1, lacc: -1, lrank: 1, lws: 2, vis: "", lhw: []int{1}, label: "franka", accel: "NO_ACCEL"},
		{node: 2, pnode: 2, lacc: 0, lrank: 0, lws: 1, vis: "0", lhw: []int{0}, label: "franka", accel: "NV_GPU"},
	})
}

// §4.2 P-f error: a process whose two devices are a GPU and a Franka. RLinf
// reports the type mix; the process also crosses from node 0 to node 1, so
// rlsolve may report either.
func TestPackedPf_MixedTypesAcrossNodes(t *testing.T) {
	c := heteroPf(t)
	ps, f := strategies.Packed{Start: 1, End: 2, HardwarePerProcess: 2, NodeGroups: []string{"gpu", "franka"}}.Place(c, true)
	if f == nil {
		t.Fatalf("want failure, got %+v", ps)
	}
	if !strings.Contains(f.Msg, "mix") && !strings.Contains(f.Msg, "span") {
		t.Errorf("failure %q, want mixed hardware or spanning nodes", f.Msg)
	}
}

// A Packed process mixing a GPU and a robot on the same node must be a
// type-mix error (RLinf: "Hardware assigned to Rank 1 is not of the same
// type"), not a node-span error: the process stays on one node.
func TestPackedMixedTypesSameNode(t *testing.T) {
	c := heteroNode0(t)
	ps, f := strategies.Packed{Start: 0, End: 1, HardwarePerProcess: 2, NodeGroups: []string{"gpu", "franka"}}.Place(c, true)
	wantFailure(t, ps, f, model.CodeMixedHardware, 0)
}

// heteroNode0 is §7's TestHeteroMultiNodeGroupPlacement node: one node with
// one GPU and one Franka, in groups gpu and franka.
func heteroNode0(t *testing.T) *strategies.Cluster {
	inv := withRobots(nodes(1), 0, "Franka", 1)
	return groupsCluster(t, inv, `    - label: gpu
      node_ranks: 0
    - label: franka
      node_ranks: 0
      hardware_type: Franka
`)
}

// §4.2: groups given as ["b","a"] with b = node 1 number node 1 first;
// Packed has no "sorted by node" check.
func TestPackedGroupOrderDescending(t *testing.T) {
	c := groupsCluster(t, nodes(2, 2), `    - label: a
      node_ranks: 0
    - label: b
      node_ranks: 1
`)
	ps := mustPlace(t)(strategies.Packed{Start: 0, End: 3, NodeGroups: []string{"b", "a"}}.Place(c, true))
	checkPlacements(t, ps, []pw{
		{node: 1, pnode: 0, lacc: 0, lrank: 0, lws: 2, vis: "0", lhw: []int{0}, label: "b"},
		{node: 1, pnode: 0, lacc: 1, lrank: 1, lws: 2, vis: "1", lhw: []int{1}, label: "b"},
		{node: 0, pnode: 1, lacc: 0, lrank: 0, lws: 2, vis: "0", lhw: []int{0}, label: "a"},
		{node: 0, pnode: 1, lacc: 1, lrank: 1, lws: 2, vis: "1", lhw: []int{1}, label: "a"},
	})
}

// §4.2 E1-E4 and D1: processes that would run past their node are refused
// (RLinf accepts E1 and E2's first process through its off-by-one check).
func TestPackedRefusals(t *testing.T) {
	for _, tc := range []struct {
		name    string
		inv     *model.Inventory
		p       strategies.Packed
		code    string
		process int
	}{
		{"E1 3-6 nhpp2 (rank 0 would get GPUs 3,4 of node 0)", nodes(4, 4), strategies.Packed{Start: 3, End: 6, HardwarePerProcess: 2}, model.CodeSpansNodes, 0},
		{"E1 1-6 nhpp2 (rank 1 would get GPUs 3,4 of node 0)", nodes(4, 4), strategies.Packed{Start: 1, End: 6, HardwarePerProcess: 2}, model.CodeSpansNodes, 1},
		{"E2 0-7 nhpp2 stride4 (rank 0 would get 0,4)", nodes(4, 4), strategies.Packed{Start: 0, End: 7, HardwarePerProcess: 2, Stride: 4}, model.CodeSpansNodes, 0},
		{"E3 2-9 nhpp4 on 2x8 (rank 1 starts at 6)", nodes(8, 8), strategies.Packed{Start: 2, End: 9, HardwarePerProcess: 4}, model.CodeSpansNodes, 1},
		{"E4 0-8 on 2x4", nodes(4, 4), strategies.Packed{Start: 0, End: 8}, "hardware range", -1},
		{"E4 CPU-only 0-1", nodes(0, 0), strategies.Packed{Start: 0, End: 1}, model.CodeNeedsHardware, -1},
		{"E4 CPU-only 0-3: range check first", nodes(0, 0), strategies.Packed{Start: 0, End: 3}, "hardware range", -1},
		{"fact 6: 4-7 on 1x4", nodes(4), strategies.Packed{Start: 4, End: 7}, "hardware range", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := strategies.NewCluster(tc.inv, nil)
			ps, f := tc.p.Place(c, true)
			wantFailure(t, ps, f, tc.code, tc.process)
		})
	}
}

// Constructor assertions of §4.2 (facts 4 and 5 among them).
func TestPackedConstructorChecks(t *testing.T) {
	c := strategies.NewCluster(nodes(8), nil)
	for _, tc := range []struct {
		name string
		p    strategies.Packed
		code string
	}{
		{"fact 4: 0-3 stride 5", strategies.Packed{Start: 0, End: 3, Stride: 5}, model.CodePackedDivisible},
		{"fact 5: 0-2 nhpp 4", strategies.Packed{Start: 0, End: 2, HardwarePerProcess: 4}, model.CodePackedDivisible},
		{"negative start", strategies.Packed{Start: -1, End: 3}, model.CodeRankOutOfRange},
		{"negative end", strategies.Packed{Start: 0, End: -1}, model.CodeRankOutOfRange},
		{"end before start", strategies.Packed{Start: 3, End: 1}, model.CodeRankReversed},
		{"negative nhpp", strategies.Packed{Start: 0, End: 3, HardwarePerProcess: -1}, model.CodeInvalidValue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.p.Check()
			wantFailure(t, model.Placements{}, f, tc.code, -1)
			ps, f := tc.p.Place(c, true)
			wantFailure(t, ps, f, tc.code, -1)
		})
	}
}

// §7 TestPackedPlacementStrategy facts 1-3.
func TestPackedFacts1to3(t *testing.T) {
	t.Run("fact 1: 1x4 0-3", func(t *testing.T) {
		ps := mustPlace(t)(strategies.Packed{Start: 0, End: 3}.Place(strategies.NewCluster(nodes(4), nil), true))
		var want []pw
		for i := 0; i < 4; i++ {
			want = append(want, pw{node: 0, pnode: 0, lacc: i, lrank: i, lws: 4, vis: itoa(i), lhw: []int{i}})
		}
		checkPlacements(t, ps, want)
	})
	t.Run("fact 2: 1x4 0-3 nhpp2", func(t *testing.T) {
		ps := mustPlace(t)(strategies.Packed{Start: 0, End: 3, HardwarePerProcess: 2}.Place(strategies.NewCluster(nodes(4), nil), true))
		if got := visible(ps); !reflect.DeepEqual(got, []string{"0,1", "2,3"}) {
			t.Errorf("visible %v", got)
		}
		if got := field(ps, func(p model.Placement) int { return p.LocalWorldSize }); !reflect.DeepEqual(got, []int{2, 2}) {
			t.Errorf("lws %v", got)
		}
	})
	t.Run("fact 3: 1x8 0-7 stride2 nhpp2", func(t *testing.T) {
		ps := mustPlace(t)(strategies.Packed{Start: 0, End: 7, HardwarePerProcess: 2, Stride: 2}.Place(strategies.NewCluster(nodes(8), nil), true))
		if got := visible(ps); !reflect.DeepEqual(got, []string{"0,2", "1,3", "4,6", "5,7"}) {
			t.Errorf("visible %v", got)
		}
	})
}

// §4.2's closed form: with no process straddling a node, process i covers
// start + (i/stride)*B + i%stride + k*stride, B = nhpp*stride.
func TestPackedClosedForm(t *testing.T) {
	c := strategies.NewCluster(nodes(16), nil)
	for nhpp := 1; nhpp <= 4; nhpp++ {
		for stride := 1; stride <= 4; stride++ {
			b := nhpp * stride
			for start := 0; start+b <= 16; start++ {
				end := start + (16-start)/b*b - 1
				ps := mustPlace(t)(strategies.Packed{Start: start, End: end, HardwarePerProcess: nhpp, Stride: stride}.Place(c, true))
				if len(ps) != (end-start+1)/nhpp {
					t.Fatalf("Packed(%d,%d,%d,%d): %d processes", start, end, nhpp, stride, len(ps))
				}
				for i, p := range ps {
					for k := 0; k < nhpp; k++ {
						if w := start + (i/stride)*b + i%stride + k*stride; p.LocalHardwareRanks[k] != w {
							t.Fatalf("Packed(%d,%d,%d,%d) rank %d: %v, want element %d = %d", start, end, nhpp, stride, i, p.LocalHardwareRanks, k, w)
						}
					}
				}
			}
		}
	}
}

// A label that names no group is reported as such.
func TestPackedUnknownGroup(t *testing.T) {
	c := strategies.NewCluster(nodes(4), nil)
	ps, f := strategies.Packed{Start: 0, End: 1, NodeGroups: []string{"nope"}}.Place(c, true)
	// Failure.Process is -1: the failure concerns the whole strategy.
	wantFailure(t, ps, f, model.CodeUnknownGroup, -1)
}

func itoa(i int) string { return strconv.Itoa(i) }
