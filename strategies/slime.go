package strategies

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// PlanSlime expands a slime layout (../shared/spec/slime.md) on an
// inventory's GPUs in stable order: the placement group's bundles, actor
// rank r on stable bundle r, engine i on its block of bundles after the
// rollout offset (split per node when it spans whole nodes), and each
// engine's ports from its first node's cursor. Engines get their node from
// the stable order, never from arithmetic on ranks.
//
// The placement group is assumed to take the first GPUs of the stable order
// (Ray packs it; on a cluster larger than the layout it may choose others).
// The plan is nil when any error was found.

// SlimeOptions bound planning.
type SlimeOptions struct {
	// MaxBundles bounds the placement group (0: 4M).
	MaxBundles int
}

// SlimeResult is a slime plan with what it was made from.
type SlimeResult struct {
	Config   *model.SlimeConfig
	Topology *model.SlimeTopology
	Settings model.SlimeSettings
	Layout   *model.SlimeLayout
	// Plan has the components "actor" and "rollout" (as placed).
	Plan        *model.Plan
	Diagnostics model.Diagnostics
}

type slimePlanner struct {
	cfg   *model.SlimeConfig
	t     *model.SlimeTopology
	s     model.SlimeSettings
	diags model.Diagnostics
}

func (pl *slimePlanner) errAt(code string, at model.Span, label, format string, args ...any) *model.Diagnostic {
	pl.diags = append(pl.diags, model.Diagnostic{Code: code, Severity: model.SeverityError,
		Summary: fmt.Sprintf(format, args...), Primary: at, PrimaryLabel: label})
	return &pl.diags[len(pl.diags)-1]
}

// at is the span of a flag when given, else of the whole input.
func (pl *slimePlanner) at(keys ...model.SlimeKey) model.Span {
	for _, k := range keys {
		if v := pl.cfg.Values[k]; v.Set {
			return v.Span
		}
	}
	return pl.cfg.Span
}

// SlimeNodeName names a node for messages: "node 2 (10.0.0.3)".
func SlimeNodeName(t *model.SlimeTopology, pos int) string {
	n := t.Node(pos)
	if a := n.Address(); a != "" {
		return fmt.Sprintf("node %d (%s)", n.Rank, a)
	}
	return fmt.Sprintf("node %d", n.Rank)
}

// PlanSlime checks and expands cfg on the stable order t.
func PlanSlime(cfg *model.SlimeConfig, t *model.SlimeTopology, opt SlimeOptions) *SlimeResult {
	if opt.MaxBundles == 0 {
		opt.MaxBundles = 4 << 20
	}
	pl := &slimePlanner{cfg: cfg, t: t, s: cfg.Settings(nil)}
	res := &SlimeResult{Config: cfg, Topology: t, Settings: pl.s}
	if !pl.check(opt) {
		res.Diagnostics = pl.diags
		return res
	}
	pl.sglangConfig()
	res.Layout = pl.layout()
	res.Plan = pl.plan(res.Layout)
	pl.rankArithmetic(res.Layout)
	pl.actorSpread(res.Layout)
	sortDiags(pl.diags)
	res.Diagnostics = pl.diags
	return res
}

// check runs slime's rules directly (the solver explains the same rules
// as minimal sets of flags); it reports whether the layout can be placed.
func (pl *slimePlanner) check(opt SlimeOptions) bool {
	s, t := pl.s, pl.t
	total, _ := s.Bundles()
	r, g := s.Rollout(), s.GPUsPerEngine
	if s.RolloutMissing() {
		d := pl.errAt(model.CodeSlimeMissing, pl.at(model.SlimeRolloutOnly), "the rollout needs a GPU count",
			"--rollout-num-gpus is required in %s mode", s.Mode())
		d.Why = "slime has no default for the rollout's GPUs unless actor and rollout are colocated (then it is the actor's)."
		if n := len(pl.cfg.Unexpanded); n > 0 {
			d.Why += fmt.Sprintf(" The pasted command leaves `%s` unexpanded (RLS-W0704): --rollout-num-gpus, --colocate or --debug-train-only may be in it.",
				strings.Join(pl.cfg.Unexpanded[:min(n, 3)], "`, `"))
		}
		fix := model.Fix{Message: "add `--rollout-num-gpus N` (a multiple of --rollout-num-gpus-per-engine), or `--colocate`"}
		if pl.cfg.Appendable {
			fix.Edits = []model.Edit{{Span: pl.cfg.End, NewText: fmt.Sprintf(" --rollout-num-gpus %d", max(g, 1))}}
		}
		d.Help = []model.Fix{fix}
	}
	if s.TrainOnly && s.RolloutOnly {
		d := pl.errAt(model.CodeSlimeModes, pl.at(model.SlimeRolloutOnly), "contradicts --debug-train-only",
			"--debug-train-only and --debug-rollout-only cannot both be given")
		d.Labels = []model.Label{{Span: pl.at(model.SlimeTrainOnly), Message: "train only"}}
	}
	if total > opt.MaxBundles {
		pl.errAt(model.CodeLimit, pl.cfg.Span, "too many GPUs", "the layout needs %d GPUs; rlsolve plans at most %d", total, opt.MaxBundles)
		return false
	}
	fits := total <= t.NumGPUs()
	if !fits {
		d := pl.errAt(model.CodeSlimeFit, pl.at(model.SlimeRolloutNumGPUs, model.SlimeActorNumNodes, model.SlimeActorGPUsPerNode), "",
			"the %s layout needs %d GPUs, but the inventory has %d", s.Mode(), total, t.NumGPUs())
		d.Why = "slime reserves one placement-group bundle {GPU: 1, CPU: 1} per GPU of the layout; Ray never schedules a group larger than the cluster."
	}
	divides := s.EnginesDivide()
	if !divides {
		pl.errAt(model.CodeSlimeEngineDivides, pl.at(model.SlimeRolloutNumGPUs, model.SlimeRolloutGPUsPerEngine), "",
			"rollout_num_gpus %d is not a multiple of rollout_num_gpus_per_engine %d", r, g)
	}
	if a, b, bad := s.SourcesConflict(); bad {
		pl.errAt(model.CodeSlimeGroups, pl.at(b), "", "slime refuses %s with %s", a.Info().Flag, b.Info().Flag)
	}
	if s.PrefillLeavesNoDecode() {
		pl.errAt(model.CodeSlimeGroups, pl.at(model.SlimePrefillServers), "",
			"--prefill-num-servers %d takes %d of the rollout's %d GPUs, leaving none to decode", s.PrefillServers, s.PrefillGPUs(), r)
	}
	if fits && divides {
		if st, bad := t.Straddler(s); bad {
			pl.errAt(model.CodeSlimeStraddle, pl.at(model.SlimeRolloutGPUsPerEngine, model.SlimeRolloutNumGPUs), "",
				"rollout engine %d (bundles %d-%d) crosses a node boundary without spanning whole nodes", st.Engine, st.Start, st.End-1)
		}
		if m, bad := t.NodeMismatch(s); bad {
			pl.errAt(model.CodeSlimeNodeSize, pl.at(model.SlimeNumGPUsPerNode), "",
				"--num-gpus-per-node is %d, but rollout engine %d (bundles %d-%d) runs on %s, which has %d GPUs", s.NumGPUsPerNode, m.Engine, m.Start, m.End-1, SlimeNodeName(t, m.Pos), t.Node(m.Pos).AccelCount)
		}
		eph, ov := t.PortProblems(s)
		if eph != nil {
			pl.errAt(model.CodeSlimePortRange, pl.at(model.SlimeDPSize, model.SlimeRolloutNumGPUs), "",
				"the rollout ports on %s run up to %d, into the ephemeral range %d-%d", SlimeNodeName(t, eph.Pos), eph.Last, model.SlimeEphemeralFirst, model.SlimeEphemeralLast)
		}
		if ov != nil {
			pl.errAt(model.CodeSlimePortOverlap, pl.at(model.SlimeRolloutNumGPUs), "",
				"%s and %s have the same address, so their engines' port blocks overlap from %d", SlimeNodeName(t, ov.Pos), SlimeNodeName(t, ov.Other), model.SlimePortStart)
		}
	}
	return !pl.diags.HasErrors()
}

// sglangConfig notes that --sglang-config's engines are not planned.
func (pl *slimePlanner) sglangConfig() {
	if !pl.s.SGLangConfig || pl.s.Rollout() <= 0 {
		return
	}
	v := pl.cfg.Values[model.SlimeSGLangConfig]
	pl.diags = append(pl.diags, model.Diagnostic{Code: model.NoteSlimeSGLangConfig, Severity: model.SeverityNote,
		Summary: fmt.Sprintf("the engines come from --sglang-config %s, which rlsolve does not read: the placement group and the actor are planned, the rollout's %d GPUs without engines or ports",
			orDash(v.Arg), pl.s.Rollout()),
		Primary: v.Span, PrimaryLabel: "defines the server groups"})
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

// rankArithmetic warns where slime's own arithmetic would take a worker's
// ports and dist_init_addr from another node than the one the stable order
// puts it on: slime groups each server group's workers by rank
// (local_rank // engines_per_node) and probes every member's ports on the
// node of the group's first worker.
func (pl *slimePlanner) rankArithmetic(l *model.SlimeLayout) {
	s, t := pl.s, pl.t
	npe, epn := s.NodesPerEngine(), s.EnginesPerNode()
	part := func(rank int) *model.SlimeEnginePart { return &l.Engines[rank/npe].Parts[rank%npe] }
	for _, g := range s.ServerGroups() {
		for w := range g.Workers {
			lead := g.RankOffset + w/epn*epn
			p, q := part(g.RankOffset+w), part(lead)
			if p.Pos == q.Pos {
				continue
			}
			e, le := (g.RankOffset+w)/npe, lead/npe
			at, label := pl.at(model.SlimeActorGPUsPerNode, model.SlimeActorNumNodes, model.SlimeRolloutGPUsPerEngine), "the rollout starts mid-node"
			why := fmt.Sprintf("here engine %d starts at GPU %d of %s.", le, q.GPUs[0], SlimeNodeName(t, q.Pos))
			if n := t.Node(q.Pos).AccelCount; n != s.NumGPUsPerNode {
				at, label = pl.at(model.SlimeNumGPUsPerNode), fmt.Sprintf("the nodes have %d GPUs", n)
				why = fmt.Sprintf("here %s has %d GPUs.", SlimeNodeName(t, q.Pos), n)
			}
			pl.diags = append(pl.diags, model.Diagnostic{Code: model.WarnSlimeRankNode, Severity: model.SeverityWarning,
				Summary: fmt.Sprintf("slime would probe engine %d's ports and dist_init_addr on engine %d's node, %s, but engine %d runs on %s; rlsolve's port plan uses the node it runs on",
					e, le, SlimeNodeName(t, q.Pos), e, SlimeNodeName(t, p.Pos)),
				Primary: at, PrimaryLabel: label,
				Why: fmt.Sprintf("slime derives a worker's node from its rank in its server group (rank // %d engines per node, from --num-gpus-per-node %d), which assumes every node has that many GPUs and its engines start at its first GPU; ",
					epn, s.NumGPUsPerNode) + why,
				Help: []model.Fix{{Message: "set --num-gpus-per-node to the nodes' GPU count and give the actor a multiple of it, so that the rollout starts on a fresh node, or use the ports of `rlsolve plan --output json`"}},
			})
			return
		}
	}
}

// actorSpread warns when the actor's bundles do not land on
// actor_num_nodes nodes with actor_num_gpus_per_node each.
func (pl *slimePlanner) actorSpread(l *model.SlimeLayout) {
	s := pl.s
	if !s.HasActor() {
		return
	}
	var order []int
	count := map[int]int{}
	for r := range s.ActorGPUs() {
		p := l.Bundles[r].Pos
		if count[p] == 0 {
			order = append(order, p)
		}
		count[p]++
	}
	even := len(order) == s.ActorNodes
	for _, p := range order {
		even = even && count[p] == s.ActorGPUsPerNode
	}
	if even {
		return
	}
	var parts []string
	for i, p := range order {
		if i == 4 {
			parts = append(parts, fmt.Sprintf("and %d more", len(order)-4))
			break
		}
		parts = append(parts, fmt.Sprintf("%d on %s", count[p], SlimeNodeName(pl.t, p)))
	}
	pl.diags = append(pl.diags, model.Diagnostic{Code: model.WarnSlimeActorSpread, Severity: model.SeverityWarning,
		Summary: fmt.Sprintf("the actor asks for %d node(s) x %d GPUs, but its %d ranks land on %d node(s): %s",
			s.ActorNodes, s.ActorGPUsPerNode, s.ActorGPUs(), len(order), strings.Join(parts, ", ")),
		Primary: pl.at(model.SlimeActorGPUsPerNode, model.SlimeActorNumNodes), PrimaryLabel: "sets a count, not a spread",
		Why:  "slime's placement group packs {GPU: 1} bundles in stable order; actor_num_nodes x actor_num_gpus_per_node only sets how many, so the ranks follow the nodes' real sizes.",
		Help: []model.Fix{{Message: "set --actor-num-gpus-per-node to the nodes' GPU count"}},
	})
}
