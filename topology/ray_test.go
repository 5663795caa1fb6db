package topology

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

func raySample(t testing.TB, name string) (string, []byte) {
	t.Helper()
	file := filepath.Join("..", "testdata", "topology", "ray", name)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return file, b
}

func ips(inv *model.Inventory) []string {
	var out []string
	for _, n := range inv.Nodes {
		out = append(out, n.IP)
	}
	return out
}

// RLinf's own example (semantics §6.1): head .9, then .10, .2, .1. rlsolve
// orders numerically (D13) and warns, since RLinf would use .9, .1, .10, .2.
// The dead node is left out with a note.
func TestImportRayStateAPI(t *testing.T) {
	file, data := raySample(t, "list-nodes-detail.json")
	inv, ds, err := ImportRay(file, data)
	if err != nil {
		t.Fatal(err)
	}
	if got := ips(inv); !reflect.DeepEqual(got, []string{"10.0.0.1", "10.0.0.2", "10.0.0.9", "10.0.0.10"}) {
		t.Errorf("order %v", got)
	}
	for i, n := range inv.Nodes {
		if n.Rank != i || n.AccelCount != 8 || n.AccelModel != "A100" || n.AccelType != model.AccelNVGPU {
			t.Errorf("node %d: %+v", i, n)
		}
	}
	if len(ds) != 2 {
		t.Fatalf("diagnostics %+v", ds)
	}
	if ds[0].Severity != model.SeverityNote || !strings.Contains(ds[0].Summary, "left out node 10.0.0.3") || ds[0].Primary.Line != 87 {
		t.Errorf("note %+v", ds[0])
	}
	w := ds[1]
	if w.Code != model.WarnNodeOrderRLinf || !strings.Contains(w.Summary, "rank 0 is 10.0.0.1 here but 10.0.0.9 in RLinf") {
		t.Errorf("warning %+v", w)
	}
}

// json.dumps(ray.nodes()): host names, a CPU node; both orders agree.
func TestImportRayNodes(t *testing.T) {
	file, data := raySample(t, "ray-nodes.json")
	inv, ds, err := ImportRay(file, data)
	if err != nil || len(ds) != 0 {
		t.Fatal(err, ds)
	}
	want := []model.Node{
		{Rank: 0, Hostname: "h100-a", IP: "10.0.1.1", AccelType: "NV_GPU", AccelModel: "H100", AccelCount: 8},
		{Rank: 1, Hostname: "h100-b", IP: "10.0.1.2", AccelType: "NV_GPU", AccelModel: "H100", AccelCount: 8},
		{Rank: 2, Hostname: "cpu-a", IP: "10.0.1.3"},
	}
	if !reflect.DeepEqual(inv.Nodes, want) {
		t.Errorf("nodes\n got %+v\nwant %+v", inv.Nodes, want)
	}
}

// Explicit RLINF_NODE_RANK (here as Ray labels) wins over addresses.
func TestImportRayExplicitRanks(t *testing.T) {
	file, data := raySample(t, "ranks-labels.json")
	inv, ds, err := ImportRay(file, data)
	if err != nil || len(ds) != 0 {
		t.Fatal(err, ds)
	}
	if got := ips(inv); !reflect.DeepEqual(got, []string{"10.0.0.2", "10.0.0.1", "10.0.0.3"}) {
		t.Errorf("order %v", got)
	}
	if inv.Nodes[2].AccelCount != 0 || inv.Nodes[2].AcceleratorType() != model.AccelNone {
		t.Errorf("CPU node %+v", inv.Nodes[2])
	}
}

// RLinf's rank rules, checked as every inventory's are, at the value's
// position.
func TestImportRayRankErrors(t *testing.T) {
	for _, tc := range []struct {
		file, code, want string
		line             int
	}{
		{"bad-mixed-ranks.json", model.CodeInventoryRankMix, "Either all nodes set RLINF_NODE_RANK, or none of them should have", 25},
		{"bad-dup-ranks.json", model.CodeInventoryDuplicate, "RLINF_NODE_RANK 0 is given twice: 10.0.0.1 and 10.0.0.2", 42},
		{"bad-rank-too-big.json", model.CodeInventoryInvalid, "RLINF_NODE_RANK 2 of 10.0.0.2 is out of range: 2 nodes have ranks 0..1", 42},
	} {
		file, data := raySample(t, tc.file)
		inv, ds, err := ImportRay(file, data)
		if err != nil || inv != nil || !ds.HasErrors() {
			t.Fatalf("%s: %v %v %v", tc.file, inv, ds, err)
		}
		d := ds[len(ds)-1]
		if d.Code != tc.code || !strings.Contains(d.Summary, tc.want) || d.Primary.Line != tc.line || d.Primary.File != file {
			t.Errorf("%s: %s %s %q", tc.file, d.Code, d.Primary, d.Summary)
		}
	}
}

// Dumps that cannot be read: errors with file:line:col and a hint.
func TestImportRayBadDumps(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"bad-truncated.json", "bad-truncated.json:25:68: invalid JSON: unexpected end of JSON input"},
		{"bad-python-repr.txt", "invalid JSON"},
		{"bad-not-a-list.json", "bad-not-a-list.json:1:1: expected a list of nodes"},
		{"bad-rank-not-int.json", "Invalid NODE_RANK value: first. Must be an integer."},
		{"bad-fractional-gpu.json", "resource GPU is 0.5; expected a whole number"},
		{"bad-no-alive.json", "the dump has no alive node"},
	} {
		file, data := raySample(t, tc.file)
		inv, _, err := ImportRay(file, data)
		var re *RayError
		if inv != nil || !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.file, err, tc.want)
		}
	}
	_, data := raySample(t, "bad-python-repr.txt")
	if _, _, err := ImportRay("x", data); !strings.Contains(err.Error(), "json.dumps(ray.nodes())") {
		t.Errorf("no hint for Python's repr: %v", err)
	}
	for name, src := range map[string]string{
		"empty":        "",
		"not utf-8":    "[\xff]",
		"null":         "null",
		"list of ints": "[1]",
		"no address":   `[{"state": "ALIVE"}]`,
		"no state":     `[{"node_ip": "10.0.0.1"}]`,
		"bad state":    `[{"node_ip": "10.0.0.1", "state": 1}]`,
		"bad alive":    `[{"NodeManagerAddress": "10.0.0.1", "Alive": "yes"}]`,
		"bad head":     `[{"node_ip": "10.0.0.1", "state": "ALIVE", "is_head_node": 1}]`,
		"bad gpus":     `[{"node_ip": "10.0.0.1", "state": "ALIVE", "resources_total": {"GPU": "8"}}]`,
		"bad rank":     `[{"node_ip": "10.0.0.1", "state": "ALIVE", "RLINF_NODE_RANK": [0]}]`,
		"deep":         strings.Repeat("[", 200) + strings.Repeat("]", 200),
		"trailing":     `[] []`,
		"resources":    `[{"node_ip": "10.0.0.1", "state": "ALIVE", "resources_total": 8}]`,
	} {
		if inv, _, err := ImportRay(name, []byte(src)); err == nil || inv != nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// A single alive node is rank 0 whatever it says (RLinf forces it); -1 is
// RLinf's "not set".
func TestImportRaySingleNode(t *testing.T) {
	inv, ds, err := ImportRay("one.json", []byte(`[{"node_ip": "10.0.0.7", "state": "ALIVE", "env": {"RLINF_NODE_RANK": "3"}, "resources_total": {"GPU": 4}}]`))
	if err != nil || len(inv.Nodes) != 1 || inv.Nodes[0].Rank != 0 || len(ds) != 1 || !strings.Contains(ds[0].Summary, "ignored") {
		t.Errorf("%+v %+v %v", inv, ds, err)
	}
	inv, ds, err = ImportRay("two.json", []byte(`[{"node_ip": "10.0.0.7", "state": "ALIVE", "RLINF_NODE_RANK": -1}, {"node_ip": "10.0.0.8", "state": "ALIVE"}]`))
	if err != nil || ds.HasErrors() || len(inv.Nodes) != 2 {
		t.Errorf("-1 is unset: %+v %+v %v", inv, ds, err)
	}
}

// Columns count characters, as in every other rlsolve message.
func TestImportRayColumns(t *testing.T) {
	_, _, err := ImportRay("c.json", []byte("[\n {\"x\": \"é\", \"node_ip\": 5}]"))
	if err == nil || !strings.HasPrefix(err.Error(), "c.json:2:24: node_ip must be a non-empty string") {
		t.Errorf("error %v", err)
	}
}

// With RLinfOrder, nodes without RLINF_NODE_RANK get RLinf's own order
// (head first, IPs as strings), and no warning: the inventory is what RLinf
// will number.
func TestImportRayRLinfOrder(t *testing.T) {
	file, data := raySample(t, "list-nodes-detail.json")
	inv, ds, err := ImportRayWith(file, data, RayOptions{RLinfOrder: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := ips(inv); !reflect.DeepEqual(got, []string{"10.0.0.9", "10.0.0.1", "10.0.0.10", "10.0.0.2"}) {
		t.Errorf("order %v", got)
	}
	for i, n := range inv.Nodes {
		if n.Rank != i {
			t.Errorf("node %d has rank %d", i, n.Rank)
		}
	}
	if len(ds) != 1 || ds[0].Severity != model.SeverityNote {
		t.Errorf("diagnostics %+v: want only the dead node's note", ds)
	}
}

// Two alive nodes with one address are an error at both, whatever the
// ranks say, and whether or not the ranks are read.
func TestImportRaySameAddress(t *testing.T) {
	for _, src := range []string{
		"[{\"node_ip\": \"10.0.0.1\", \"state\": \"ALIVE\"},\n {\"node_ip\": \"10.0.0.2\", \"state\": \"ALIVE\"},\n {\"node_ip\": \"10.0.0.1\", \"state\": \"ALIVE\"}]",
		"[{\"node_ip\": \"10.0.0.1\", \"state\": \"ALIVE\", \"RLINF_NODE_RANK\": 0},\n {\"node_ip\": \"10.0.0.2\", \"state\": \"ALIVE\", \"RLINF_NODE_RANK\": 1},\n {\"node_ip\": \"10.0.0.1\", \"state\": \"ALIVE\", \"RLINF_NODE_RANK\": 2}]",
	} {
		for _, opt := range []RayOptions{{}, {NodeSet: true}} {
			inv, ds, err := ImportRayWith("d.json", []byte(src), opt)
			if err != nil || inv != nil || len(ds) != 1 {
				t.Fatalf("%v %v %v", inv, ds, err)
			}
			d := ds[0]
			if d.Code != model.CodeInventoryDuplicate || d.Severity != model.SeverityError || d.Primary.Line != 3 || len(d.Labels) != 1 || d.Labels[0].Span.Line != 1 ||
				!strings.Contains(d.Summary, "two alive raylets have the address 10.0.0.1: RLinf numbers each raylet as a node") {
				t.Errorf("%+v", d)
			}
		}
	}
	// A dead node's address may come back on a live one.
	inv, ds, err := ImportRay("d.json", []byte(`[{"node_ip": "10.0.0.1", "state": "DEAD"}, {"node_ip": "10.0.0.1", "state": "ALIVE"}]`))
	if err != nil || inv == nil || ds.HasErrors() {
		t.Errorf("a dead node's address: %v %v %v", inv, ds, err)
	}
}
