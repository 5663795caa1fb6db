package exec

import (
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/topology"
)

// liveRows are State API node rows (the shape `ray list nodes --detail
// --format json` prints).
const liveRows = `[
 {"node_id": "a1", "node_ip": "10.0.0.1", "is_head_node": true, "state": "ALIVE", "resources_total": {"CPU": 4, "GPU": 2}},
 {"node_id": "b2", "node_ip": "10.0.0.2", "is_head_node": false, "state": "ALIVE", "resources_total": {"CPU": 4, "GPU": 2}},
 {"node_id": "c3", "node_ip": "10.0.0.3", "is_head_node": false, "state": "DEAD", "resources_total": {"CPU": 4, "GPU": 2}}]`

func TestRayPreflight(t *testing.T) {
	node := func(ip string, gpus int) model.Node {
		return model.Node{IP: ip, AccelCount: gpus, Span: model.Span{File: "inv.yaml", Line: 3}}
	}
	cases := []struct { // the node set only: slime mode
		name string
		plan []model.Node
		want []string // one summary fragment per diagnostic
	}{
		{"equal", []model.Node{node("10.0.0.1", 2), node("10.0.0.2", 2)}, nil},
		{"order is slime's", []model.Node{node("10.0.0.2", 2), node("10.0.0.1", 2)}, nil},
		{"gpus", []model.Node{node("10.0.0.1", 2), node("10.0.0.2", 8)}, []string{"node 1 (10.0.0.2) has 8 GPU(s) in the plan but 2 in the Ray cluster"}},
		{"dead node", []model.Node{node("10.0.0.1", 2), node("10.0.0.3", 2)},
			[]string{"node 1 (10.0.0.3) is not a live node", "1 live node(s) the plan does not (10.0.0.2)"}},
		{"no ip", []model.Node{node("10.0.0.1", 2), node("", 2)}, []string{"node 1 has no IP address", "10.0.0.2"}},
		{"fewer", []model.Node{node("10.0.0.1", 2)}, []string{"1 live node(s) the plan does not (10.0.0.2)"}},
	}
	cluster := nodeSet(t, liveRows)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			specs, ds := RayPreflight(cluster, c.plan, model.Span{File: "train.yaml", Line: 2})
			wantDiags(t, ds, c.want)
			if len(ds) == 0 && (len(specs) != len(c.plan) || specs[0].IP != c.plan[0].IP || specs[0].NodeID != "") {
				t.Errorf("specs %+v", specs)
			}
		})
	}
}

// nodeSet reads rows as slime mode's DiscoverRay does (NodeSet, no probe).
func nodeSet(t *testing.T, rows string) RayCluster {
	t.Helper()
	inv, ds, err := topology.ImportRayLive("http://head:8265", []byte(rows), nil, topology.RayOptions{NodeSet: true})
	if err != nil || ds.HasErrors() {
		t.Fatal(err, ds)
	}
	return RayNodeSetOf("http://head:8265", &topology.RayLive{Inventory: inv})
}

func wantDiags(t *testing.T, ds model.Diagnostics, want []string) {
	t.Helper()
	if len(ds) != len(want) {
		t.Fatalf("%d diagnostics, want %d: %+v", len(ds), len(want), ds)
	}
	for i, d := range ds {
		if !strings.Contains(d.Summary, want[i]) || d.Code != model.CodeLaunchRayNodes || d.Primary.File == "" || len(d.Help) == 0 {
			t.Errorf("diagnostic %d: %+v; want %q", i, d, want[i])
		}
	}
}

// TestRayPreflightOrder: in RLinf mode the plan's nodes must be the live
// ones in RLinf's order (topology's rules over the probe's ranks), and the
// driver gets each node's Ray node id.
func TestRayPreflightOrder(t *testing.T) {
	rank := func(s string) *string { return &s }
	// RLINF_NODE_RANK orders them .1 .3 .2; numeric and string order differ.
	live := &topology.RayLive{Facts: map[string]topology.RayFacts{
		"a1": {IP: "10.0.0.1", Rank: rank("0")}, "b2": {IP: "10.0.0.2", Rank: rank("2")}, "c3": {IP: "10.0.0.3", Rank: rank("1")}}}
	rows := strings.ReplaceAll(liveRows, `"DEAD"`, `"ALIVE"`)
	inv, ds, err := topology.ImportRayLive("http://head:8265", []byte(rows), live.Facts, topology.RayOptions{RLinfOrder: true})
	if err != nil || ds.HasErrors() {
		t.Fatal(err, ds)
	}
	live.Inventory = inv
	cluster := RayClusterOf("http://head:8265", live)
	node := func(ip string) model.Node {
		return model.Node{IP: ip, AccelCount: 2, Span: model.Span{File: "inv.yaml", Line: 3}}
	}
	specs, ds := RayPreflight(cluster, []model.Node{node("10.0.0.1"), node("10.0.0.3"), node("10.0.0.2")}, model.Span{File: "train.yaml"})
	if len(ds) > 0 || len(specs) != 3 || specs[1] != (RayNodeSpec{NodeID: "c3", IP: "10.0.0.3", GPUs: 2}) || specs[2].NodeID != "b2" {
		t.Fatalf("specs %+v, %v", specs, ds)
	}
	_, ds = RayPreflight(cluster, []model.Node{node("10.0.0.1"), node("10.0.0.2"), node("10.0.0.3")}, model.Span{File: "train.yaml"})
	wantDiags(t, ds, []string{"node 1 is 10.0.0.2 in the plan, but RLinf numbers the Ray cluster's nodes 0=10.0.0.1 1=10.0.0.3 2=10.0.0.2"})
	if ds[0].Primary.File != "inv.yaml" {
		t.Errorf("located at %+v, want the plan's node", ds[0].Primary)
	}
	delete(cluster.IDs, "10.0.0.2")
	_, ds = RayPreflight(cluster, []model.Node{node("10.0.0.1"), node("10.0.0.3"), node("10.0.0.2")}, model.Span{File: "train.yaml"})
	wantDiags(t, ds, []string{"node 2 (10.0.0.2) did not answer the probe"})
	_, ds = RayPreflight(cluster, []model.Node{node("10.0.0.1"), node("10.0.0.3"), node("10.0.0.3")}, model.Span{File: "train.yaml"})
	wantDiags(t, ds, []string{"node 2 has node 1's IP address (10.0.0.3)", "1 live node(s) the plan does not (10.0.0.2)"})
}

// Slime never reads RLINF_NODE_RANK: ranks RLinf would refuse (mixed,
// duplicated, out of range, not a number) in the State API rows' labels,
// the only place the rows carry one, do not refuse a slime launch.
func TestRayPreflightSlimeIgnoresRanks(t *testing.T) {
	plan := []model.Node{{IP: "10.0.0.1", AccelCount: 2}, {IP: "10.0.0.2", AccelCount: 2}}
	for name, labels := range map[string][2]string{
		"mixed":        {`{"RLINF_NODE_RANK": "0"}`, `{}`},
		"duplicated":   {`{"RLINF_NODE_RANK": "1"}`, `{"RLINF_NODE_RANK": "1"}`},
		"out of range": {`{"RLINF_NODE_RANK": "0"}`, `{"RLINF_NODE_RANK": "7"}`},
		"not a number": {`{"RLINF_NODE_RANK": "zero"}`, `{"RLINF_NODE_RANK": "1"}`},
	} {
		t.Run(name, func(t *testing.T) {
			rows := `[{"node_id": "a1", "node_ip": "10.0.0.2", "state": "ALIVE", "resources_total": {"GPU": 2}, "labels": ` + labels[1] + `},
 {"node_id": "b2", "node_ip": "10.0.0.1", "is_head_node": true, "state": "ALIVE", "resources_total": {"GPU": 2}, "labels": ` + labels[0] + `}]`
			// RLinf would refuse this cluster: the check is not vacuous.
			inv, ds, err := topology.ImportRayLive("http://head:8265", []byte(rows), nil, topology.RayOptions{RLinfOrder: true})
			if err == nil && !ds.HasErrors() {
				t.Fatalf("RLinf's rules took ranks %v: %+v", labels, inv.Nodes)
			}
			specs, ds := RayPreflight(nodeSet(t, rows), plan, model.Span{File: "train.yaml"})
			if len(ds) > 0 || len(specs) != 2 {
				t.Fatalf("specs %+v, %v", specs, ds)
			}
		})
	}
}

// Two raylets on one address: refused, located at the plan's node with
// that address, whichever way the cluster was read (the probe's facts by
// node id, or a node list with the address twice).
func TestRayPreflightSharedAddress(t *testing.T) {
	plan := []model.Node{{IP: "10.0.0.1", AccelCount: 2, Span: model.Span{File: "inv.yaml", Line: 3}}, {IP: "10.0.0.2", AccelCount: 2, Span: model.Span{File: "inv.yaml", Line: 5}}}
	live := &topology.RayLive{
		Inventory: &model.Inventory{Nodes: []model.Node{{IP: "10.0.0.1", AccelCount: 2}, {IP: "10.0.0.2", AccelCount: 2}}},
		Facts:     map[string]topology.RayFacts{"a1": {IP: "10.0.0.1"}, "b2": {IP: "10.0.0.2"}, "c3": {IP: "10.0.0.2"}}}
	c := RayClusterOf("http://head:8265", live)
	_, ds := RayPreflight(c, plan, model.Span{File: "train.yaml"})
	wantDiags(t, ds, []string{"runs more than one raylet on 10.0.0.2 (node ids b2, c3)"})
	if ds[0].Primary != plan[1].Span {
		t.Errorf("located at %+v, want the plan's node 1", ds[0].Primary)
	}

	c = RayCluster{Address: "http://head:8265", Nodes: []model.Node{{IP: "10.0.0.1", AccelCount: 2}, {IP: "10.0.0.1", AccelCount: 2}}}
	_, ds = RayPreflight(c, plan[1:], model.Span{File: "train.yaml"})
	wantDiags(t, ds, []string{"runs more than one raylet on 10.0.0.1:"})
	if ds[0].Primary.File != "train.yaml" {
		t.Errorf("located at %+v, want the fallback (no planned node has the address)", ds[0].Primary)
	}

	// The import refuses it first, naming both raylets.
	rows := `[{"node_id": "a1", "node_ip": "10.0.0.1", "is_head_node": true, "state": "ALIVE", "resources_total": {"GPU": 2}},
 {"node_id": "b2", "node_ip": "10.0.0.1", "state": "ALIVE", "resources_total": {"GPU": 2}}]`
	for _, opt := range []topology.RayOptions{{NodeSet: true}, {RLinfOrder: true}} {
		inv, ds, err := topology.ImportRayLive("http://head:8265", []byte(rows), nil, opt)
		if err != nil || inv != nil || !ds.HasErrors() || !strings.Contains(ds[len(ds)-1].Summary, "raylets (a1 and b2)") {
			t.Errorf("%+v: %v, %+v", opt, err, ds)
		}
	}
}
