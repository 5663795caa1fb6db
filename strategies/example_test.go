package strategies_test

import (
	"fmt"

	"github.com/rlsolve/rlsolve/strategies"
	"github.com/rlsolve/rlsolve/topology"
)

// A strategy is usable on its own: RLinf's PackedPlacementStrategy over
// two 8-GPU nodes, two GPUs a process, four apart (the README's example).
func ExamplePacked_Place() {
	cl := strategies.NewCluster(topology.Uniform(2, 8, "two DGX nodes"), nil)
	ps, failure := strategies.Packed{Start: 0, End: 15, HardwarePerProcess: 2, Stride: 4}.Place(cl, true)
	if failure != nil {
		fmt.Println(failure.Msg)
		return
	}
	for _, p := range ps.All() {
		fmt.Printf("worker %d: node %d, CUDA_VISIBLE_DEVICES=%v, local rank %d of %d\n", p.Rank, p.ClusterNodeRank, p.VisibleAccelerators, p.LocalRank, p.LocalWorldSize)
	}
	// Output:
	// worker 0: node 0, CUDA_VISIBLE_DEVICES=[0 4], local rank 0 of 4
	// worker 1: node 0, CUDA_VISIBLE_DEVICES=[1 5], local rank 1 of 4
	// worker 2: node 0, CUDA_VISIBLE_DEVICES=[2 6], local rank 2 of 4
	// worker 3: node 0, CUDA_VISIBLE_DEVICES=[3 7], local rank 3 of 4
	// worker 4: node 1, CUDA_VISIBLE_DEVICES=[0 4], local rank 0 of 4
	// worker 5: node 1, CUDA_VISIBLE_DEVICES=[1 5], local rank 1 of 4
	// worker 6: node 1, CUDA_VISIBLE_DEVICES=[2 6], local rank 2 of 4
	// worker 7: node 1, CUDA_VISIBLE_DEVICES=[3 7], local rank 3 of 4
}
