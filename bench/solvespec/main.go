// Command solvespec prints the requirement file of solve's benchmarks
// (internal/benchspec) for bench/solve.sh; with -components, a file of that
// many plain components of -gpus GPUs each, anywhere on the cluster (the
// many-components case of bench/scale.sh).
package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/rlsolve/rlsolve/internal/benchspec"
)

func main() {
	nodes := flag.Int("nodes", 128, "nodes of 8 GPUs")
	impossible := flag.Bool("impossible", false, "a spec that cannot be placed")
	components := flag.Int("components", 0, "plain components instead of the six of benchspec")
	gpus := flag.Int("gpus", 512, "GPUs of each plain component (-components)")
	flag.Parse()
	if *components > 0 {
		fmt.Print(plain(*nodes, *components, *gpus))
		return
	}
	fmt.Print(benchspec.Solve(*nodes, *impossible))
}

// plain is a cluster of nodes with n components of gpus GPUs each, none
// tied to a node group: every component may take any GPU.
func plain(nodes, n, gpus int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cluster:\n  num_nodes: %d\n  component_placement:\n", nodes)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "    c%d: {gpus: %d}\n", i, gpus)
	}
	return b.String()
}
