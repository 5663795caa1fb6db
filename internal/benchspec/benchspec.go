// Package benchspec writes the requirement files solve's benchmarks place:
// six components on a heterogeneous cluster of nodes of 8 GPUs, scaled.
// The Go benchmarks and bench/solve.sh (whole process) read the same text.
package benchspec

import "fmt"

// Solve is the requirement file for nodes nodes of 8 GPUs: half a800, half
// 4090. Actor and reward share three quarters of a800; rollout (engines of
// 2 GPUs), inference and critic are on 4090; a CPU agent pool of 4 workers
// per node. Impossible puts inference on a800 as well, with nothing left.
func Solve(nodes int, impossible bool) string {
	half := nodes / 2
	gpus := half * 8
	inference, group := gpus/8, `"4090"`
	if impossible {
		inference, group = gpus, "a800"
	}
	return fmt.Sprintf(`cluster:
  num_nodes: %d
  node_groups:
    - {label: a800, node_ranks: 0-%d}
    - {label: "4090", node_ranks: %d-%d}
  component_placement:
    actor:     {gpus: %d, node_group: a800}
    reward:    {with: actor}
    rollout:   {gpus: %d, node_group: "4090", gpus_per_process: 2}
    inference: {gpus: %d, node_group: %s, apart_from: [rollout]}
    critic:    {gpus: %d, node_group: "4090"}
    agent:     {node_group: node, processes: %d}
`, nodes, half-1, half, nodes-1, gpus-gpus/8*2, gpus/2, inference, group, gpus/8, nodes*4)
}
