package exec

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/topology"
)

// RayCluster is a live Ray cluster as the preflight compares it with the
// plan.
type RayCluster struct {
	Address string
	// Nodes are its live nodes; in RLinf's order when Ordered (topology's
	// rules over each raylet's RLINF_NODE_RANK, which the probe reads).
	Nodes   []model.Node
	Ordered bool
	// IDs are the Ray node ids by IP, the ones the driver pins actors to
	// (nil: the driver needs none, slime mode).
	IDs map[string]string
	// Shared are the addresses more than one raylet answered the probe
	// from, with their node ids: the preflight refuses them.
	Shared map[string][]string
}

// RayClusterOf is the cluster as topology.DiscoverRay read it with the
// probe and RLinf's order: the one order rule, topology's, in Go.
func RayClusterOf(address string, live *topology.RayLive) RayCluster {
	c := RayCluster{Address: address, Ordered: true, IDs: map[string]string{}}
	ids := slices.Sorted(maps.Keys(live.Facts))
	for _, id := range ids {
		ip := live.Facts[id].IP
		switch prev, ok := c.IDs[ip]; {
		case ip == "":
		case ok:
			if c.Shared == nil {
				c.Shared = map[string][]string{}
			}
			if len(c.Shared[ip]) == 0 {
				c.Shared[ip] = []string{prev}
			}
			c.Shared[ip] = append(c.Shared[ip], id)
		default:
			c.IDs[ip] = id
		}
	}
	if live.Inventory != nil {
		c.Nodes = liveNodes(live.Inventory.Nodes)
	}
	return c
}

// RayNodeSetOf is the cluster as topology.DiscoverRay read it with
// NodeSet (slime mode): the set of live nodes, no order, no node ids
// (slime sorts its bundles itself and never reads RLINF_NODE_RANK).
func RayNodeSetOf(address string, live *topology.RayLive) RayCluster {
	c := RayCluster{Address: address}
	if live.Inventory != nil {
		c.Nodes = liveNodes(live.Inventory.Nodes)
	}
	return c
}

func liveNodes(nodes []model.Node) []model.Node {
	var out []model.Node
	for _, n := range nodes {
		if !n.Down {
			out = append(out, n)
		}
	}
	return out
}

// RayPreflight compares the live cluster with the plan's nodes: the same
// addresses with the same GPU counts and, when the cluster is Ordered, in
// the same order. A difference is an error located at the plan's node
// (its inventory entry) or at fallback; nothing may start. It returns the
// nodes as the driver pins to them.
func RayPreflight(c RayCluster, plan []model.Node, fallback model.Span) ([]RayNodeSpec, model.Diagnostics) {
	if out := sharedAddresses(c, plan, fallback); len(out) > 0 {
		return nil, out
	}
	out := rayNodeSet(c, plan, fallback)
	if len(out) > 0 {
		return nil, out
	}
	specs := make([]RayNodeSpec, len(plan))
	for i, n := range plan {
		at := nodeSpan(n, fallback)
		if c.Ordered && c.Nodes[i].IP != n.IP {
			return nil, model.Diagnostics{rayNodesDiag(at, fmt.Sprintf("node %d is %s in the plan, but RLinf numbers the Ray cluster's nodes %s (by RLINF_NODE_RANK where the nodes set it, else the head node first and then IPs compared as strings): its node %d is %s",
				i, n.IP, numbered(c.Nodes), i, c.Nodes[i].IP),
				"plan against the live cluster (--inventory ray://HEAD:PORT numbers the nodes as RLinf does), or list the inventory's nodes in RLinf's order")}
		}
		specs[i] = RayNodeSpec{IP: n.IP, GPUs: n.AccelCount}
		if c.IDs != nil {
			if specs[i].NodeID = c.IDs[n.IP]; specs[i].NodeID == "" {
				out = append(out, rayNodesDiag(at, fmt.Sprintf("node %d (%s) did not answer the probe: rlsolve cannot tell its RLINF_NODE_RANK or pin workers to it", i, n.IP), "check the node's raylet, then launch again"))
			}
		}
	}
	if len(out) > 0 {
		return nil, out
	}
	return specs, nil
}

// rayNodeSet checks that the plan's nodes and the live ones are the same
// addresses with the same GPU counts, whatever their order.
func rayNodeSet(c RayCluster, plan []model.Node, fallback model.Span) model.Diagnostics {
	live := map[string]int{}
	var liveIPs []string
	for _, n := range c.Nodes {
		live[n.IP] = n.AccelCount
		liveIPs = append(liveIPs, n.IP)
	}
	var out model.Diagnostics
	seen := map[string]int{}
	for i, n := range plan {
		at := nodeSpan(n, fallback)
		gpus, ok := live[n.IP]
		prev, dup := seen[n.IP]
		switch {
		case n.IP == "":
			out = append(out, rayNodesDiag(at, fmt.Sprintf("node %d has no IP address, which the Ray backend matches to the cluster's nodes", i),
				"give every node its ip: in the inventory, or plan against the live cluster with --inventory ray://HEAD:PORT"))
		case dup:
			out = append(out, rayNodesDiag(at, fmt.Sprintf("node %d has node %d's IP address (%s); the Ray backend tells nodes apart by address", i, prev, n.IP), ""))
		case !ok:
			out = append(out, rayNodesDiag(at, fmt.Sprintf("node %d (%s) is not a live node of the Ray cluster at %s (live: %s)", i, n.IP, c.Address, strings.Join(liveIPs, ", ")), ""))
		case gpus != n.AccelCount:
			out = append(out, rayNodesDiag(at, fmt.Sprintf("node %d (%s) has %d GPU(s) in the plan but %d in the Ray cluster", i, n.IP, n.AccelCount, gpus), ""))
		}
		if n.IP != "" && !dup {
			seen[n.IP] = i
		}
	}
	var extra []string
	for _, ip := range liveIPs {
		if _, ok := seen[ip]; !ok {
			extra = append(extra, ip)
		}
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		out = append(out, rayNodesDiag(fallback, fmt.Sprintf("the Ray cluster at %s has %d live node(s) the plan does not (%s); RLinf numbers every live node", c.Address, len(extra), strings.Join(extra, ", ")),
			"plan for every node of the cluster (num_nodes and the inventory), or launch on a cluster of the plan's nodes"))
	}
	return out
}

// sharedAddresses refuses a cluster with more than one live raylet on an
// address (a local multi-raylet cluster): RLinf numbers each raylet as a
// node, but the preflight, the plan and the driver's pins tell nodes apart
// by address, so the extra raylet would be neither checked nor told from
// the planned one. Located at the plan's node with that address, if any.
func sharedAddresses(c RayCluster, plan []model.Node, fallback model.Span) model.Diagnostics {
	shared := map[string][]string{}
	for ip, ids := range c.Shared {
		shared[ip] = ids
	}
	count := map[string]int{}
	for _, n := range c.Nodes {
		if count[n.IP]++; count[n.IP] == 2 && shared[n.IP] == nil {
			shared[n.IP] = []string{}
		}
	}
	var out model.Diagnostics
	for _, ip := range slices.Sorted(maps.Keys(shared)) {
		at := fallback
		if i := slices.IndexFunc(plan, func(n model.Node) bool { return n.IP == ip }); i >= 0 {
			at = nodeSpan(plan[i], fallback)
		}
		ids := ""
		if len(shared[ip]) > 0 {
			ids = " (node ids " + strings.Join(shared[ip], ", ") + ")"
		}
		out = append(out, rayNodesDiag(at, fmt.Sprintf("the Ray cluster at %s runs more than one raylet on %s%s: RLinf numbers each raylet as a node of its own, but rlsolve tells nodes apart by address and cannot pin workers to one of them", c.Address, ip, ids),
			"run one raylet per address (a test cluster: one network namespace per node, as scripts/ray-test-cluster.sh does), then launch again"))
	}
	return out
}

func nodeSpan(n model.Node, fallback model.Span) model.Span {
	if n.Span.File != "" {
		return n.Span
	}
	return fallback
}

// numbered lists nodes as "0=IP 1=IP ...".
func numbered(nodes []model.Node) string {
	parts := make([]string, len(nodes))
	for i, n := range nodes {
		parts[i] = fmt.Sprintf("%d=%s", i, n.IP)
	}
	return strings.Join(parts, " ")
}

func rayNodesDiag(at model.Span, summary, help string) model.Diagnostic {
	if help == "" {
		help = "plan against the live cluster (--inventory ray://HEAD:PORT), or fix the inventory to match it"
	}
	return model.Diagnostic{Code: model.CodeLaunchRayNodes, Severity: model.SeverityError, Primary: at, Summary: summary,
		PrimaryLabel: "this node", Help: []model.Fix{{Message: help}}}
}
