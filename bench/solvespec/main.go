// Command solvespec prints the requirement file of solve's benchmarks
// (internal/benchspec) for bench/solve.sh.
package main

import (
	"flag"
	"fmt"

	"github.com/rlsolve/rlsolve/internal/benchspec"
)

func main() {
	nodes := flag.Int("nodes", 128, "nodes of 8 GPUs")
	impossible := flag.Bool("impossible", false, "a spec that cannot be placed")
	flag.Parse()
	fmt.Print(benchspec.Solve(*nodes, *impossible))
}
