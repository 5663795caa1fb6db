package strategies_test

import (
	"reflect"
	"testing"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/strategies"
)

// §4.3 worked examples on 2 nodes x 4 GPUs.
func TestFlexibleWorkedExamples(t *testing.T) {
	c := strategies.NewCluster(nodes(4, 4), nil)
	for _, tc := range []struct {
		name    string
		hw      [][]int
		isolate bool
		want    []pw
	}{
		{"[[0,1],[2],[3]]", [][]int{{0, 1}, {2}, {3}}, true, []pw{
			{node: 0, pnode: 0, lacc: 0, lrank: 0, lws: 3, vis: "0,1", lhw: []int{0, 1}},
			{node: 0, pnode: 0, lacc: 2, lrank: 1, lws: 3, vis: "2", lhw: []int{2}},
			{node: 0, pnode: 0, lacc: 3, lrank: 2, lws: 3, vis: "3", lhw: []int{3}},
		}},
		// Workers are numbered by their first (sorted) hardware rank, not
		// by input order.
		{"[[5,4],[0],[7]] sorted", [][]int{{5, 4}, {0}, {7}}, true, []pw{
			{node: 0, pnode: 0, lacc: 0, lrank: 0, lws: 1, vis: "0", lhw: []int{0}},
			{node: 1, pnode: 1, lacc: 0, lrank: 0, lws: 2, vis: "0,1", lhw: []int{0, 1}},
			{node: 1, pnode: 1, lacc: 3, lrank: 1, lws: 2, vis: "3", lhw: []int{3}},
		}},
		// Sharing one GPU between processes is allowed (this is `0:0-1`).
		{"[[0],[0],[4]] shared GPU", [][]int{{0}, {0}, {4}}, true, []pw{
			{node: 0, pnode: 0, lacc: 0, lrank: 0, lws: 2, vis: "0", lhw: []int{0}},
			{node: 0, pnode: 0, lacc: 0, lrank: 1, lws: 2, vis: "0", lhw: []int{0}},
			{node: 1, pnode: 1, lacc: 0, lrank: 0, lws: 1, vis: "0", lhw: []int{0}},
		}},
		{"[[6]] isolate false", [][]int{{6}}, false, []pw{
			{node: 1, pnode: 0, lacc: 0, lrank: 0, lws: 1, vis: "0,1,2,3", lhw: []int{2}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := mustPlace(t)(strategies.Flexible{HardwareRanks: tc.hw}.Place(c, tc.isolate))
			checkPlacements(t, ps, tc.want)
		})
	}
}

// §4.3 groups gpu/franka as in P-f: robot workers see every GPU of their
// node (none on node 1).
func TestFlexibleRobotGroups(t *testing.T) {
	c := heteroPf(t)
	ps := mustPlace(t)(strategies.Flexible{HardwareRanks: [][]int{{1}, {2}, {4}}, NodeGroups: []string{"gpu", "franka"}}.Place(c, true))
	checkPlacements(t, ps, []pw{
		{node: 0, pnode: 0, lacc: 1, lrank: 0, lws: 1, vis: "1", lhw: []int{1}, label: "gpu", accel: "NV_GPU"},
		{node: 1, pnode: 1, lacc: -1, lrank: 0, lws: 1, vis: "", lhw: []int{0}, label: "franka", accel: "NO_ACCEL"},
		{node: 2, pnode: 2, lacc: 0, lrank: 0, lws: 1, vis: "0", lhw: []int{0}, label: "franka", accel: "NV_GPU"},
	})
}

// §4.3 refusals, including facts 11-14 of §7.
func TestFlexibleRefusals(t *testing.T) {
	twoByTwo := `    - label: a
      node_ranks: 0
    - label: b
      node_ranks: 1
`
	for _, tc := range []struct {
		name    string
		c       func(t *testing.T) *strategies.Cluster
		fx      strategies.Flexible
		code    string
		process int
	}{
		{"groups [b,a] go down in node order", func(t *testing.T) *strategies.Cluster { return groupsCluster(t, nodes(2, 2), twoByTwo) },
			strategies.Flexible{HardwareRanks: [][]int{{0}, {2}}, NodeGroups: []string{"b", "a"}}, model.CodeNodeOrder, 1},
		{"[[3,4]] spans nodes", plain(4, 4), strategies.Flexible{HardwareRanks: [][]int{{3, 4}}}, model.CodeSpansNodes, 0},
		{"fact 11: [[0,4]] same node", plain(4, 4), strategies.Flexible{HardwareRanks: [][]int{{0, 4}}}, model.CodeSpansNodes, 0},
		{"fact 12: [[0],[8]] out of range", plain(4, 4), strategies.Flexible{HardwareRanks: [][]int{{0}, {8}}}, "hardware range", 1},
		{"negative rank", plain(4, 4), strategies.Flexible{HardwareRanks: [][]int{{-1}}}, "hardware range", 0},
		{"fact 13: [[0,0]] unique", plain(4), strategies.Flexible{HardwareRanks: [][]int{{0, 0}}}, model.CodeProcessHardwareDup, 0},
		{"fact 14: empty list", plain(4), strategies.Flexible{}, model.CodeEmptyRanks, -1},
		{"[[]] a process without hardware", plain(4), strategies.Flexible{HardwareRanks: [][]int{{}}}, model.CodeEmptyRanks, 0},
		{"fact 38: GPU and Franka in one process", heteroNode0,
			strategies.Flexible{HardwareRanks: [][]int{{0, 1}}, NodeGroups: []string{"gpu", "franka"}}, model.CodeMixedHardware, 0},
		{"D7: group without hardware", plain(4), strategies.Flexible{HardwareRanks: [][]int{{0}}, NodeGroups: []string{"node"}}, model.CodeNeedsHardware, -1},
		{"CPU-only cluster", plain(0, 0), strategies.Flexible{HardwareRanks: [][]int{{0}}}, model.CodeNeedsHardware, -1},
		{"unknown group", plain(4), strategies.Flexible{HardwareRanks: [][]int{{0}}, NodeGroups: []string{"nope"}}, model.CodeUnknownGroup, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, f := tc.fx.Place(tc.c(t), true)
			wantFailure(t, ps, f, tc.code, tc.process)
		})
	}
}

// A robot group whose nodes have no robots has no hardware at all.
func TestFlexibleNoHardwareInGroup(t *testing.T) {
	c := groupsCluster(t, nodes(2), `    - label: franka
      node_ranks: 0
      hardware_type: Franka
`)
	ps, f := strategies.Flexible{HardwareRanks: [][]int{{0}}, NodeGroups: []string{"franka"}}.Place(c, true)
	wantFailure(t, ps, f, model.CodeNoHardware, -1)
}

func plain(counts ...int) func(*testing.T) *strategies.Cluster {
	return func(*testing.T) *strategies.Cluster { return strategies.NewCluster(nodes(counts...), nil) }
}

// §7 TestFlexiblePlacementStrategy facts 7-10.
func TestFlexibleFacts7to10(t *testing.T) {
	t.Run("fact 7: 2x4 [[0]]", func(t *testing.T) {
		ps := mustPlace(t)(strategies.Flexible{HardwareRanks: [][]int{{0}}}.Place(strategies.NewCluster(nodes(4, 4), nil), true))
		checkPlacements(t, ps, []pw{{node: 0, pnode: 0, lacc: 0, lrank: 0, lws: 1, vis: "0", lhw: []int{0}}})
	})
	t.Run("fact 8: 1x4 [[2,1,3]]", func(t *testing.T) {
		ps := mustPlace(t)(strategies.Flexible{HardwareRanks: [][]int{{2, 1, 3}}}.Place(strategies.NewCluster(nodes(4), nil), true))
		checkPlacements(t, ps, []pw{{node: 0, pnode: 0, lacc: 1, lrank: 0, lws: 1, vis: "1,2,3", lhw: []int{1, 2, 3}}})
	})
	t.Run("fact 9: 2x4 [[0],[1],[2]]", func(t *testing.T) {
		ps := mustPlace(t)(strategies.Flexible{HardwareRanks: [][]int{{0}, {1}, {2}}}.Place(strategies.NewCluster(nodes(4, 4), nil), true))
		if got := field(ps, func(p model.Placement) int { return p.LocalRank }); !reflect.DeepEqual(got, []int{0, 1, 2}) {
			t.Errorf("local ranks %v", got)
		}
		if got := field(ps, func(p model.Placement) int { return p.LocalWorldSize }); !reflect.DeepEqual(got, []int{3, 3, 3}) {
			t.Errorf("lws %v", got)
		}
	})
	t.Run("fact 10: 3x4 [[0],[4],[8]]", func(t *testing.T) {
		ps := mustPlace(t)(strategies.Flexible{HardwareRanks: [][]int{{0}, {4}, {8}}}.Place(strategies.NewCluster(nodes(4, 4, 4), nil), true))
		if got := nodesOf(ps); !reflect.DeepEqual(got, []int{0, 1, 2}) {
			t.Errorf("nodes %v", got)
		}
		if got := field(ps, func(p model.Placement) int { return p.LocalWorldSize }); !reflect.DeepEqual(got, []int{1, 1, 1}) {
			t.Errorf("lws %v", got)
		}
	})
}

// RLinf sorts each process's list in place; rlsolve's library must not
// change the caller's slices.
func TestFlexibleDoesNotMutateInput(t *testing.T) {
	hw := [][]int{{5, 4}, {0}}
	mustPlace(t)(strategies.Flexible{HardwareRanks: hw}.Place(strategies.NewCluster(nodes(4, 4), nil), true))
	if !reflect.DeepEqual(hw, [][]int{{5, 4}, {0}}) {
		t.Errorf("input changed to %v", hw)
	}
}
