package diag

import "github.com/rlsolve/rlsolve/model"

func init() {
	explanations = append(explanations, Explanation{
		Code:  model.CodeLaunchNoHost,
		Title: "node without a host name for the Slurm backend",
		Text: "`rlsolve launch --backend slurm` places every worker with srun --distribution=arbitrary, " +
			"which takes one Slurm node name per task. rlsolve maps a worker's node rank to that name " +
			"through the inventory, so every node that runs a launched worker needs a hostname (or " +
			"hostnames: for a range) equal to its Slurm node name. The local backend does not need it.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: all
inventory:
  nodes:
    - rank: 0
      accelerators: {count: 8}
`,
	})
	explanations = append(explanations, Explanation{
		Code:  model.CodeLaunchRayNodes,
		Title: "the Ray cluster's live nodes are not the plan's",
		Text: "`rlsolve launch --backend ray` runs every worker on the node the plan names, and RLinf " +
			"numbers every live node of the cluster. Before anything starts, the live nodes (the " +
			"State API's list) must be the plan's: the same number, the same IP addresses, the same " +
			"GPU counts. The driver then checks their order with each raylet's RLINF_NODE_RANK. Plan " +
			"against the live cluster with --inventory ray://HEAD:PORT to make them agree.",
		Example: `cluster:
  num_nodes: 2
  component_placement:
    actor: all
inventory:
  nodes:
    - rank: 0
      ip: 10.0.0.1
      accelerators: {count: 8}
    - rank: 1
      ip: 10.0.0.9
      accelerators: {count: 8}
`,
	})
}
