package grammar

import (
	"fmt"

	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// components reads component_placement (semantics §2.2).
func (d *doc) components(cfg *model.Config, n *yaml.Node) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		d.errorf(model.CodeWrongType, d.span(n), "expected a mapping", "component_placement must be a mapping of component names to placements, but got %s", kindName(n))
		return
	}
	owner := map[string]model.Span{}
	for _, e := range d.mapping(n) {
		ce := model.ComponentEntry{KeySpan: d.keySpan(e.k)}
		kv, ok := d.str(e.k, "component name")
		if !ok {
			continue
		}
		for _, nm := range ParseNames(kv.py.str) {
			sp := kv.sub(nm.Off, nm.EndOff)
			if nm.Text == "" {
				d.warnf(model.WarnEmptyComponent, sp, "empty name", "component key %q names an empty component (a stray comma)", kv.py.str).Why =
					"RLinf splits the key on every comma and creates a component named \"\"; rlsolve ignores it."
				continue
			}
			if first, dup := owner[nm.Text]; dup {
				diag := d.errorf(model.CodeDuplicateComponent, sp, "placed again here", "component %s has two placements", nm.Text)
				diag.Labels = []model.Label{{Span: first, Message: "first placed here"}}
				continue
			}
			owner[nm.Text] = sp
			ce.Names = append(ce.Names, nm.Text)
			ce.NameSpans = append(ce.NameSpans, sp)
		}
		// Until the entry is read in full, its names count as broken.
		for _, nm := range ce.Names {
			cfg.MarkBroken(model.BrokenComponent, nm)
		}
		v := deref(e.v)
		placement := v
		switch v.Kind {
		case yaml.MappingNode:
			es := d.mapping(v)
			pe, has := lookup(es, "placement")
			if !has {
				d.errorf(model.CodeMissingField, d.span(v), "", "the placement of %s needs a `placement:` key", kv.py.str)
				continue
			}
			placement = deref(pe.v)
			if ge, has := lookup(es, "node_group"); has {
				d.nodeGroupValue(&ce, ge.v)
			}
		case yaml.SequenceNode:
			diag := d.errorf(model.CodeWrongType, d.span(v), "a YAML list", "the placement of %s is a YAML list; RLinf reads it as the string %q, which is not a placement", kv.py.str, pyListStr(v))
			diag.Help = []model.Fix{{Message: "write the placement as a string such as \"0-3\" or \"0,2,4\""}}
			continue
		}
		pv, ok := d.str(placement, "placement")
		ce.PlacementSpan = pv.span
		if ok {
			ce.Placement = pv.py.str
			ce.Segments, ok = d.segments(pv)
		}
		if !ok || len(ce.Names) == 0 {
			if len(ce.NodeGroups) > 0 && len(ce.Names) > 0 {
				ce.Invalid = true
				cfg.Components = append(cfg.Components, ce)
			}
			continue
		}
		for _, nm := range ce.Names {
			delete(cfg.Broken, model.Broken{Kind: model.BrokenComponent, Name: nm})
		}
		cfg.Components = append(cfg.Components, ce)
	}
}

// nodeGroupValue reads node_group: a label, a comma string, or a YAML list
// (D2: accepted, with a portability warning).
func (d *doc) nodeGroupValue(ce *model.ComponentEntry, n *yaml.Node) {
	n = deref(n)
	ce.NodeGroupSpan = d.span(n)
	if n.Kind == yaml.SequenceNode {
		var labels []string
		for _, item := range n.Content {
			v, ok := d.str(item, "node_group label")
			if !ok {
				return
			}
			labels = append(labels, v.py.str)
			ce.NodeGroups = append(ce.NodeGroups, v.py.str)
			ce.NodeGroupSpans = append(ce.NodeGroupSpans, v.span)
		}
		w := d.warnf(model.WarnNodeGroupList, ce.NodeGroupSpan, "a YAML list", "node_group is a YAML list; RLinf itself reads it as the label %q and fails", pyListStr(n))
		w.Why = "OmegaConf lists are not Python lists, so RLinf str()s the whole list into one label (D2). rlsolve reads it as the comma string."
		comma := ""
		for i, l := range labels {
			if i > 0 {
				comma += ","
			}
			comma += l
		}
		w.Help = []model.Fix{{Message: fmt.Sprintf("for RLinf, write the comma string: node_group: %q", comma),
			Edits: []model.Edit{{Span: ce.NodeGroupSpan, NewText: fmt.Sprintf("%q", comma)}}}}
		return
	}
	v, ok := d.str(n, "node_group")
	if !ok {
		return
	}
	for _, nm := range ParseNames(v.py.str) {
		ce.NodeGroups = append(ce.NodeGroups, nm.Text)
		ce.NodeGroupSpans = append(ce.NodeGroupSpans, v.sub(nm.Off, nm.EndOff))
	}
}

// segments parses a placement string into located segments and reports
// its syntax errors (semantics §2.3 steps 1, 3, 6 and 7).
func (d *doc) segments(v value) ([]model.Segment, bool) {
	parts, err := ParsePlacement(v.py.str, d.limits.MaxRankValue)
	if err != nil {
		d.errorf(err.DiagCode(), v.sub(err.Offset, err.Offset+err.Len), "", "%s", err.Msg)
		return nil, false
	}
	var segs []model.Segment
	ok := true
	for _, p := range parts {
		s := model.Segment{Span: v.sub(p.Off, p.EndOff)}
		if p.Res == nil {
			d.errorf(model.CodeEmptyRanks, s.Span, "no resource ranks", "placement part %q has no resource ranks before ':'", v.py.str[p.Off:p.EndOff])
			ok = false
			continue
		}
		s.ResSpan = v.sub(p.Res.Off, p.Res.EndOff)
		s.AllResources, s.ResStart, s.ResEnd = p.Res.All, p.Res.Start, p.Res.End
		if !s.AllResources && s.ResEnd < s.ResStart {
			d.errorf(model.CodeRankReversed, s.ResSpan, "end before start", "resource range %d-%d ends before it starts", s.ResStart, s.ResEnd).Help =
				[]model.Fix{{Message: fmt.Sprintf("write %d-%d", s.ResEnd, s.ResStart)}}
			ok = false
			continue
		}
		if p.HasColon {
			if p.Proc == nil {
				d.errorf(model.CodeEmptyRanks, s.Span, "no process ranks", "placement part %q has no process ranks after ':'", v.py.str[p.Off:p.EndOff])
				ok = false
				continue
			}
			s.HasProcesses = true
			s.ProcSpan = v.sub(p.Proc.Off, p.Proc.EndOff)
			s.ProcStart, s.ProcEnd = p.Proc.Start, p.Proc.End
			if s.ProcEnd < s.ProcStart {
				d.errorf(model.CodeRankReversed, s.ProcSpan, "end before start", "process range %d-%d ends before it starts", s.ProcStart, s.ProcEnd).Help =
					[]model.Fix{{Message: fmt.Sprintf("write %d-%d", s.ProcEnd, s.ProcStart)}}
				ok = false
				continue
			}
		}
		segs = append(segs, s)
	}
	if ok && len(segs) == 0 {
		d.errorf(model.CodeEmptyRanks, v.span, "empty", "placement %q names no resources", v.py.str)
		ok = false
	}
	return segs, ok
}

// pyListStr renders a YAML list as Python's str() of it, as RLinf sees it.
func pyListStr(n *yaml.Node) string {
	s := "["
	for i, c := range n.Content {
		if i > 0 {
			s += ", "
		}
		c = deref(c)
		if c.Kind != yaml.ScalarNode {
			s += "..."
			continue
		}
		pv := resolvePlain(c.Value)
		if c.Style != 0 || pv.kind == pyStr {
			s += "'" + c.Value + "'"
		} else {
			s += pv.str
		}
	}
	return s + "]"
}
