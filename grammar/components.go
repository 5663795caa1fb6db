package grammar

import (
	"fmt"
	"strings"

	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// components reads component_placement (semantics §2.2).
func (d *doc) components(cfg *model.Config, n *yaml.Node) {
	n = yamlpos.Deref(n)
	if n.Kind != yaml.MappingNode {
		d.wrongKind(n, "expected a mapping", "component_placement", "a mapping of component names to placements", yamlpos.KindName(n))
		return
	}
	owner := map[string]model.Span{}
	var empties []emptyName
	defer func() { d.emptyNames(empties) }()
	for _, e := range d.Mapping(n) {
		ce := model.ComponentEntry{KeySpan: d.Span(e.K)}
		kv, ok := d.Scalar(e.K, "component name")
		if !ok {
			continue
		}
		names := ParseNames(kv.Py.Str)
		for _, nm := range names {
			sp := kv.Sub(nm.Off, nm.EndOff)
			if nm.Text == "" {
				empties = append(empties, emptyName{key: kv, at: sp, names: names})
				continue
			}
			if first, dup := owner[nm.Text]; dup {
				diag := d.Errorf(model.CodeDuplicateComponent, sp, "placed again here", "component %s has two placements", nm.Text)
				diag.Labels = []model.Label{{Span: first, Message: "first placed here"}}
				if first.File != "" && first.File != sp.File {
					// Composed files: a user who meant to replace the
					// default placement is surprised by the merge.
					diag.Why = "Hydra merges mappings key by key: the composed files' component_placement keys all stay, so a key written differently from the default's does not replace it."
					diag.Help = []model.Fix{{Message: "to replace the default placement, write the same key as in " + first.File + ", or remove it there"}}
				}
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
		v := yamlpos.Deref(e.V)
		placement := v
		switch v.Kind {
		case yaml.MappingNode:
			es := d.Mapping(v)
			pe, has := yamlpos.Lookup(es, "placement")
			if isRequirement(es) && !has {
				d.requirementEntry(cfg, &ce, v, es, kv.Py.Str)
				continue
			}
			if isRequirement(es) {
				// Kept beside the placement: solve places it again.
				if ce.Kept, _ = d.requirement(kv.Py.Str, v, es); ce.Kept != nil {
					ce.Kept.Placed = d.BareTokenSpan(yamlpos.Deref(pe.V))
				}
			}
			if !has {
				diag := d.Errorf(model.CodeMissingField, d.Span(v), "", "the placement of %s needs a `placement:` key", kv.Py.Str)
				diag.Help = []model.Fix{{Message: "or say what it needs (gpus:, processes:, nodes:, with:, apart_from:) and run `rlsolve solve`"}}
				continue
			}
			placement = yamlpos.Deref(pe.V)
			if ge, has := yamlpos.Lookup(es, "node_group"); has {
				d.nodeGroupValue(&ce, ge.V)
			}
		case yaml.SequenceNode:
			diag := d.WrongType(v, "a YAML list", "the placement of "+kv.Py.Str, "a string", fmt.Sprintf("a YAML list, which RLinf reads as the string %q", pyListStr(v)))
			diag.Help = []model.Fix{{Message: "write the placement as a string such as \"0-3\" or \"0,2,4\""}}
			continue
		}
		pv, ok := d.Scalar(placement, "placement")
		ce.PlacementSpan = pv.Span
		if ok {
			ce.Placement = pv.Py.Str
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
	n = yamlpos.Deref(n)
	ce.NodeGroupSpan = d.Span(n)
	if n.Kind == yaml.SequenceNode {
		var labels []string
		for _, item := range n.Content {
			v, ok := d.Scalar(item, "node_group label")
			if !ok {
				return
			}
			labels = append(labels, v.Py.Str)
			ce.NodeGroups = append(ce.NodeGroups, v.Py.Str)
			ce.NodeGroupSpans = append(ce.NodeGroupSpans, v.Span)
		}
		w := d.Warnf(model.WarnNodeGroupList, ce.NodeGroupSpan, "a YAML list", "node_group is a YAML list; RLinf itself reads it as the label %q and fails", pyListStr(n))
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
	v, ok := d.Scalar(n, "node_group")
	if !ok {
		return
	}
	for _, nm := range ParseNames(v.Py.Str) {
		ce.NodeGroups = append(ce.NodeGroups, nm.Text)
		ce.NodeGroupSpans = append(ce.NodeGroupSpans, v.Sub(nm.Off, nm.EndOff))
	}
}

// segments parses a placement string into located segments and reports
// its syntax errors (semantics §2.3 steps 1, 3, 6 and 7).
func (d *doc) segments(v yamlpos.Value) ([]model.Segment, bool) {
	parts, err := ParsePlacement(v.Py.Str, d.limits.MaxRankValue)
	if err != nil {
		d.Record(nil, err.Diagnostic(v.Sub(err.Offset, err.Offset+err.Len), ""))
		return nil, false
	}
	var segs []model.Segment
	ok := true
	for _, p := range parts {
		s := model.Segment{Span: v.Sub(p.Off, p.EndOff)}
		if p.Res == nil {
			d.Errorf(model.CodeEmptyRanks, s.Span, "no resource ranks", "placement part %q has no resource ranks before ':'", v.Py.Str[p.Off:p.EndOff])
			ok = false
			continue
		}
		s.ResSpan = v.Sub(p.Res.Off, p.Res.EndOff)
		s.AllResources, s.ResStart, s.ResEnd = p.Res.All, p.Res.Start, p.Res.End
		if !s.AllResources && s.ResEnd < s.ResStart {
			d.Errorf(model.CodeRankReversed, s.ResSpan, "end before start", "resource range %d-%d ends before it starts", s.ResStart, s.ResEnd).Help =
				[]model.Fix{swapFix(v, s.ResSpan, s.ResEnd, s.ResStart)}
			ok = false
			continue
		}
		if p.HasColon {
			if p.Proc == nil {
				d.Errorf(model.CodeEmptyRanks, s.Span, "no process ranks", "placement part %q has no process ranks after ':'", v.Py.Str[p.Off:p.EndOff])
				ok = false
				continue
			}
			s.HasProcesses = true
			s.ProcSpan = v.Sub(p.Proc.Off, p.Proc.EndOff)
			s.ProcStart, s.ProcEnd = p.Proc.Start, p.Proc.End
			if s.ProcEnd < s.ProcStart {
				d.Errorf(model.CodeRankReversed, s.ProcSpan, "end before start", "process range %d-%d ends before it starts", s.ProcStart, s.ProcEnd).Help =
					[]model.Fix{swapFix(v, s.ProcSpan, s.ProcEnd, s.ProcStart)}
				ok = false
				continue
			}
		}
		segs = append(segs, s)
	}
	if ok && len(segs) == 0 {
		d.Errorf(model.CodeEmptyRanks, v.Span, "empty", "placement %q names no resources", v.Py.Str)
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
		c = yamlpos.Deref(c)
		if c.Kind != yaml.ScalarNode {
			s += "..."
			continue
		}
		pv := yamlpos.ResolvePlain(c.Value)
		if c.Style != 0 || pv.Kind == yamlpos.Str {
			s += "'" + c.Value + "'"
		} else {
			s += pv.Str
		}
	}
	return s + "]"
}

// emptyName is a component key's empty name (`actor,` names "" too).
type emptyName struct {
	key   yamlpos.Value
	at    model.Span
	names []Name
}

// emptyNames reports the empty component names of component_placement
// (D14): RLinf creates a component named "", so one is harmless and
// dropped with a warning, while a second fails when RLinf places them
// ("Component  has multiple placements defined."): an error at both.
func (d *doc) emptyNames(empties []emptyName) {
	if len(empties) == 1 {
		e := empties[0]
		d.Warnf(model.WarnEmptyComponent, e.at, "empty name", "component key %q names an empty component (a stray comma)", e.key.Py.Str).Why =
			"RLinf splits the key on every comma and creates a component named \"\"; rlsolve ignores it."
		return
	}
	for i, e := range empties {
		if i == 0 {
			continue
		}
		first := empties[0]
		diag := d.Errorf(model.CodeDuplicateComponent, e.at, "an empty name again",
			"component keys %q and %q both name the empty component \"\"", first.key.Py.Str, e.key.Py.Str)
		diag.Labels = []model.Label{{Span: first.at, Message: "the first empty name"}}
		diag.Why = "RLinf splits each key on every comma and strips the names, so a stray comma names a component \"\"; two of them fail when RLinf places the components (D14)."
		if fix, ok := d.dropEmpty(e); ok {
			diag.Help = []model.Fix{fix}
		}
	}
}

// dropEmpty is the fix that writes a key without its empty names.
func (d *doc) dropEmpty(e emptyName) (model.Fix, bool) {
	var kept []string
	for _, nm := range e.names {
		if nm.Text != "" {
			kept = append(kept, nm.Text)
		}
	}
	if sp := d.Span(e.key.Node); len(kept) == 0 || e.key.Node == nil || sp.EndLine != sp.Line || sp.EndCol-sp.Col != len(e.key.Node.Value) {
		return model.Fix{}, false // the key's text is not where its span is
	}
	text := strings.Join(kept, ",")
	if yamlpos.Quoted(e.key.Node) {
		text = fmt.Sprintf("%q", text)
	}
	return model.Fix{Message: fmt.Sprintf("drop the stray comma: `%s`", text),
		Edits: []model.Edit{{Span: d.TokenSpan(e.key.Node), NewText: text}}}, true
}

// swapFix writes a reversed range the right way round: an edit of the
// range when the value is the source text (not an interpolation's result).
func swapFix(v yamlpos.Value, at model.Span, start, end int) model.Fix {
	text := fmt.Sprintf("%d-%d", start, end)
	f := model.Fix{Message: "write " + text}
	if v.Exact {
		f.Edits = []model.Edit{{Span: at, NewText: text}}
	}
	return f
}
