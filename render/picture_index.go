package render

// The picture is streamed as the JSON plan is: nothing is held per
// worker. A first pass over the nodes lays out each node's row and groups
// identical consecutive rows into runs, keeping only the runs; writing
// lays each row out again from the placements. nodeIndex is what lets a
// row be built alone: the runs of workers on each node.

// workerRun is consecutive placements of one component on one node: from
// (inclusive) to (exclusive), and the picture's id of the first.
type workerRun struct {
	ci, from, to, id, node int32
}

// nodeIndex lists each node's worker runs, components in order, then
// placements in order (the order the rows take their workers in).
type nodeIndex struct {
	start []int32 // node n's runs are runs[start[n]:start[n+1]]
	runs  []workerRun
}

func (x *nodeIndex) on(n int) []workerRun { return x.runs[x.start[n]:x.start[n+1]] }

// wref is a worker's component and placement index.
type wref struct{ ci, pi int }

// indexWorkers makes the components (with the nodes they are on), the
// node index, and numbers the workers: components in order, placements
// in order, those on a node the cluster lacks left out.
func (pic *picture) indexWorkers() {
	plan := pic.in.Plan
	var runs []workerRun
	count := make([]int32, pic.nodes+1)
	id := 0
	for ci := range plan.Components {
		cp := &plan.Components[ci]
		comp := component{name: cp.Name, color: paletteColor(ci), summary: componentSummary(cp), workers: cp.Placements.Len(), on: make([]bool, pic.nodes)}
		ps := &cp.Placements
		for pi := 0; pi < ps.Len(); {
			n, end := ps.Node(pi), pi+1
			for end < ps.Len() && ps.Node(end) == n {
				end++
			}
			if n >= 0 && n < pic.nodes {
				runs = append(runs, workerRun{ci: int32(ci), from: int32(pi), to: int32(end), id: int32(id), node: int32(n)})
				id += end - pi
				count[n+1]++
				comp.on[n] = true
			}
			pi = end
		}
		pic.comps = append(pic.comps, comp)
	}
	pic.workers = id
	for n := 1; n <= pic.nodes; n++ {
		count[n] += count[n-1]
	}
	pic.index = nodeIndex{start: count, runs: make([]workerRun, len(runs))}
	next := append([]int32(nil), count[:pic.nodes]...)
	for _, r := range runs {
		pic.index.runs[next[r.node]] = r
		next[r.node]++
	}
}

// nodeList is the nodes a component is on, ascending.
func (c *component) nodeList() []int {
	var out []int
	for n, on := range c.on {
		if on {
			out = append(out, n)
		}
	}
	return out
}

// worker is a worker's hover details, its environment computed now.
func (pic *picture) worker(ref wref) worker {
	return newWorker(pic.in, &pic.in.Plan.Components[ref.ci], ref.ci, ref.pi)
}
