package strategies_test

import (
	"reflect"
	"testing"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/strategies"
)

// abCluster has group a = node 0 (1 GPU) and b = node 1 (2 GPUs), as in
// §4.4 and fact 36.
func abCluster(t *testing.T) *strategies.Cluster {
	return groupsCluster(t, nodes(1, 2), `    - label: a
      node_ranks: 0
    - label: b
      node_ranks: 1
`)
}

// §4.4 worked examples.
func TestNodeWorkedExamples(t *testing.T) {
	t.Run("2x4 Node([1,0,1]) is sorted; all GPUs visible", func(t *testing.T) {
		ps := mustPlace(t)(strategies.Node{NodeRanks: []int{1, 0, 1}}.Place(strategies.NewCluster(nodes(4, 4), nil), true))
		checkPlacements(t, ps, []pw{
			{node: 0, pnode: 0, lacc: 0, lrank: 0, lws: 1, vis: "0,1,2,3", label: "cluster", accel: "NV_GPU"},
			{node: 1, pnode: 1, lacc: 0, lrank: 0, lws: 2, vis: "0,1,2,3", label: "cluster", accel: "NV_GPU"},
			{node: 1, pnode: 1, lacc: 0, lrank: 1, lws: 2, vis: "0,1,2,3", label: "cluster", accel: "NV_GPU"},
		})
	})
	t.Run("3 CPU nodes Node([0,0,2],node)", func(t *testing.T) {
		ps := mustPlace(t)(strategies.Node{NodeRanks: []int{0, 0, 2}, NodeGroups: []string{"node"}}.Place(strategies.NewCluster(nodes(0, 0, 0), nil), true))
		checkPlacements(t, ps, []pw{
			{node: 0, pnode: 0, lacc: -1, lrank: 0, lws: 2, vis: "", label: "node", accel: "NO_ACCEL"},
			{node: 0, pnode: 0, lacc: -1, lrank: 1, lws: 2, vis: "", label: "node", accel: "NO_ACCEL"},
			{node: 2, pnode: 1, lacc: -1, lrank: 0, lws: 1, vis: "", label: "node", accel: "NO_ACCEL"},
		})
	})
	t.Run("Node([0,1],[a,b])", func(t *testing.T) {
		ps := mustPlace(t)(strategies.Node{NodeRanks: []int{0, 1}, NodeGroups: []string{"a", "b"}}.Place(abCluster(t), true))
		checkPlacements(t, ps, []pw{
			{node: 0, pnode: 0, lacc: 0, lrank: 0, lws: 1, vis: "0", label: "a"},
			{node: 1, pnode: 1, lacc: 0, lrank: 0, lws: 1, vis: "0,1", label: "b"},
		})
	})
	t.Run("Node([0],b) is node 1", func(t *testing.T) {
		ps := mustPlace(t)(strategies.Node{NodeRanks: []int{0}, NodeGroups: []string{"b"}}.Place(abCluster(t), true))
		checkPlacements(t, ps, []pw{{node: 1, pnode: 0, lacc: 0, lrank: 0, lws: 1, vis: "0,1", label: "b"}})
	})
}

// §7 TestNodePlacementStrategy facts 15-19 and fact 36.
func TestNodeFacts(t *testing.T) {
	t.Run("fact 15: 2x2 Node([0,0],node)", func(t *testing.T) {
		ps := mustPlace(t)(strategies.Node{NodeRanks: []int{0, 0}, NodeGroups: []string{"node"}}.Place(strategies.NewCluster(nodes(2, 2), nil), true))
		if got := nodesOf(ps); !reflect.DeepEqual(got, []int{0, 0}) {
			t.Errorf("nodes %v", got)
		}
		if got := field(ps, func(p model.Placement) int { return p.LocalRank }); !reflect.DeepEqual(got, []int{0, 1}) {
			t.Errorf("local ranks %v", got)
		}
		if got := field(ps, func(p model.Placement) int { return p.LocalWorldSize }); !reflect.DeepEqual(got, []int{2, 2}) {
			t.Errorf("lws %v", got)
		}
	})
	t.Run("fact 16: 3x1 Node([0,1,1,2],node)", func(t *testing.T) {
		ps := mustPlace(t)(strategies.Node{NodeRanks: []int{0, 1, 1, 2}, NodeGroups: []string{"node"}}.Place(strategies.NewCluster(nodes(1, 1, 1), nil), true))
		if got := nodesOf(ps); !reflect.DeepEqual(got, []int{0, 1, 1, 2}) {
			t.Errorf("nodes %v", got)
		}
		if got := field(ps, func(p model.Placement) int { return p.LocalRank }); !reflect.DeepEqual(got, []int{0, 0, 1, 0}) {
			t.Errorf("local ranks %v", got)
		}
		if got := field(ps, func(p model.Placement) int { return p.LocalWorldSize }); !reflect.DeepEqual(got, []int{1, 2, 2, 1}) {
			t.Errorf("lws %v", got)
		}
	})
	t.Run("fact 17: 2x0 Node([0],node)", func(t *testing.T) {
		ps := mustPlace(t)(strategies.Node{NodeRanks: []int{0}, NodeGroups: []string{"node"}}.Place(strategies.NewCluster(nodes(0, 0), nil), true))
		checkPlacements(t, ps, []pw{{node: 0, pnode: 0, lacc: -1, lrank: 0, lws: 1, vis: ""}})
	})
	t.Run("fact 18: 1x2 Node([0],node) isolate false", func(t *testing.T) {
		ps := mustPlace(t)(strategies.Node{NodeRanks: []int{0}, NodeGroups: []string{"node"}}.Place(strategies.NewCluster(nodes(2), nil), false))
		checkPlacements(t, ps, []pw{{node: 0, pnode: 0, lacc: 0, lrank: 0, lws: 1, vis: "0,1"}})
		if ps[0].IsolateAccelerator {
			t.Error("isolate should be false")
		}
	})
	t.Run("fact 19: 2x1 Node([0,2],node)", func(t *testing.T) {
		ps, f := strategies.Node{NodeRanks: []int{0, 2}, NodeGroups: []string{"node"}}.Place(strategies.NewCluster(nodes(1, 1), nil), true)
		wantFailure(t, ps, f, "node index", 1)
	})
	t.Run("fact 36: Node([0,1],[a,b]) isolate false", func(t *testing.T) {
		ps := mustPlace(t)(strategies.Node{NodeRanks: []int{0, 1}, NodeGroups: []string{"a", "b"}}.Place(abCluster(t), false))
		checkPlacements(t, ps, []pw{
			{node: 0, pnode: 0, lacc: 0, lrank: 0, lws: 1, vis: "0", label: "a"},
			{node: 1, pnode: 1, lacc: 0, lrank: 0, lws: 1, vis: "0,1", label: "b"},
		})
	})
}

// Node placement refusals of §4.4.
func TestNodeRefusals(t *testing.T) {
	for _, tc := range []struct {
		name    string
		c       func(*testing.T) *strategies.Cluster
		ns      strategies.Node
		code    string
		process int
	}{
		{"empty", plain(4), strategies.Node{}, model.CodeEmptyRanks, -1},
		{"negative index", plain(4), strategies.Node{NodeRanks: []int{-1}}, "node index", 0},
		{"groups [b,a] go down", abCluster, strategies.Node{NodeRanks: []int{0, 1}, NodeGroups: []string{"b", "a"}}, model.CodeNodeOrder, 1},
		{"overlapping groups", abCluster, strategies.Node{NodeRanks: []int{0}, NodeGroups: []string{"a", "cluster"}}, model.CodeGroupsOverlap, -1},
		{"unknown group", plain(4), strategies.Node{NodeRanks: []int{0}, NodeGroups: []string{"nope"}}, model.CodeUnknownGroup, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, f := tc.ns.Place(tc.c(t), true)
			wantFailure(t, ps, f, tc.code, tc.process)
		})
	}
}

// Node placements carry no hardware ranks: an empty list, not null.
func TestNodeLocalHardwareRanksEmpty(t *testing.T) {
	ps := mustPlace(t)(strategies.Node{NodeRanks: []int{0}}.Place(strategies.NewCluster(nodes(2), nil), true))
	if ps[0].LocalHardwareRanks == nil || len(ps[0].LocalHardwareRanks) != 0 {
		t.Errorf("local hardware ranks %#v, want []int{}", ps[0].LocalHardwareRanks)
	}
}
