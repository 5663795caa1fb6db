package proptest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/topology"
)

// FuzzCheck runs the whole check pipeline (YAML, grammar, strategies,
// environments, GPU memory) on arbitrary files: it must never panic, and a
// plan it returns must have no errors.
func FuzzCheck(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "examples", "*", "*.yaml"))
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("cluster:\n  num_nodes: 2\n  component_placement:\n    actor: 0-7\n    agent: {node_group: node, placement: \"0-1:0-3\"}\n"))
	f.Add([]byte("num_nodes: 1\ncomponent_placement:\n  actor,rollout,reward: all\nactor: {model: {tensor_model_parallel_size: 4}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := grammar.DefaultLimits
		lim.MaxClusterNodes = 64
		lim.MaxProcesses, lim.MaxTotalProcesses = 4096, 8192
		cfg, _ := grammar.LoadConfig("fuzz.yaml", data, lim)
		if cfg == nil || cfg.NumNodes <= 0 {
			return
		}
		// GPUs of 40 GiB: a config that names a known model has its GPU
		// memory checked too.
		inv := topology.Uniform(cfg.NumNodes, 4, "fuzz")
		for i := range inv.Nodes {
			inv.Nodes[i].MemoryGiB = 40
		}
		o := pipeline.CheckBytes("fuzz.yaml", data, pipeline.Options{Inventory: inv, GPUsPerNode: -1, Limits: lim})
		if o.Internal {
			t.Fatalf("the solver accepted what expansion refuses: %v", o.Diagnostics)
		}
		if res := o.Result; res != nil {
			if o.Diagnostics.HasErrors() {
				t.Fatal("a plan came back with errors")
			}
			for i := range res.Plan.Components {
				cp := &res.Plan.Components[i]
				for j := range cp.Placements.Len() {
					_ = res.Cluster.Env(cp, j)
				}
			}
		}
	})
}
