package solver

import (
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

// TestNodeCapacityAgrees: where only a node's capacity decides (Hall's
// count over whole devices says it fits), the node encoding's totalizer
// refutes and places as the device encoding's clauses per device do.
func TestNodeCapacityAgrees(t *testing.T) {
	cases := []struct {
		name, components string
		nodes            int
		mp, fits         bool // model-parallel class: ranges
	}{
		{"units of 3 and ones fill the nodes", "    a: {gpus: 6, gpus_per_process: 3}\n    b: {gpus: 3}\n    c: {gpus: 3, gpus_per_process: 3}\n    d: {gpus: 3, gpus_per_process: 3}\n", 2, false, true},
		{"units of 3 with ones beside them", "    a: {gpus: 6, gpus_per_process: 3}\n    b: {gpus: 2}\n    c: {gpus: 6, gpus_per_process: 3}\n    d: {gpus: 2}\n", 2, false, true},
		{"five components in units of 3: two units a node", "    a: {gpus: 3, gpus_per_process: 3}\n    b: {gpus: 3, gpus_per_process: 3}\n    c: {gpus: 3, gpus_per_process: 3}\n    d: {gpus: 3, gpus_per_process: 3}\n    e: {gpus: 3, gpus_per_process: 3}\n", 2, false, false},
		{"ranges into and out of one node", "    actor: {gpus: 12}\n    rollout: {gpus: 12}\n", 3, true, true},
		{"ranges in units across nodes", "    actor: {gpus: 10, gpus_per_process: 2}\n    rollout: {gpus: 6, gpus_per_process: 3}\n    inference: {gpus: 7}\n", 3, true, true},
		{"whole nodes leave one", "    actor: {nodes: 2}\n    rollout: {gpus: 12}\n", 3, false, false},
		{"whole nodes and the rest", "    actor: {nodes: 2}\n    rollout: {gpus: 8, gpus_per_process: 2}\n", 3, false, true},
	}
	for _, c := range cases {
		class := model.ClassHybrid
		if c.mp {
			class = model.ClassModelParallel
		}
		sp := classSpace(t, c.nodes, class, c.components)
		if hall(sp, allPresent(sp)) != nil {
			t.Fatalf("%s: Hall's count decides it; the case must leave it to the solver", c.name)
		}
		node, err := Place(sp, PlaceOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		dev, err := Place(classSpace(t, c.nodes, class, c.components), PlaceOptions{DeviceEncoding: true})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		placed := !node.Diagnostics.HasErrors()
		if placed != c.fits || placed == dev.Diagnostics.HasErrors() || placed && node.Value != dev.Value {
			t.Errorf("%s: node encoding placed %v (value %d), device encoding %v (value %d), want %v", c.name, placed, node.Value, !dev.Diagnostics.HasErrors(), dev.Value, c.fits)
		}
		if placed && node.Stats.Encoding != "node" {
			t.Errorf("%s: placed by %s, want node", c.name, node.Stats.Encoding)
		}
	}
}
