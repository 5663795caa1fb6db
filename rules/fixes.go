package rules

import (
	"fmt"

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
			d := d
			out = append(out, b.fix(fmt.Sprintf("use a rollout TP size that divides %d: %d", atp, d), func(cfg *model.Config) (model.Edit, bool) {
				f := &cfg.ModelParallel.RolloutTP
				if !f.Set {
					return model.Edit{}, false
				}
				f.Value = d
				return model.Edit{Span: f.Span, NewText: fmt.Sprint(d)}, true
			}))
		}
	}
	return out
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

// clone copies what fixes edit: components with their segments, and the
// model-parallel sizes.
func clone(cfg *model.Config) *model.Config {
	c := *cfg
	c.Components = make([]model.ComponentEntry, len(cfg.Components))
	for i, e := range cfg.Components {
		e.Segments = append([]model.Segment(nil), e.Segments...)
		e.NodeGroups = append([]string(nil), e.NodeGroups...)
		c.Components[i] = e
	}
	return &c
}
