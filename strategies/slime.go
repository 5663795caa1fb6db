package strategies

import (
	"strconv"

	"github.com/rlsolve/rlsolve/model"
)

// SlimeResult is a slime plan with what it was made from.
type SlimeResult struct {
	Config   *model.SlimeConfig
	Topology *model.SlimeTopology
	Settings model.SlimeSettings
	Layout   *model.SlimeLayout
	// Plan has the components "actor" and "rollout" (as placed).
	Plan *model.Plan
}

type slimePlanner struct {
	cfg *model.SlimeConfig
	t   *model.SlimeTopology
	s   model.SlimeSettings
}

// PlanSlime expands a slime layout (../shared/spec/slime.md) that the
// solver accepted (rules.Slime judged by solver.Check) on an inventory's
// GPUs in stable order: the placement group's bundles, actor rank r on
// stable bundle r, engine i on its block of bundles after the rollout
// offset (split per node when it spans whole nodes), and each engine's
// ports from its first node's cursor. Engines get their node from the
// stable order, never from arithmetic on ranks.
//
// The placement group is assumed to take the first GPUs of the stable order
// (Ray packs it; on a cluster larger than the layout it may choose others).
func PlanSlime(cfg *model.SlimeConfig, t *model.SlimeTopology) *SlimeResult {
	pl := &slimePlanner{cfg: cfg, t: t, s: cfg.Settings(nil)}
	res := &SlimeResult{Config: cfg, Topology: t, Settings: pl.s}
	res.Layout = pl.layout()
	res.Plan = pl.plan(res.Layout)
	return res
}

// layout expands bundles, engines and ports.
func (pl *slimePlanner) layout() *model.SlimeLayout {
	s, t := pl.s, pl.t
	total, off := s.Bundles()
	l := &model.SlimeLayout{Mode: s.Mode(), Settings: s, NumBundles: total, RolloutOffset: off}
	l.Bundles = make([]model.SlimeBundle, total)
	for b := range total {
		pos, local := t.Locate(b)
		l.Bundles[b] = model.SlimeBundle{Index: b, Node: t.Order[pos], Pos: pos, GPU: t.GPUID(pos, local)}
	}
	g := s.GPUsPerEngine
	cursor := map[int]int{}
	rank := 0
	for e := range s.Engines() {
		eng := model.SlimeEngine{Index: e}
		for b := off + e*g; b < off+(e+1)*g; b++ {
			bd := l.Bundles[b]
			if n := len(eng.Parts); n == 0 || eng.Parts[n-1].Pos != bd.Pos {
				eng.Parts = append(eng.Parts, model.SlimeEnginePart{Node: bd.Node, Pos: bd.Pos, Rank: rank})
				rank++
			}
			p := &eng.Parts[len(eng.Parts)-1]
			p.Bundles = append(p.Bundles, b)
			p.GPUs = append(p.GPUs, bd.GPU)
		}
		first := eng.Parts[0]
		c, ok := cursor[first.Pos]
		if !ok {
			c = model.SlimePortStart
		}
		eng.HTTPPort, eng.NCCLPort = c, c+1
		eng.DistFirst, eng.DistLast = c+2, c+s.PortsPerEngine()-1
		cursor[first.Pos] = c + s.PortsPerEngine()
		if a := t.Node(first.Pos).Address(); a != "" {
			eng.DistInitAddr = a + ":" + strconv.Itoa(eng.DistFirst)
		}
		for _, blk := range []struct {
			kind        string
			first, last int
		}{{"http", eng.HTTPPort, eng.HTTPPort}, {"nccl", eng.NCCLPort, eng.NCCLPort}, {"dist_init", eng.DistFirst, eng.DistLast}} {
			l.Ports = append(l.Ports, model.SlimePortBlock{Node: first.Node, Pos: first.Pos, Engine: e, Kind: blk.kind, First: blk.first, Last: blk.last})
		}
		l.Engines = append(l.Engines, eng)
	}
	return l
}

// nodeGPUIDs is the node's GPU ids in stable order, as strings.
func (pl *slimePlanner) nodeGPUIDs(pos int) []string {
	n := pl.t.Node(pos).AccelCount
	out := make([]string, n)
	for i := range n {
		out[i] = strconv.Itoa(pl.t.GPUID(pos, i))
	}
	return out
}

// plan turns the layout into placement records in RLinf's shape.
func (pl *slimePlanner) plan(l *model.SlimeLayout) *model.Plan {
	s := pl.s
	plan := &model.Plan{Mode: s.Mode().PlacementMode()}
	label := []string{"cluster"}
	if s.HasActor() {
		n := s.ActorGPUs()
		cp := model.ComponentPlan{Name: "actor", RankMapWorldSize: n, NodeGroups: label, Strategy: model.Strategy{Kind: model.StrategySlime}}
		cp.Placements = make([]model.Placement, n)
		for r := range n {
			b := l.Bundles[r]
			node := &pl.t.Nodes[b.Node]
			cp.HardwareRanks = append(cp.HardwareRanks, b.Index)
			cp.Placements[r] = model.Placement{Rank: r, ClusterNodeRank: b.Node, LocalAcceleratorRank: b.GPU,
				VisibleAccelerators: []string{strconv.Itoa(b.GPU)}, IsolateAccelerator: true, LocalHardwareRanks: []int{b.GPU},
				NodeGroupLabel: "cluster", AcceleratorType: node.AcceleratorType(), HardwareType: model.HardwareAccelerator}
		}
		finishRuns(cp.Placements, false)
		plan.Components = append(plan.Components, cp)
	}
	if len(l.Engines) > 0 {
		cp := model.ComponentPlan{Name: "rollout", NodeGroups: label, Strategy: model.Strategy{Kind: model.StrategySlime}}
		visible := map[int][]string{}
		for _, e := range l.Engines {
			for _, p := range e.Parts {
				if visible[p.Pos] == nil {
					visible[p.Pos] = pl.nodeGPUIDs(p.Pos)
				}
				node := &pl.t.Nodes[p.Node]
				cp.HardwareRanks = append(cp.HardwareRanks, p.Bundles...)
				cp.Placements = append(cp.Placements, model.Placement{Rank: p.Rank, ClusterNodeRank: p.Node, LocalAcceleratorRank: p.GPUs[0],
					VisibleAccelerators: visible[p.Pos], IsolateAccelerator: false, LocalHardwareRanks: p.GPUs,
					NodeGroupLabel: "cluster", AcceleratorType: node.AcceleratorType(), HardwareType: model.HardwareAccelerator})
			}
		}
		cp.RankMapWorldSize = len(cp.Placements)
		finishRuns(cp.Placements, false)
		plan.Components = append(plan.Components, cp)
	}
	return plan
}
