package rules

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// tpGroup is a set of GPUs that talk tensor-parallel: one worker holding
// several GPUs (a rollout engine, a multi-GPU process), or the actor ranks
// of one Megatron TP group.
type tpGroup struct {
	what    string // "worker 3", "TP group 1 (workers 2-3)"
	nodes   []int  // cluster node ranks, ascending, no repeats
	node    int
	devices []int // local device indices on node (when on one node)
}

// NVLinkWarnings returns RLS-W0601 for each component with a tensor-parallel
// group whose GPUs are not all NVLink peers of each other, as far as the
// inventory's device lists say (nodes without NVLink information are
// skipped). A group is a worker holding several accelerators (a
// model-parallel rollout engine, a Flexible or Packed process with several
// GPUs), or, under model-parallel placement, tensor_model_parallel_size
// consecutive actor workers (and inference workers with the inference TP
// size). A group that spans nodes has no NVLink at all.
func NVLinkWarnings(cfg *model.Config, plan *model.Plan, c *model.Cluster) model.Diagnostics {
	if cfg == nil || plan == nil || c == nil || !nvlinkKnown(c.Nodes) {
		return nil
	}
	var out model.Diagnostics
	peers := map[int]map[int]map[int]bool{} // per node, built once
	mp := plan.Mode == model.ModeCollocated || plan.Mode == model.ModeDisaggregated || plan.Mode == model.ModeAuto
	for i := range plan.Components {
		cp := &plan.Components[i]
		groups := workerGroups(cp)
		tpSpan := model.Span{}
		if mp {
			tp := 0
			switch cp.Name {
			case "actor":
				tp, tpSpan = cfg.ModelParallel.ActorTP.Value, cfg.ModelParallel.ActorTP.Span
			case "inference", "actor_inference":
				tp, tpSpan = cfg.ModelParallel.InferenceTP.Value, cfg.ModelParallel.InferenceTP.Span
			case "rollout":
				tpSpan = cfg.ModelParallel.RolloutTP.Span
			}
			if tp > 1 {
				groups = append(groups, rankGroups(cp, tp)...)
			}
		}
		var bad []string // the first few
		total, nbad := 0, 0
		for _, g := range groups {
			msg, known := checkNVLink(c, g, peers)
			if !known {
				continue
			}
			total++
			if msg != "" {
				nbad++
				if len(bad) < 4 {
					bad = append(bad, msg)
				}
			}
		}
		if nbad == 0 {
			continue
		}
		at := cfg.ComponentsSpan
		if cp.Entry >= 0 && cp.Entry < len(cfg.Components) {
			at = cfg.Components[cp.Entry].PlacementSpan
		}
		d := model.Diagnostic{Code: model.WarnTPNoNVLink, Severity: model.SeverityWarning, Primary: at,
			PrimaryLabel: fmt.Sprintf("%s's GPUs", cp.Name),
			Summary:      fmt.Sprintf("%s: %d of %d tensor-parallel group(s) span GPUs without NVLink between them: %s", cp.Name, nbad, total, bad[0]),
			Why:          "Tensor parallelism exchanges activations in every layer; between GPUs without NVLink that traffic goes over PCIe or the network, several times slower. The inventory's nvlink lists say which GPUs are connected.",
			Help:         []model.Fix{{Message: "place each tensor-parallel group on GPUs that are NVLink peers (see the devices' nvlink lists in the inventory), or lower the tensor-parallel size"}}}
		if tpSpan.Known() {
			d.Labels = []model.Label{{Span: tpSpan, Message: "tensor-parallel size"}}
		}
		if len(bad) > 1 {
			d.Why += fmt.Sprintf(" Also: %s.", strings.Join(bad[1:], "; "))
		}
		out = append(out, d)
	}
	return out
}

// nvlinkKnown reports whether any node's devices carry NVLink information.
func nvlinkKnown(nodes []model.Node) bool {
	for i := range nodes {
		for _, dv := range nodes[i].Devices {
			if dv.NVLinkKnown {
				return true
			}
		}
	}
	return false
}

// workerGroups are the component's workers that hold several accelerators.
func workerGroups(cp *model.ComponentPlan) []tpGroup {
	var gs []tpGroup
	for _, p := range cp.Placements.All() {
		if p.HardwareType != model.HardwareAccelerator || len(p.LocalHardwareRanks) < 2 {
			continue
		}
		gs = append(gs, tpGroup{what: "worker " + strconv.Itoa(p.Rank), nodes: []int{p.ClusterNodeRank}, node: p.ClusterNodeRank,
			devices: p.LocalHardwareRanks}) // At's slices are the caller's
	}
	return gs
}

// rankGroups are Megatron's TP groups: tp consecutive worker ranks, each
// worker on one GPU.
func rankGroups(cp *model.ComponentPlan, tp int) []tpGroup {
	var gs []tpGroup
	ps := &cp.Placements
	for start := 0; start+tp <= ps.Len(); start += tp {
		g := tpGroup{what: fmt.Sprintf("TP group %d (workers %d-%d)", start/tp, start, start+tp-1), node: ps.Node(start)}
		ok := true
		for j := start; j < start+tp; j++ {
			p := ps.At(j)
			if p.HardwareType != model.HardwareAccelerator || len(p.LocalHardwareRanks) != 1 {
				ok = false
				break
			}
			if !slices.Contains(g.nodes, p.ClusterNodeRank) {
				g.nodes = append(g.nodes, p.ClusterNodeRank)
				sort.Ints(g.nodes)
			}
			g.devices = append(g.devices, p.LocalHardwareRanks[0])
		}
		if ok {
			gs = append(gs, g)
		}
	}
	return gs
}

// checkNVLink says what is wrong with a group ("" when every pair of its
// GPUs is connected); known is false when the inventory does not say.
func checkNVLink(c *model.Cluster, g tpGroup, cache map[int]map[int]map[int]bool) (msg string, known bool) {
	for _, n := range g.nodes {
		if n < 0 || n >= len(c.Nodes) || !nodeNVLinkKnown(&c.Nodes[n]) {
			return "", false
		}
	}
	if len(g.nodes) > 1 {
		parts := make([]string, len(g.nodes))
		for i, n := range g.nodes {
			parts[i] = strconv.Itoa(n)
		}
		return fmt.Sprintf("%s spans nodes %s, and NVLink does not cross nodes", g.what, strings.Join(parts, ", ")), true
	}
	peers := cache[g.node]
	if peers == nil {
		peers = nodePeers(&c.Nodes[g.node])
		cache[g.node] = peers
	}
	for i, a := range g.devices {
		for _, b := range g.devices[i+1:] {
			if a != b && !peers[a][b] {
				return fmt.Sprintf("%s on node %d uses GPUs %s, but GPUs %d and %d are not NVLink peers", g.what, g.node, nvlinkDevices(g.devices), a, b), true
			}
		}
	}
	return "", true
}

// nodePeers is the node's NVLink adjacency, symmetric (a link listed on
// one side connects both).
func nodePeers(node *model.Node) map[int]map[int]bool {
	peers := map[int]map[int]bool{}
	for _, dv := range node.Devices {
		m := peers[dv.Index]
		if m == nil {
			m = map[int]bool{}
			peers[dv.Index] = m
		}
		for _, p := range dv.NVLinkPeers {
			m[p] = true
			if peers[p] == nil {
				peers[p] = map[int]bool{}
			}
			peers[p][dv.Index] = true
		}
	}
	return peers
}

// nodeNVLinkKnown: every device of the node says which peers it has.
func nodeNVLinkKnown(n *model.Node) bool {
	if len(n.Devices) == 0 {
		return false
	}
	for _, dv := range n.Devices {
		if !dv.NVLinkKnown {
			return false
		}
	}
	return true
}

func nvlinkDevices(l []int) string {
	parts := make([]string, len(l))
	for i, x := range l {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ",")
}
