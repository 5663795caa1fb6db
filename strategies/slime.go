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
	// Workers in rank order, group after group; an engine is NodesPerEngine
	// consecutive workers.
	c, npe := s.WorkerGPUs(), s.NodesPerEngine()
	for _, g := range s.ServerGroups() {
		for w := range g.Workers {
			rank, first := g.RankOffset+w, off+g.GPUOffset+w*c
			if rank%npe == 0 {
				l.Engines = append(l.Engines, model.SlimeEngine{Index: rank / npe, WorkerType: g.WorkerType})
			}
			part := model.SlimeEnginePart{Node: l.Bundles[first].Node, Pos: l.Bundles[first].Pos, Rank: rank}
			for b := first; b < first+c; b++ {
				part.Bundles = append(part.Bundles, b)
				part.GPUs = append(part.GPUs, l.Bundles[b].GPU)
			}
			e := &l.Engines[len(l.Engines)-1]
			e.Parts = append(e.Parts, part)
		}
	}
	pl.ports(l)
	return l
}

// ports gives every worker its ports in slime's order (model's PortPlan):
// HTTP, NCCL (and a prefill worker's bootstrap port) on its node, and each
// engine its dist_init_addr block on its first worker's node.
func (pl *slimePlanner) ports(l *model.SlimeLayout) {
	s, t := pl.s, pl.t
	groups, npe, block := s.ServerGroups(), s.NodesPerEngine(), s.DistBlock()
	t.PortPlan(s, func(np model.SlimeNodePorts) bool {
		g, blocks := groups[np.Group], 0
		for w := np.First; w < np.First+np.Count; w++ {
			rank, i := g.RankOffset+w, w-np.First
			e := &l.Engines[rank/npe]
			p := &e.Parts[rank%npe]
			p.HTTPPort = np.Base + i*g.FixedPorts()
			p.NCCLPort = p.HTTPPort + 1
			pl.portBlock(l, p, e.Index, "http", p.HTTPPort, p.HTTPPort)
			pl.portBlock(l, p, e.Index, "nccl", p.NCCLPort, p.NCCLPort)
			if g.WorkerType == model.SlimePrefill {
				p.BootstrapPort = p.HTTPPort + 2
				pl.portBlock(l, p, e.Index, "bootstrap", p.BootstrapPort, p.BootstrapPort)
			}
			if rank%npe != 0 {
				continue
			}
			k := i
			if npe > 1 {
				k, blocks = blocks, blocks+1
			}
			e.HTTPPort, e.NCCLPort = p.HTTPPort, p.NCCLPort
			e.DistFirst = np.Dist + k*block
			e.DistLast = e.DistFirst + block - 1
			if a := t.Node(p.Pos).Address(); a != "" {
				e.DistInitAddr = a + ":" + strconv.Itoa(e.DistFirst)
			}
			pl.portBlock(l, p, e.Index, "dist_init", e.DistFirst, e.DistLast)
		}
		return true
	})
}

func (pl *slimePlanner) portBlock(l *model.SlimeLayout, p *model.SlimeEnginePart, engine int, kind string, first, last int) {
	l.Ports = append(l.Ports, model.SlimePortBlock{Node: p.Node, Pos: p.Pos, Engine: engine, Kind: kind, First: first, Last: last})
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
		cp.Placements.Grow(n)
		for r := range n {
			b := l.Bundles[r]
			node := &pl.t.Nodes[b.Node]
			cp.HardwareRanks = append(cp.HardwareRanks, b.Index)
			cp.Placements.Append(&model.Placement{Rank: r, ClusterNodeRank: b.Node, LocalAcceleratorRank: b.GPU,
				VisibleAccelerators: []string{strconv.Itoa(b.GPU)}, IsolateAccelerator: true, LocalHardwareRanks: []int{b.GPU},
				NodeGroupLabel: "cluster", AcceleratorType: node.AcceleratorType(), HardwareType: model.HardwareAccelerator})
		}
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
				cp.Placements.Append(&model.Placement{Rank: p.Rank, ClusterNodeRank: p.Node, LocalAcceleratorRank: p.GPUs[0],
					VisibleAccelerators: visible[p.Pos], IsolateAccelerator: false, LocalHardwareRanks: p.GPUs,
					NodeGroupLabel: "cluster", AcceleratorType: node.AcceleratorType(), HardwareType: model.HardwareAccelerator})
			}
		}
		cp.RankMapWorldSize = cp.Placements.Len()
		plan.Components = append(plan.Components, cp)
	}
	return plan
}
