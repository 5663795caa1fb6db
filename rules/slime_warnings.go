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

// rankArithmetic warns where slime's own arithmetic would take an engine's
// ports and dist_init_addr from another node than the one the stable order
// puts it on: slime groups its rollout actors by rank (rank //
// engines_per_node) and probes every member's ports on the node of the
// group's first actor.
func (s *slimeSession) rankArithmetic(ds *model.Diagnostics, x model.SlimeSettings, l *model.SlimeLayout) {
	t := s.t
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
	g := min(x.GPUsPerEngine, x.NumGPUsPerNode)
	epn := max(1, min(x.NumGPUsPerNode, x.Rollout())/max(g, 1))
	for r, p := range parts {
		lead := parts[(r/epn)*epn]
		if lead.pos == p.pos {
			continue
		}
		_, local := t.Locate(l.RolloutOffset)
		*ds = append(*ds, model.Diagnostic{Code: model.WarnSlimeRankNode, Severity: model.SeverityWarning,
			Summary: fmt.Sprintf("slime would probe engine %d's ports and dist_init_addr on engine %d's node, %s, but engine %d runs on %s; rlsolve's port plan uses the node it runs on",
				p.engine, lead.engine, nodeName(t, lead.pos), p.engine, nodeName(t, p.pos)),
			Primary: s.at(model.SlimeActorGPUsPerNode, model.SlimeActorNumNodes, model.SlimeRolloutGPUsPerEngine), PrimaryLabel: "the rollout starts mid-node",
			Why: fmt.Sprintf("slime derives an engine's node from its rank (rank // %d engines per node), which assumes every node's engines start at its first GPU; here the rollout starts at GPU %d of %s.",
				epn, local, nodeName(t, l.Bundles[l.RolloutOffset].Pos)),
			Help: []model.Fix{{Message: "give the actor a multiple of the node size in GPUs so that the rollout starts on a fresh node, or use the ports of `rlsolve plan --output json`"}},
		})
		return
	}
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
