package exec

import (
	"fmt"
	"slices"

	"github.com/rlsolve/rlsolve/model"
)

// NeedHostNames reports, as RLS-E0901, every node that runs one of the
// job's workers but has no host name, which the Slurm backend places
// tasks by. nodes are the plan's cluster nodes; fallback is where to point
// for a node the inventory file does not describe (the config's
// num_nodes).
func NeedHostNames(job *Job, nodes []model.Node, fallback model.Span) model.Diagnostics {
	missing := map[int][]string{}
	for _, w := range job.workers() {
		if w.Host == "" {
			missing[w.Node] = append(missing[w.Node], w.Name())
		}
	}
	order := make([]int, 0, len(missing))
	for n := range missing {
		order = append(order, n)
	}
	slices.Sort(order)
	var ds model.Diagnostics
	for _, n := range order {
		at := fallback
		if n < len(nodes) && nodes[n].Span.File != "" {
			at = nodes[n].Span
		}
		ws := missing[n]
		ds = append(ds, model.Diagnostic{Code: model.CodeLaunchNoHost, Severity: model.SeverityError, Primary: at,
			Summary:      fmt.Sprintf("node %d has no host name, but the Slurm backend must place %d worker(s) there (%s)", n, len(ws), ws[0]),
			PrimaryLabel: fmt.Sprintf("node %d", n),
			Help:         []model.Fix{{Message: "give the node its Slurm node name in the inventory (hostname: NAME, or hostnames: n[1-4] for a range)"}}})
	}
	return ds
}
