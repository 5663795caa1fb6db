package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// Warnings are what rlsolve says of a config that RLinf runs but that is
// probably not what its author meant, or that works differently from how it
// reads (decisions D4, D9, and the inventory). They never make a config
// invalid. ConfigWarnings need only the config and the inventory;
// PlanWarnings need the expanded plan of a valid config.

// ConfigWarnings are the warnings and notes on the config itself.
func ConfigWarnings(cfg *model.Config, inv *model.Inventory) model.Diagnostics {
	var ds model.Diagnostics
	nodes := inv.Nodes
	if cfg.NumNodes > 0 && len(nodes) < cfg.NumNodes {
		return nil // the inventory rule says why
	}
	if cfg.NumNodes > 0 && len(nodes) > cfg.NumNodes {
		ds.Notef(model.NoteInventoryExtra, cfg.NumNodesSpan, "", "the inventory (%s) has %d nodes; num_nodes uses the first %d", inventorySource(inv), len(nodes), cfg.NumNodes)
		nodes = nodes[:cfg.NumNodes]
	}
	robotCounts(&ds, cfg, nodes)
	processOffsets(&ds, cfg, model.NewCluster(&model.Inventory{Nodes: nodes}, cfg))
	return ds
}

func inventorySource(inv *model.Inventory) string {
	if inv.Source == "" {
		return "given"
	}
	return inv.Source
}

// robotCounts warns where the hardware.configs (of every group, as RLinf
// counts them) and the inventory give a node different robot counts: RLinf
// goes by the configs.
func robotCounts(ds *model.Diagnostics, cfg *model.Config, nodes []model.Node) {
	count := map[robotKey]int{}
	at := map[robotKey]model.Span{}
	var order []robotKey
	for _, rc := range robotConfigs(cfg) {
		if _, seen := count[rc.key]; !seen {
			order = append(order, rc.key)
			at[rc.key] = cfg.NodeGroups[rc.group].Hardware.TypeSpan
		}
		count[rc.key]++
	}
	for _, k := range order {
		if k.node < 0 || k.node >= len(nodes) {
			continue
		}
		if inv, known := nodes[k.node].Hardware[k.typ]; known && inv != count[k] {
			ds.Warnf(model.WarnRobotCount, at[k], fmt.Sprintf("%d configured on node %d", count[k], k.node),
				"node %d: hardware.configs list %d %s robot(s), the inventory says %d; RLinf goes by the configs",
				k.node, count[k], k.typ, inv)
		}
	}
}

// processOffsets warns where an entry's process ranks start above 0 (D4).
func processOffsets(ds *model.Diagnostics, cfg *model.Config, c *model.Cluster) {
	for ei := range cfg.Components {
		e := &cfg.Components[ei]
		if e.Invalid || len(e.Segments) == 0 || brokenLabels(cfg, ei) {
			continue
		}
		if r, _ := c.Resolve(e.NodeGroups); r == nil {
			continue
		}
		s := &e.Segments[0]
		if s.HasProcesses && s.ProcStart != 0 {
			ds.Warnf(model.WarnProcessOffset, s.ProcSpan, "does not start at 0", "%s: process ranks start at %d; RLinf renumbers them from 0", names(e), s.ProcStart).Why =
				"RLinf accepts this and relabels the workers 0.. (its docs say process ranks must start at 0) (D4)."
		}
	}
}

// PlanWarnings are the warnings on a valid config's plan: env_configs a
// worker will not get (D8), what model-parallel placement does differently
// from how the config reads (D9), and tensor-parallel groups without NVLink.
func PlanWarnings(cfg *model.Config, plan *model.Plan, c *model.Cluster) model.Diagnostics {
	var ds model.Diagnostics
	envNotApplied(&ds, cfg, plan)
	if plan.Mode == model.ModeCollocated || plan.Mode == model.ModeDisaggregated || plan.Mode == model.ModeAuto {
		mpWarnings(&ds, cfg, plan)
	}
	return append(ds, NVLinkWarnings(cfg, plan, c)...)
}

// envNotApplied warns when a worker placed through another label lands on
// a node whose group sets env_configs: RLinf applies them only to workers
// placed through that group's label (D8).
func envNotApplied(ds *model.Diagnostics, cfg *model.Config, plan *model.Plan) {
	type miss struct{ comp, group string }
	reported := map[miss]bool{}
	for _, cp := range plan.Components {
		for i := range cp.Placements.Len() {
			label, node := cp.Placements.Label(i), cp.Placements.Node(i)
			for gi := range cfg.NodeGroups {
				g := &cfg.NodeGroups[gi]
				if g.Label == label || reported[miss{cp.Name, g.Label}] {
					continue
				}
				ec := missedEnv(g, node)
				if ec == nil {
					continue
				}
				p := cp.Placements.At(i)
				reported[miss{cp.Name, g.Label}] = true
				e := &cfg.Components[cp.Entry]
				w := ds.Warnf(model.WarnEnvNotApplied, e.PlacementSpan, fmt.Sprintf("placed through %q", p.NodeGroupLabel),
					"%s worker %d runs on node %d but will not get %s from node group %q", cp.Name, p.Rank, p.ClusterNodeRank, strings.Join(envNames(ec), ", "), g.Label)
				w.Labels = []model.Label{{Span: ec.Span, Message: fmt.Sprintf("env_configs of %q", g.Label)}}
				w.Why = "RLinf applies a group's env_configs only to workers placed through that group's label (D8)."
				w.Help = []model.Fix{{Message: fmt.Sprintf("place %s with node_group: %q if it needs these settings", cp.Name, g.Label)}}
			}
		}
	}
}

// missedEnv is the first env_configs entry of g that sets something on node.
func missedEnv(g *model.NodeGroup, node int) *model.EnvConfig {
	for i := range g.EnvConfigs {
		ec := &g.EnvConfigs[i]
		if _, on := slices.BinarySearch(ec.NodeRanks, node); on && (len(ec.EnvVars) > 0 || ec.HasInterpreter) {
			return ec
		}
	}
	return nil
}

func envNames(ec *model.EnvConfig) []string {
	var out []string
	for _, v := range ec.EnvVars {
		out = append(out, v.Key)
	}
	if ec.HasInterpreter {
		out = append(out, "python_interpreter_path")
	}
	return out
}
