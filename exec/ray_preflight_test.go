package exec

import (
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
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
	cases := []struct {
		name string
		plan []model.Node
		want []string // one summary fragment per diagnostic
	}{
		{"equal", []model.Node{node("10.0.0.1", 2), node("10.0.0.2", 2)}, nil},
		{"order is the driver's", []model.Node{node("10.0.0.2", 2), node("10.0.0.1", 2)}, nil},
		{"gpus", []model.Node{node("10.0.0.1", 2), node("10.0.0.2", 8)}, []string{"node 1 (10.0.0.2) has 8 GPU(s) in the plan but 2 in the Ray cluster"}},
		{"dead node", []model.Node{node("10.0.0.1", 2), node("10.0.0.3", 2)},
			[]string{"node 1 (10.0.0.3) is not a live node", "1 live node(s) the plan does not (10.0.0.2)"}},
		{"no ip", []model.Node{node("10.0.0.1", 2), node("", 2)}, []string{"node 1 has no IP address", "10.0.0.2"}},
		{"fewer", []model.Node{node("10.0.0.1", 2)}, []string{"1 live node(s) the plan does not (10.0.0.2)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ds := RayPreflight("http://head:8265", []byte(liveRows), c.plan, model.Span{File: "train.yaml", Line: 2})
			if len(ds) != len(c.want) {
				t.Fatalf("%d diagnostics, want %d: %+v", len(ds), len(c.want), ds)
			}
			for i, d := range ds {
				if !strings.Contains(d.Summary, c.want[i]) || d.Code != model.CodeLaunchRayNodes || d.Primary.File == "" || len(d.Help) == 0 {
					t.Errorf("diagnostic %d: %+v; want %q", i, d, c.want[i])
				}
			}
		})
	}
	if ds := RayPreflight("http://head:8265", []byte(`{"not": "rows"}`), nil, model.Span{File: "train.yaml"}); len(ds) != 1 || !strings.Contains(ds[0].Summary, "cannot read") {
		t.Errorf("unreadable rows: %+v", ds)
	}
}
