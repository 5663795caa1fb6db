package rules

import (
	"fmt"
	"slices"

	"github.com/rlsolve/rlsolve/internal/fuzzy"
	"github.com/rlsolve/rlsolve/model"
)

// fix wraps an edit of the config as a candidate fix: applied to a copy of
// the config, it gives the text edit and the copy's rule set.
func (b *builder) fix(message string, edit func(cfg *model.Config) (model.Edit, bool)) Fix {
	return func() (model.Fix, *Set, bool) {
		c := clone(b.cfg)
		e, ok := edit(c)
		if !ok {
			return model.Fix{}, nil, false
		}
		return model.Fix{Message: message, Edits: []model.Edit{e}}, b.rebuild(c), true
	}
}

// shrinkFix shrinks segment si's resources to end at newEnd.
func (b *builder) shrinkFix(ei, si, start, newEnd int) Fix {
	return b.rangeFix(ei, si, start, newEnd, "shrink the range to fit")
}

// rangeFix sets segment si's resources to start-end.
func (b *builder) rangeFix(ei, si, start, end int, why string) Fix {
	text := rangeStr(start, end)
	return b.fix(fmt.Sprintf("%s: `%s`", why, text), func(cfg *model.Config) (model.Edit, bool) {
		sg := &cfg.Components[ei].Segments[si]
		sg.AllResources, sg.ResStart, sg.ResEnd = false, start, end
		return model.Edit{Span: sg.ResSpan, NewText: text}, true
	})
}

// moveFix moves segment si's resources to start at newStart.
func (b *builder) moveFix(ei, si, newStart, width int) Fix {
	text := rangeStr(newStart, newStart+width)
	return b.fix(fmt.Sprintf("make the ranges disjoint: `%s`", text), func(cfg *model.Config) (model.Edit, bool) {
		sg := &cfg.Components[ei].Segments[si]
		sg.AllResources, sg.ResStart, sg.ResEnd = false, newStart, newStart+width
		return model.Edit{Span: sg.ResSpan, NewText: text}, true
	})
}

// renumberFix makes segment si's processes continue at newStart.
func (b *builder) renumberFix(ei, si, newStart, width int) Fix {
	text := rangeStr(newStart, newStart+width)
	return b.fix(fmt.Sprintf("renumber the processes: `%s`", text), func(cfg *model.Config) (model.Edit, bool) {
		sg := &cfg.Components[ei].Segments[si]
		if !sg.HasProcesses {
			return model.Edit{}, false
		}
		sg.ProcStart, sg.ProcEnd = newStart, newStart+width
		return model.Edit{Span: sg.ProcSpan, NewText: text}, true
	})
}

// tpFixes proposes rollout TP sizes that divide the actor's.
func (b *builder) tpFixes(atp, rtp int) []Fix {
	var out []Fix
	for d := rtp - 1; d >= 1 && len(out) < 2; d-- {
		if atp%d == 0 {
			out = append(out, b.sizeFix("rollout_tp", d, fmt.Sprintf("use a rollout TP size that divides %d: %d", atp, d)))
		}
	}
	return out
}

// actorTPFixes propose actor TP sizes that the rollout's divides, nearest
// first, within and dividing the actor's n GPUs.
func (b *builder) actorTPFixes(atp, rtp, n int) []Fix {
	var out []Fix
	for _, c := range []int{atp / rtp * rtp, (atp/rtp + 1) * rtp} {
		if c > 0 && c <= n && n%c == 0 {
			out = append(out, b.sizeFix("actor_tp", c, fmt.Sprintf("use an actor TP size that rollout TP %d divides: %d", rtp, c)))
		}
	}
	return out
}

// sizeFixes propose the largest sizes below v, down to 1, that divide n
// (a TP size within a component's n GPUs).
func (b *builder) sizeFixes(name string, v, n int) []Fix {
	var out []Fix
	for d := min(v-1, n); d >= 1 && len(out) < 2; d-- {
		if n%d == 0 {
			out = append(out, b.sizeFix(name, d, fmt.Sprintf("lower the %s to %d, which divides its %d GPUs", sizeWords[name], d, n)))
		}
	}
	return out
}

var sizeWords = map[string]string{"actor_tp": "actor TP size", "rollout_tp": "rollout TP size", "inference_tp": "inference TP size"}

// sizeFix sets a parallel size that the config writes to v.
func (b *builder) sizeFix(name string, v int, message string) Fix {
	return b.fix(message, func(cfg *model.Config) (model.Edit, bool) {
		mp := &cfg.ModelParallel
		f := map[string]*model.IntFact{"actor_tp": &mp.ActorTP, "actor_pp": &mp.ActorPP, "actor_cp": &mp.ActorCP,
			"rollout_tp": &mp.RolloutTP, "rollout_pp": &mp.RolloutPP, "inference_tp": &mp.InferenceTP}[name]
		if f == nil || !f.Set || !f.Span.Known() {
			return model.Edit{}, false
		}
		f.Value = v
		return model.Edit{Span: f.Span, NewText: fmt.Sprint(v)}, true
	})
}

// moveAfterFix moves a component's GPUs right after another's, when they fit.
func (b *builder) moveAfterFix(name string, other, mine []int, numGPUs int) Fix {
	start := other[len(other)-1] + 1
	ei := b.entryOf(name)
	return b.fix(fmt.Sprintf("give %s its own GPUs: `%s`", name, rangeStr(start, start+len(mine)-1)), func(cfg *model.Config) (model.Edit, bool) {
		if ei < 0 || len(cfg.Components[ei].Segments) != 1 || start+len(mine)-1 >= numGPUs || len(cfg.Components[ei].Names) != 1 {
			return model.Edit{}, false
		}
		sg := &cfg.Components[ei].Segments[0]
		if sg.HasProcesses {
			return model.Edit{}, false
		}
		sg.AllResources, sg.ResStart, sg.ResEnd = false, start, start+len(mine)-1
		return model.Edit{Span: sg.ResSpan, NewText: rangeStr(start, start+len(mine)-1)}, true
	})
}

// recomputeFix sets algorithm.recompute_logprobs to true, which the
// inference GPUs need.
func (b *builder) recomputeFix() Fix {
	return b.fix("recompute the log-probabilities, which the inference GPUs are for: `recompute_logprobs: true`", func(cfg *model.Config) (model.Edit, bool) {
		f := &cfg.ModelParallel.RecomputeLogprobs
		if !f.Set || !f.Span.Known() {
			return model.Edit{}, false
		}
		f.Value = true
		return model.Edit{Span: f.Span, NewText: "true"}, true
	})
}

// trimFix gives a component the GPUs it has that another does not, when
// they are one range (a partial overlap made disjoint).
func (b *builder) trimFix(name string, other, mine []int) (Fix, bool) {
	var rest []int
	for _, g := range mine {
		if !slices.Contains(other, g) {
			rest = append(rest, g)
		}
	}
	ei := b.entryOf(name)
	if len(rest) == 0 || last(rest)-rest[0]+1 != len(rest) || ei < 0 || len(b.cfg.Components[ei].Segments) != 1 ||
		b.cfg.Components[ei].Segments[0].HasProcesses || len(b.cfg.Components[ei].Names) != 1 {
		return nil, false
	}
	return b.rangeFix(ei, 0, rest[0], last(rest), fmt.Sprintf("keep %s off the shared GPUs", name)), true
}

// labelFix proposes the nearest existing label for a missing one.
func (b *builder) labelFix(ei int, missing string, cl *model.Cluster) (Fix, bool) {
	var labels []string
	for _, g := range cl.Groups {
		labels = append(labels, g.Label)
	}
	near := fuzzy.Nearest(missing, labels)
	if near == "" {
		return nil, false
	}
	return b.fix(fmt.Sprintf("did you mean `%s`?", near), func(cfg *model.Config) (model.Edit, bool) {
		e := &cfg.Components[ei]
		for j, l := range e.NodeGroups {
			if l == missing && j < len(e.NodeGroupSpans) {
				e.NodeGroups[j] = near
				return model.Edit{Span: e.NodeGroupSpans[j], NewText: near}, true
			}
		}
		return model.Edit{}, false
	}), true
}

// renameLabelFix gives the second of two groups with one label a label
// no group has.
func (b *builder) renameLabelFix(gi int) Fix {
	label := b.cfg.NodeGroups[gi].Label
	fresh := label
	for n := 2; b.cfg.Group(fresh) != nil || fresh == "cluster" || fresh == "node"; n++ {
		fresh = fmt.Sprintf("%s-%d", label, n)
	}
	return b.fix(fmt.Sprintf("give the second group a label of its own: `%s`", fresh), func(cfg *model.Config) (model.Edit, bool) {
		g := &cfg.NodeGroups[gi]
		g.Label = fresh
		return model.Edit{Span: g.LabelSpan, NewText: fresh}, g.LabelSpan.Known()
	})
}

// envRanksFix takes node_ranks out of env_configs[j] of group gi, when
// some remain.
func (b *builder) envRanksFix(gi, j int, drop []int) (Fix, bool) {
	var keep []int
	for _, r := range b.cfg.NodeGroups[gi].EnvConfigs[j].NodeRanks {
		if !slices.Contains(drop, r) {
			keep = append(keep, r)
		}
	}
	if len(keep) == 0 {
		return nil, false
	}
	text := model.CompactRanks(keep, ",")
	return b.fix(fmt.Sprintf("make the env_configs' nodes disjoint: `node_ranks: %s`", text), func(cfg *model.Config) (model.Edit, bool) {
		ec := &cfg.NodeGroups[gi].EnvConfigs[j]
		ec.NodeRanks = keep
		return model.Edit{Span: ec.RanksSpan, NewText: text}, ec.RanksSpan.Known()
	}), true
}

// envVarDeleteFix deletes env var k of env_configs[j] of group gi, when
// its line holds it alone.
func (b *builder) envVarDeleteFix(gi, j, k int) (Fix, bool) {
	v := b.cfg.NodeGroups[gi].EnvConfigs[j].EnvVars[k]
	if !v.ItemSpan.Known() {
		return nil, false
	}
	return b.fix(fmt.Sprintf("keep one setting per group: delete `%s: %s` (give nodes that need another value a node group of their own)", v.Key, v.Value),
		func(cfg *model.Config) (model.Edit, bool) {
			ec := &cfg.NodeGroups[gi].EnvConfigs[j]
			ec.EnvVars = slices.Delete(ec.EnvVars, k, k+1)
			return model.Edit{Span: v.ItemSpan}, true
		}), true
}

// clone copies what fixes edit: components with their segments, node
// groups with their env_configs, and the model-parallel sizes.
func clone(cfg *model.Config) *model.Config {
	c := *cfg
	c.Components = make([]model.ComponentEntry, len(cfg.Components))
	for i, e := range cfg.Components {
		e.Segments = append([]model.Segment(nil), e.Segments...)
		e.NodeGroups = append([]string(nil), e.NodeGroups...)
		e.Names = append([]string(nil), e.Names...) // the rename fix edits names
		c.Components[i] = e
	}
	c.NodeGroups = make([]model.NodeGroup, len(cfg.NodeGroups))
	for i, g := range cfg.NodeGroups {
		g.EnvConfigs = make([]model.EnvConfig, len(g.EnvConfigs))
		for j, ec := range cfg.NodeGroups[i].EnvConfigs {
			ec.NodeRanks = append([]int(nil), ec.NodeRanks...)
			ec.EnvVars = append([]model.EnvVar(nil), ec.EnvVars...)
			g.EnvConfigs[j] = ec
		}
		c.NodeGroups[i] = g
	}
	return &c
}
