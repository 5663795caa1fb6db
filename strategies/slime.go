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
	divides := r <= 0 || g <= 0 || r%g == 0
	if !divides {
		pl.errAt(model.CodeSlimeEngineDivides, pl.at(model.SlimeRolloutNumGPUs, model.SlimeRolloutGPUsPerEngine), "",
			"rollout_num_gpus %d is not a multiple of rollout_num_gpus_per_engine %d", r, g)
	}
	if s.Mode() == model.SlimeColocateMode && s.RolloutSet && s.RolloutGPUs != s.ActorGPUs() {
		pl.errAt(model.CodeSlimeColocate, pl.at(model.SlimeColocate), "",
			"--colocate needs as many rollout GPUs as actor GPUs, but the actor has %d and --rollout-num-gpus is %d", s.ActorGPUs(), s.RolloutGPUs)
	}
	if fits {
		if pos, bad := t.WrongNodeSize(s); bad {
			pl.errAt(model.CodeSlimeNodeSize, pl.at(model.SlimeNumGPUsPerNode), "",
				"--num-gpus-per-node is %d, but the rollout runs on %s, which has %d GPUs", s.NumGPUsPerNode, SlimeNodeName(t, pos), t.Node(pos).AccelCount)
		}
	}
	if fits && divides {
		if st, bad := t.Straddler(s); bad {
			pl.errAt(model.CodeSlimeStraddle, pl.at(model.SlimeRolloutGPUsPerEngine, model.SlimeRolloutNumGPUs), "",
				"rollout engine %d (bundles %d-%d) crosses a node boundary without spanning whole nodes", st.Engine, st.Start, st.End-1)
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

// rankArithmetic warns where slime's own arithmetic would take an engine's
// ports and dist_init_addr from another node than the one the stable order
// puts it on: slime groups its rollout actors by rank (rank //
// engines_per_node) and probes every member's ports on the node of the
// group's first actor.
func (pl *slimePlanner) rankArithmetic(l *model.SlimeLayout) {
	s, t := pl.s, pl.t
	type part struct {
		engine, pos int
	}
	var parts []part
	for _, e := range l.Engines {
		for _, p := range e.Parts {
			parts = append(parts, part{e.Index, p.Pos})
		}
	}
	if len(parts) == 0 {
		return
	}
	g := min(s.GPUsPerEngine, s.NumGPUsPerNode)
	epn := max(1, min(s.NumGPUsPerNode, s.Rollout())/max(g, 1))
	for r, p := range parts {
		lead := parts[(r/epn)*epn]
		if lead.pos == p.pos {
			continue
		}
		_, local := t.Locate(l.RolloutOffset)
		pl.diags = append(pl.diags, model.Diagnostic{Code: model.WarnSlimeRankNode, Severity: model.SeverityWarning,
			Summary: fmt.Sprintf("slime would probe engine %d's ports and dist_init_addr on engine %d's node, %s, but engine %d runs on %s; rlsolve's port plan uses the node it runs on",
				p.engine, lead.engine, SlimeNodeName(t, lead.pos), p.engine, SlimeNodeName(t, p.pos)),
			Primary: pl.at(model.SlimeActorGPUsPerNode, model.SlimeActorNumNodes, model.SlimeRolloutGPUsPerEngine), PrimaryLabel: "the rollout starts mid-node",
			Why: fmt.Sprintf("slime derives an engine's node from its rank (rank // %d engines per node), which assumes every node's engines start at its first GPU; here the rollout starts at GPU %d of %s.",
				epn, local, SlimeNodeName(t, l.Bundles[l.RolloutOffset].Pos)),
			Help: []model.Fix{{Message: "give the actor a multiple of the node size in GPUs so that the rollout starts on a fresh node, or use the ports of `rlsolve plan --output json`"}},
		})
		return
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
