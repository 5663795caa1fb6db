package pipeline_test

import (
	"fmt"

	"github.com/rlsolve/rlsolve/pipeline"
)

// CheckFile is `rlsolve check` and `rlsolve plan` as a library: the solver
// judges the config, and an accepted config comes back expanded into its
// workers (the README's library example).
func ExampleCheckFile() {
	o := pipeline.CheckFile("../examples/disaggregated-8node/train.yaml", pipeline.Options{GPUsPerNode: -1})
	if o.Failed() {
		fmt.Println(o.Diagnostics)
		return
	}
	for i := range o.Result.Plan.Components {
		cp := &o.Result.Plan.Components[i]
		last := cp.Placements.At(cp.Placements.Len() - 1)
		fmt.Printf("%s: %d workers, the last on node %d, GPUs %v\n", cp.Name, cp.Placements.Len(), last.ClusterNodeRank, last.VisibleAccelerators)
	}
	// Output:
	// rollout: 8 workers, the last on node 1, GPUs [6 7]
	// inference: 8 workers, the last on node 2, GPUs [7]
	// actor: 40 workers, the last on node 7, GPUs [7]
	// reward: 16 workers, the last on node 1, GPUs [7]
}
