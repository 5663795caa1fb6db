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
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cluster, ds := RayClusterOfRows("http://head:8265", []byte(liveRows), model.Span{File: "train.yaml", Line: 2})
			if len(ds) > 0 {
				t.Fatal(ds)
			}
			specs, ds := RayPreflight(cluster, c.plan, model.Span{File: "train.yaml", Line: 2})
			wantDiags(t, ds, c.want)
			if len(ds) == 0 && (len(specs) != len(c.plan) || specs[0].IP != c.plan[0].IP || specs[0].NodeID != "") {
				t.Errorf("specs %+v", specs)
			}
		})
	}
	if _, ds := RayClusterOfRows("http://head:8265", []byte(`{"not": "rows"}`), model.Span{File: "train.yaml"}); len(ds) != 1 || !strings.Contains(ds[0].Summary, "cannot read") {
		t.Errorf("unreadable rows: %+v", ds)
	}
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
