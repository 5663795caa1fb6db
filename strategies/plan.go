package strategies

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// Mode selects how component placements are interpreted.
type Mode string

const (
	// ModeDetect picks model-parallel when the config has model-parallel
	// keys (actor/rollout TP sizes), else hybrid.
	ModeDetect        Mode = ""
	ModeHybrid        Mode = "hybrid"
	ModeModelParallel Mode = "model-parallel"
	// ModeBase is RLinf's plain ComponentPlacement (no placement mode).
	ModeBase Mode = "base"
)

// Options tune planning.
type Options struct {
	Mode              Mode
	MaxProcesses      int // per component; 0 means the default
	MaxTotalProcesses int // over all components; 0 means the default
}

// Result is a plan with the cluster it was made on and every diagnostic.
type Result struct {
	Plan        *model.Plan
	Cluster     *Cluster
	Diagnostics model.Diagnostics
}

type planner struct {
	cfg        *model.Config
	c          *Cluster
	opt        Options
	diags      model.Diagnostics
	totalProcs int
}

func (pl *planner) errAt(code string, at model.Span, label, format string, args ...any) *model.Diagnostic {
	pl.diags = append(pl.diags, model.Diagnostic{Code: code, Severity: model.SeverityError,
		Summary: fmt.Sprintf(format, args...), Primary: at, PrimaryLabel: label})
	return &pl.diags[len(pl.diags)-1]
}

func (pl *planner) warnAt(code string, at model.Span, label, format string, args ...any) *model.Diagnostic {
	pl.diags = append(pl.diags, model.Diagnostic{Code: code, Severity: model.SeverityWarning,
		Summary: fmt.Sprintf(format, args...), Primary: at, PrimaryLabel: label})
	return &pl.diags[len(pl.diags)-1]
}

// PlanConfig checks cfg against inv and expands every component. The plan
// is nil when any error was found; every problem is in Diagnostics.
func PlanConfig(cfg *model.Config, inv *model.Inventory, opt Options) *Result {
	if opt.MaxProcesses == 0 {
		opt.MaxProcesses = 1 << 20
	}
	if opt.MaxTotalProcesses == 0 {
		opt.MaxTotalProcesses = 2 << 20
	}
	pl := &planner{cfg: cfg, opt: opt}
	nodes := inv.Nodes
	if cfg.NumNodes > 0 && len(nodes) < cfg.NumNodes {
		d := pl.errAt(model.CodeInventoryNodes, cfg.NumNodesSpan, fmt.Sprintf("needs %d nodes", cfg.NumNodes),
			"num_nodes is %d, but the inventory (%s) has %d node(s)", cfg.NumNodes, invSource(inv), len(nodes))
		d.Why = "RLinf waits until num_nodes nodes have joined the Ray cluster; with fewer it never starts."
		return &Result{Diagnostics: pl.diags}
	}
	if cfg.NumNodes > 0 && len(nodes) > cfg.NumNodes {
		pl.warnAt(model.WarnInventoryExtra, cfg.NumNodesSpan, "", "the inventory (%s) has %d nodes; num_nodes uses the first %d", invSource(inv), len(nodes), cfg.NumNodes).Severity = model.SeverityNote
		nodes = nodes[:cfg.NumNodes]
	}
	pl.c = NewCluster(&model.Inventory{Nodes: nodes, Source: inv.Source}, cfg)
	pl.robotCounts(nodes)
	mode := opt.Mode
	if mode == ModeDetect {
		mode = ModeHybrid
		if cfg.ModelParallel.Present {
			mode = ModeModelParallel
		}
	}
	plan := &model.Plan{}
	var maps []*rankMap
	for i := range cfg.Components {
		maps = append(maps, pl.parseEntry(&cfg.Components[i]))
	}
	for i, rm := range maps {
		if rm == nil {
			continue
		}
		for _, name := range cfg.Components[i].Names {
			plan.Components = append(plan.Components, model.ComponentPlan{
				Name: name, Entry: i, RankMapWorldSize: rm.worldSize, HardwareRanks: rm.hwRanks,
				NodeGroups: rm.labels, Strategy: rm.strategy,
			})
		}
	}
	switch mode {
	case ModeHybrid:
		plan.Mode = model.ModeHybrid
	case ModeModelParallel:
		if !pl.diags.HasErrors() {
			plan.Mode = pl.modelParallel(plan, maps)
		}
	}
	if pl.diags.HasErrors() {
		return &Result{Cluster: pl.c, Diagnostics: pl.diags}
	}
	// Strategies shared by several names of one entry are placed once.
	type key struct {
		entry int
		s     string
	}
	done := map[key][]model.Placement{}
	for i := range plan.Components {
		cp := &plan.Components[i]
		k := key{cp.Entry, fmt.Sprintf("%v", cp.Strategy.Kind) + strategyKey(&cp.Strategy)}
		if ps, ok := done[k]; ok {
			cp.Placements = ps
			continue
		}
		ps, f := place(pl.c, &cp.Strategy)
		if f != nil {
			pl.placementFailure(cp, maps[cp.Entry], f)
			continue
		}
		cp.Placements = ps
		done[k] = ps
	}
	if pl.diags.HasErrors() {
		return &Result{Cluster: pl.c, Diagnostics: pl.diags}
	}
	pl.envNotApplied(plan)
	sortDiags(pl.diags)
	return &Result{Plan: plan, Cluster: pl.c, Diagnostics: pl.diags}
}

func strategyKey(s *model.Strategy) string {
	if s.Kind == model.StrategyPacked {
		return fmt.Sprintf("%d-%d/%d/%d", s.Start, s.End, s.HardwarePerProcess, s.Stride)
	}
	return ""
}

func invSource(inv *model.Inventory) string {
	if inv.Source == "" {
		return "given"
	}
	return inv.Source
}

// place runs a strategy record on the cluster (workers isolated, as
// RLinf's WorkerGroup launches them by default).
func place(c *Cluster, s *model.Strategy) ([]model.Placement, *Failure) {
	switch s.Kind {
	case model.StrategyPacked:
		return Packed{Start: s.Start, End: s.End, HardwarePerProcess: s.HardwarePerProcess, Stride: s.Stride, NodeGroups: s.NodeGroups}.Place(c, true)
	case model.StrategyFlexible:
		return Flexible{HardwareRanks: s.HardwareRanks, NodeGroups: s.NodeGroups}.Place(c, true)
	default:
		return Node{NodeRanks: s.NodeRanks, NodeGroups: s.NodeGroups}.Place(c, true)
	}
}

// placementFailure locates a launch-time failure (D5) at the placement part
// that produced the worker.
func (pl *planner) placementFailure(cp *model.ComponentPlan, rm *rankMap, f *Failure) {
	e := &pl.cfg.Components[cp.Entry]
	at, label := e.PlacementSpan, ""
	if f.Process >= 0 && rm != nil && len(rm.segs) > 0 && cp.Strategy.Kind != model.StrategyPacked {
		sg := rm.segOf(f.Process)
		at, label = sg.seg.Span, fmt.Sprintf("worker %d comes from here", f.Process)
	}
	d := pl.errAt(f.Code, at, label, "%s: %s", cp.Name, f.Msg)
	d.Why = f.Why
	if d.Why == "" {
		d.Why = "RLinf only finds this when it launches the workers (D5); rlsolve reports it now."
	}
	if f.Code == model.CodeNodeOrder && e.NodeGroupSpan.Known() {
		d.Labels = append(d.Labels, model.Label{Span: e.NodeGroupSpan, Message: "groups are numbered in this order"})
	}
}

// envNotApplied warns when a worker placed through another label lands on
// a node whose group sets env_configs: RLinf applies them only to workers
// placed through that group's label (D8).
func (pl *planner) envNotApplied(plan *model.Plan) {
	type miss struct {
		comp, group string
	}
	reported := map[miss]bool{}
	for _, cp := range plan.Components {
		for _, p := range cp.Placements {
			for gi := range pl.cfg.NodeGroups {
				g := &pl.cfg.NodeGroups[gi]
				if g.Label == p.NodeGroupLabel || len(g.EnvConfigs) == 0 || reported[miss{cp.Name, g.Label}] {
					continue
				}
				for _, ec := range g.EnvConfigs {
					if !containsInt(ec.NodeRanks, p.ClusterNodeRank) || (len(ec.EnvVars) == 0 && !ec.HasInterpreter) {
						continue
					}
					var names []string
					for _, v := range ec.EnvVars {
						names = append(names, v.Key)
					}
					if ec.HasInterpreter {
						names = append(names, "python_interpreter_path")
					}
					reported[miss{cp.Name, g.Label}] = true
					e := &pl.cfg.Components[cp.Entry]
					w := pl.warnAt(model.WarnEnvNotApplied, e.PlacementSpan, fmt.Sprintf("placed through %q", p.NodeGroupLabel),
						"%s worker %d runs on node %d but will not get %s from node group %q", cp.Name, p.Rank, p.ClusterNodeRank, strings.Join(names, ", "), g.Label)
					w.Labels = []model.Label{{Span: ec.Span, Message: fmt.Sprintf("env_configs of %q", g.Label)}}
					w.Why = "RLinf applies a group's env_configs only to workers placed through that group's label (D8)."
					w.Help = []model.Fix{{Message: fmt.Sprintf("place %s with node_group: %q if it needs these settings", cp.Name, g.Label)}}
					break
				}
			}
		}
	}
}

func containsInt(list []int, x int) bool {
	i := sort.SearchInts(list, x)
	return i < len(list) && list[i] == x
}

// sortDiags orders diagnostics by position, errors first on ties.
func sortDiags(ds model.Diagnostics) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i].Primary, ds[j].Primary
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// robotCounts warns where the hardware.configs (of every group, as RLinf
// counts them) and the inventory give a node different robot counts: RLinf
// goes by the configs.
func (pl *planner) robotCounts(nodes []model.Node) {
	type key struct {
		node int
		typ  string
	}
	count := map[key]int{}
	at := map[key]model.Span{}
	var order []key
	for gi := range pl.cfg.NodeGroups {
		g := &pl.cfg.NodeGroups[gi]
		if g.Hardware == nil {
			continue
		}
		for _, rc := range g.Hardware.Configs {
			k := key{rc.NodeRank, g.Hardware.Type}
			if _, seen := count[k]; !seen {
				order = append(order, k)
				at[k] = g.Hardware.TypeSpan
			}
			count[k]++
		}
	}
	for _, k := range order {
		if k.node < 0 || k.node >= len(nodes) {
			continue
		}
		if inv, known := nodes[k.node].Hardware[k.typ]; known && inv != count[k] {
			pl.warnAt(model.WarnRobotCount, at[k], fmt.Sprintf("%d configured on node %d", count[k], k.node),
				"node %d: hardware.configs list %d %s robot(s), the inventory says %d; RLinf goes by the configs",
				k.node, count[k], k.typ, inv)
		}
	}
}
