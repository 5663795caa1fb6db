package suggest

import (
	"slices"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/topology"
)

func TestChooseCluster(t *testing.T) {
	file := topology.Uniform(2, 4, "file")
	inCfg := topology.Uniform(3, 2, "config")
	for _, c := range []struct {
		name        string
		numNodes    int
		inCfg, file *model.Inventory
		gpus, per   int
		wantGPUs    int
		wantNodes   []int
		note, err   string
	}{
		{"--inventory", 0, inCfg, file, 0, -1, 8, []int{4, 4}, "", ""},
		{"--inventory, its first GPUs", 0, nil, file, 6, -1, 6, []int{4, 2}, "", ""},
		{"the config's inventory", 2, inCfg, nil, 0, -1, 6, []int{2, 2, 2}, "", ""},
		{"--gpus-per-node before the config's inventory", 2, inCfg, nil, 8, 4, 8, []int{4, 4}, "", ""},
		{"num_nodes x assumed", 2, nil, nil, 0, -1, 16, []int{8, 8}, "planning for cluster.num_nodes 2 x 8 GPUs = 16 GPUs", ""},
		{"num_nodes x --gpus-per-node", 3, nil, nil, 0, 2, 6, []int{2, 2, 2}, "num_nodes 3 x 2 GPUs", ""},
		{"fewer GPUs than a node", 0, nil, nil, 4, -1, 4, []int{4}, "assuming 1 node(s) with 4 NVIDIA GPUs", ""},
		{"not whole nodes", 0, nil, nil, 12, -1, 0, nil, "", "12 GPUs are not whole nodes of 8 GPUs"},
		{"not whole given nodes", 0, nil, nil, 12, 5, 0, nil, "", "not whole nodes of 5"},
		{"no count", 0, nil, nil, 0, -1, 0, nil, "", "say how many GPUs"},
		{"nodes of no GPUs", 2, nil, nil, 0, 0, 0, nil, "", "at least 1"},
		{"more than the inventory", 0, nil, file, 9, -1, 0, nil, "", "fewer than the 9"},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := &Spec{NumNodes: c.numNodes, Inventory: c.inCfg}
			cl, notes, err := ChooseCluster(spec, c.file, c.gpus, c.per)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cl.GPUs != c.wantGPUs || !slices.Equal(cl.NodeSizes(), c.wantNodes) {
				t.Errorf("%d GPUs on %v, want %d on %v", cl.GPUs, cl.NodeSizes(), c.wantGPUs, c.wantNodes)
			}
			if got := strings.Join(notes, "; "); c.note == "" && got != "" || !strings.Contains(got, c.note) {
				t.Errorf("notes %q, want %q", got, c.note)
			}
		})
	}
}
