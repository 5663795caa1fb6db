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
}
