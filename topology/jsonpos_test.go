package topology

import (
	"reflect"
	"testing"
)

// A key written twice in a Ray dump takes its last value at every level,
// as Python's json.loads does (which writes and reads these dumps): the
// import equals that of the dump Python normalises it to (checked with
// python -c 'print(json.dumps(json.loads(src)))').
func TestImportRayDuplicateKeys(t *testing.T) {
	dup := `{"nodes": [], "nodes": [{"node_ip": "10.0.0.1", "state": "DEAD", "state": "ALIVE", "resources_total": {"GPU": 2, "CPU": 4, "GPU": 8}, "node_ip": "10.0.0.7", "labels": {"ray.io/node_id": "a"}}]}`
	py := `{"nodes": [{"node_ip": "10.0.0.7", "state": "ALIVE", "resources_total": {"GPU": 8, "CPU": 4}, "labels": {"ray.io/node_id": "a"}}]}`
	got, _, err := ImportRay("dup.json", []byte(dup))
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := ImportRay("py.json", []byte(py))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Nodes, want.Nodes) {
		t.Errorf("duplicate keys read as\n%+v\nwant Python's\n%+v", got.Nodes, want.Nodes)
	}
	if len(got.Nodes) != 1 || got.Nodes[0].IP != "10.0.0.7" || got.Nodes[0].AccelCount != 8 {
		t.Errorf("nodes %+v, want one at 10.0.0.7 with 8 GPUs", got.Nodes)
	}
}

// The parser keeps a repeated key once, in its first place.
func TestParseJSONDuplicateKeyOrder(t *testing.T) {
	n, err := parseJSON([]byte(`{"a": 1, "b": 2, "a": 3}`))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(n.keys, []string{"a", "b"}) || n.get("a").num.String() != "3" {
		t.Errorf("keys %v, a = %v; want [a b] and a = 3", n.keys, n.get("a").num)
	}
}
