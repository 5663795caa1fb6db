package exec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/topology"
)

// RayPreflight compares the Ray cluster's live nodes (rows as the State
// API lists them) with the plan's nodes: the same number, and the same
// addresses with the same GPU counts. A difference is an error located at
// the plan's node (its inventory entry) or at fallback; nothing may start.
// The order is the driver's to check: it reads each raylet's
// RLINF_NODE_RANK, which the State API does not show.
func RayPreflight(address string, rows []byte, plan []model.Node, fallback model.Span) model.Diagnostics {
	inv, ds, err := topology.ImportRayWith(address, rows, topology.RayOptions{RLinfOrder: true})
	if err != nil {
		return model.Diagnostics{rayNodesDiag(fallback, fmt.Sprintf("the Ray cluster at %s lists its nodes in a form rlsolve cannot read: %v", address, err), "")}
	}
	if inv == nil {
		return ds
	}
	live := map[string]int{}
	var liveIPs []string
	for _, n := range inv.Nodes {
		if !n.Down {
			live[n.IP] = n.AccelCount
			liveIPs = append(liveIPs, n.IP)
		}
	}
	var out model.Diagnostics
	seen := map[string]bool{}
	for i, n := range plan {
		at := fallback
		if n.Span.File != "" {
			at = n.Span
		}
		seen[n.IP] = true
		gpus, ok := live[n.IP]
		switch {
		case n.IP == "":
			out = append(out, rayNodesDiag(at, fmt.Sprintf("node %d has no IP address, which the Ray backend matches to the cluster's nodes", i),
				"give every node its ip: in the inventory, or plan against the live cluster with --inventory ray://HEAD:PORT"))
		case !ok:
			out = append(out, rayNodesDiag(at, fmt.Sprintf("node %d (%s) is not a live node of the Ray cluster at %s (live: %s)", i, n.IP, address, strings.Join(liveIPs, ", ")), ""))
		case gpus != n.AccelCount:
			out = append(out, rayNodesDiag(at, fmt.Sprintf("node %d (%s) has %d GPU(s) in the plan but %d in the Ray cluster", i, n.IP, n.AccelCount, gpus), ""))
		}
	}
	var extra []string
	for _, ip := range liveIPs {
		if !seen[ip] {
			extra = append(extra, ip)
		}
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		out = append(out, rayNodesDiag(fallback, fmt.Sprintf("the Ray cluster at %s has %d live node(s) the plan does not (%s); RLinf numbers every live node", address, len(extra), strings.Join(extra, ", ")),
			"plan for every node of the cluster (num_nodes and the inventory), or launch on a cluster of the plan's nodes"))
	}
	return out
}

func rayNodesDiag(at model.Span, summary, help string) model.Diagnostic {
	if help == "" {
		help = "plan against the live cluster (--inventory ray://HEAD:PORT), or fix the inventory to match it"
	}
	return model.Diagnostic{Code: model.CodeLaunchRayNodes, Severity: model.SeverityError, Primary: at, Summary: summary,
		PrimaryLabel: "this node", Help: []model.Fix{{Message: help}}}
}
