package rules

import (
	"github.com/rlsolve/rlsolve/memory"
	"github.com/rlsolve/rlsolve/model"
)

// fix is a candidate fix of a memory error: the input with one setting
// changed; the solver keeps it when re-solving confirms it.
func (m *memRule) fix(fc memory.FixCandidate) Fix {
	return func() (model.Fix, *Set, bool) {
		set, ok := m.apply(fc)
		if !ok {
			return model.Fix{}, nil, false
		}
		return m.edit(fc), set, true
	}
}

// apply is the rule set of the input with the candidate's setting changed.
func (m *memRule) apply(fc memory.FixCandidate) (*Set, bool) {
	at := model.Span{}
	if fc.Set {
		at = fc.Span
	}
	return m.rebuild(fc.Key, fc.Value, at)
}

// edit is the fix as the user makes it: the value replaced where the key
// is written; a key not in the input is named by the message alone.
func (m *memRule) edit(fc memory.FixCandidate) model.Fix {
	fx := model.Fix{Message: fc.Message}
	if fc.Set && fc.Span.Known() {
		text, ok := fc.Value, true
		if m.editText != nil {
			text, ok = m.editText(fc.Key, fc.Value)
		}
		if ok {
			fx.Edits = []model.Edit{{Span: fc.Span, NewText: text}}
		}
	}
	return fx
}

// warnings are the estimates' findings of the input as written, each
// with the fixes that re-checking confirms.
func (m *memRule) warnings(ev *memEval) model.Diagnostics {
	var ds model.Diagnostics
	for _, f := range ev.findings {
		if f.Severity != model.SeverityWarning {
			continue
		}
		d := f.Diagnostic()
		d.Labels = append(d.Labels, m.capacity...)
		d.Help = m.verified(f)
		ds = append(ds, d)
	}
	return ds
}

// verified keeps up to three candidate fixes of a warning whose edited
// input holds every rule (memory errors included) and no longer has the
// warning (its code for its component): of the values proposed for one
// key, the first that works (the candidates come mildest first).
func (m *memRule) verified(f memory.Finding) []model.Fix {
	var out []model.Fix
	tried, fixed := map[string]bool{}, map[string]bool{}
	for _, fc := range f.Fixes {
		if len(out) == 3 || tried[fc.Key+"="+fc.Value] || fixed[fc.Key] {
			continue
		}
		tried[fc.Key+"="+fc.Value] = true
		set, ok := m.apply(fc)
		if !ok || !holds(set) || set.memory == nil {
			continue
		}
		ev := set.memory.eval(All)
		if ev == nil || ev.groups == nil {
			continue
		}
		gone := true
		for _, g := range ev.findings {
			gone = gone && !(g.Code == f.Code && g.Component == f.Component)
		}
		if gone {
			out = append(out, m.edit(fc))
			fixed[fc.Key] = true
		}
	}
	return out
}

// holds reports whether the input as written violates no rule: with every
// fact present, the solver has nothing to explain.
func holds(set *Set) bool {
	for _, in := range set.Rules {
		if in.Check(All) != nil {
			return false
		}
	}
	return true
}
