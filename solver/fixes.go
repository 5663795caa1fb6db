package solver

import (
	"fmt"

	"github.com/rlsolve/rlsolve/model"
)

// candidateFix is an edit and its effect on the IR, kept only when solving
// the edited config shows the conflict gone and no new error.
type candidateFix struct {
	message string
	edit    func(cfg *model.Config) (model.Edit, bool)
}

func rangeStr(a, b int) string {
	if a == b {
		return fmt.Sprint(a)
	}
	return fmt.Sprintf("%d-%d", a, b)
}

// shrinkFix shrinks segment si's resources to end at newEnd.
func shrinkFix(ei, si, start, newEnd int) candidateFix {
	text := rangeStr(start, newEnd)
	return candidateFix{message: fmt.Sprintf("shrink the range to fit: `%s`", text), edit: func(cfg *model.Config) (model.Edit, bool) {
		sg := &cfg.Components[ei].Segments[si]
		sg.AllResources, sg.ResStart, sg.ResEnd = false, start, newEnd
		return model.Edit{Span: sg.ResSpan, NewText: text}, true
	}}
}

// moveFix moves segment si's resources to start at newStart.
func moveFix(ei, si, newStart, width int) candidateFix {
	text := rangeStr(newStart, newStart+width)
	return candidateFix{message: fmt.Sprintf("make the ranges disjoint: `%s`", text), edit: func(cfg *model.Config) (model.Edit, bool) {
		sg := &cfg.Components[ei].Segments[si]
		sg.AllResources, sg.ResStart, sg.ResEnd = false, newStart, newStart+width
		return model.Edit{Span: sg.ResSpan, NewText: text}, true
	}}
}

// renumberFix makes segment si's processes continue at newStart.
func renumberFix(ei, si, newStart, width int) candidateFix {
	text := rangeStr(newStart, newStart+width)
	return candidateFix{message: fmt.Sprintf("renumber the processes: `%s`", text), edit: func(cfg *model.Config) (model.Edit, bool) {
		sg := &cfg.Components[ei].Segments[si]
		if !sg.HasProcesses {
			return model.Edit{}, false
		}
		sg.ProcStart, sg.ProcEnd = newStart, newStart+width
		return model.Edit{Span: sg.ProcSpan, NewText: text}, true
	}}
}

// tpFixes proposes rollout TP sizes that divide the actor's.
func tpFixes(atp, rtp int) []candidateFix {
	var out []candidateFix
	for d := rtp - 1; d >= 1 && len(out) < 2; d-- {
		if atp%d == 0 {
			d := d
			out = append(out, candidateFix{message: fmt.Sprintf("use a rollout TP size that divides %d: %d", atp, d), edit: func(cfg *model.Config) (model.Edit, bool) {
				f := &cfg.ModelParallel.RolloutTP
				if !f.Set {
					return model.Edit{}, false
				}
				f.Value = d
				return model.Edit{Span: f.Span, NewText: fmt.Sprint(d)}, true
			}})
		}
	}
	return out
}

// moveAfterFix moves a component's GPUs right after another's, when they fit.
func (s *session) moveAfterFix(name string, other, mine []int, numGPUs int) candidateFix {
	start := other[len(other)-1] + 1
	ei := s.entryOf(name)
	return candidateFix{message: fmt.Sprintf("give %s its own GPUs: `%s`", name, rangeStr(start, start+len(mine)-1)), edit: func(cfg *model.Config) (model.Edit, bool) {
		if ei < 0 || len(cfg.Components[ei].Segments) != 1 || start+len(mine)-1 >= numGPUs || len(cfg.Components[ei].Names) != 1 {
			return model.Edit{}, false
		}
		sg := &cfg.Components[ei].Segments[0]
		if sg.HasProcesses {
			return model.Edit{}, false
		}
		sg.AllResources, sg.ResStart, sg.ResEnd = false, start, start+len(mine)-1
		return model.Edit{Span: sg.ResSpan, NewText: rangeStr(start, start+len(mine)-1)}, true
	}}
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
