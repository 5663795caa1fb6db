package rules

import (
	"fmt"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// SlimeWarnings are what rlsolve says of a valid slime layout that slime
// runs differently from how it reads: engines whose ports slime would take
// on another node, an actor spread other than its flags say.
func SlimeWarnings(cfg *model.SlimeConfig, t *model.SlimeTopology, l *model.SlimeLayout) model.Diagnostics {
	s := &slimeSession{cfg: cfg, t: t}
	x := cfg.Settings(nil)
	var ds model.Diagnostics
	s.sglangConfig(&ds, x)
	s.rankArithmetic(&ds, x, l)
	s.actorSpread(&ds, x, l)
	return ds
}

// at is the span of the first given flag of keys, else of the whole input.
func (s *slimeSession) at(keys ...model.SlimeKey) model.Span {
	for _, k := range keys {
		if v := s.cfg.Values[k]; v.Set {
			return v.Span
		}
	}
	return s.cfg.Span
}

// rankArithmetic warns where slime's own arithmetic would take a worker's
// ports and dist_init_addr from another node than the one the stable order
// puts it on: slime groups each server group's workers by rank
// (local_rank // engines_per_node) and probes every member's ports on the
// node of the group's first worker.
func (s *slimeSession) rankArithmetic(ds *model.Diagnostics, x model.SlimeSettings, l *model.SlimeLayout) {
	t := s.t
	npe, epn := x.NodesPerEngine(), x.EnginesPerNode()
	part := func(rank int) *model.SlimeEnginePart { return &l.Engines[rank/npe].Parts[rank%npe] }
	for _, g := range x.ServerGroups() {
		for w := range g.Workers {
			lead := g.RankOffset + w/epn*epn
			p, q := part(g.RankOffset+w), part(lead)
			if p.Pos == q.Pos {
				continue
			}
			e, le := (g.RankOffset+w)/npe, lead/npe
			at, label := s.at(model.SlimeActorGPUsPerNode, model.SlimeActorNumNodes, model.SlimeRolloutGPUsPerEngine), "the rollout starts mid-node"
			why := fmt.Sprintf("here engine %d starts at GPU %d of %s.", le, q.GPUs[0], nodeName(t, q.Pos))
			if n := t.Node(q.Pos).AccelCount; n != x.NumGPUsPerNode {
				at, label = s.at(model.SlimeNumGPUsPerNode), fmt.Sprintf("the nodes have %d GPUs", n)
				why = fmt.Sprintf("here %s has %d GPUs.", nodeName(t, q.Pos), n)
			}
			*ds = append(*ds, model.Diagnostic{Code: model.WarnSlimeRankNode, Severity: model.SeverityWarning,
				Summary: fmt.Sprintf("slime would probe engine %d's ports and dist_init_addr on engine %d's node, %s, but engine %d runs on %s; rlsolve's port plan uses the node it runs on",
					e, le, nodeName(t, q.Pos), e, nodeName(t, p.Pos)),
				Primary: at, PrimaryLabel: label,
				Why: fmt.Sprintf("slime derives a worker's node from its rank in its server group (rank // %d engines per node, from --num-gpus-per-node %d), which assumes every node has that many GPUs and its engines start at its first GPU; ",
					epn, x.NumGPUsPerNode) + why,
				Help: []model.Fix{{Message: "set --num-gpus-per-node to the nodes' GPU count and give the actor a multiple of it, so that the rollout starts on a fresh node, or use the ports of `rlsolve plan --output json`"}},
			})
			return
		}
	}
}

// sglangConfig notes that --sglang-config's engines are not planned.
func (s *slimeSession) sglangConfig(ds *model.Diagnostics, x model.SlimeSettings) {
	if !x.SGLangConfig || x.Rollout() <= 0 {
		return
	}
	v := s.cfg.Values[model.SlimeSGLangConfig]
	arg := v.Arg
	if arg == "" {
		arg = "-"
	}
	ds.Notef(model.NoteSlimeSGLangConfig, v.Span, "defines the server groups",
		"the engines come from --sglang-config %s, which rlsolve does not read: the placement group and the actor are planned, the rollout's %d GPUs without engines or ports",
		arg, x.Rollout())
}

// actorSpread warns when the actor's bundles do not land on
// actor_num_nodes nodes with actor_num_gpus_per_node each.
func (s *slimeSession) actorSpread(ds *model.Diagnostics, x model.SlimeSettings, l *model.SlimeLayout) {
	if !x.HasActor() {
		return
	}
	var order []int
	count := map[int]int{}
	for r := range x.ActorGPUs() {
		p := l.Bundles[r].Pos
		if count[p] == 0 {
			order = append(order, p)
		}
		count[p]++
	}
	even := len(order) == x.ActorNodes
	for _, p := range order {
		even = even && count[p] == x.ActorGPUsPerNode
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
		parts = append(parts, fmt.Sprintf("%d on %s", count[p], nodeName(s.t, p)))
	}
	*ds = append(*ds, model.Diagnostic{Code: model.WarnSlimeActorSpread, Severity: model.SeverityWarning,
		Summary: fmt.Sprintf("the actor asks for %d node(s) x %d GPUs, but its %d ranks land on %d node(s): %s",
			x.ActorNodes, x.ActorGPUsPerNode, x.ActorGPUs(), len(order), strings.Join(parts, ", ")),
		Primary: s.at(model.SlimeActorGPUsPerNode, model.SlimeActorNumNodes), PrimaryLabel: "sets a count, not a spread",
		Why:  "slime's placement group packs {GPU: 1} bundles in stable order; actor_num_nodes x actor_num_gpus_per_node only sets how many, so the ranks follow the nodes' real sizes.",
		Help: []model.Fix{{Message: "set --actor-num-gpus-per-node to the nodes' GPU count"}},
	})
}
