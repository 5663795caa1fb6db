package grammar

import (
	"slices"

	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// isRequirement reports whether a component's mapping states what it needs
// (any requirement key) rather than where it goes.
func isRequirement(es []yamlpos.Entry) bool {
	for _, e := range es {
		if slices.Contains(model.RequirementKeys, e.Key) {
			return true
		}
	}
	return false
}

// requirement reads a component's requirement mapping (design.md, "Placing
// (solve)"); ok is false when it cannot be used.
func (d *doc) requirement(name string, v *yaml.Node, es []yamlpos.Entry) (*model.Requirement, bool) {
	r := &model.Requirement{Span: d.Span(v)}
	r.Braced = v.Style&yaml.FlowStyle != 0
	what := "the requirement of " + name
	// A placement beside the requirement keys is what solve wrote, and
	// RLinf reads only the placement and node_group of such a mapping.
	valid := append([]string{"node_group", "placement"}, model.RequirementKeys...)
	ok := d.checkFields(es, valid, nil, r.Span, what, "rlsolve solve reads these keys; an unknown one would be silently lost.", "")
	for _, e := range es {
		if e.Key == "node_group" || e.Key == "placement" {
			continue
		}
		r.Keys = append(r.Keys, model.KeySpan{Key: e.Key, At: d.BareTokenSpan(e.K), Full: d.entrySpan(e)})
		ok = d.requirementKey(r, e, name) && ok
	}
	return r, ok
}

// requirementKey reads one requirement key into r.
func (d *doc) requirementKey(r *model.Requirement, e yamlpos.Entry, name string) bool {
	what := name + "." + e.Key
	switch e.Key {
	case "gpus", "processes", "gpus_per_process", "nodes":
		f := r.Count(e.Key)
		f.Key = e.Key
		if v := yamlpos.Deref(e.V); e.Key == "gpus" && v != nil && v.Kind == yaml.ScalarNode && v.Value == "auto" {
			r.Auto, f.Span = true, d.Span(v) // solve --objective cost chooses
			return true
		}
		return d.positiveIntAt(f, e.V, what)
	case "with":
		refs, ok := d.nameRefs(d.TokenSpan(e.K), e.V, what)
		if ok && len(refs) != 1 {
			d.Errorf(model.CodeRequirementInvalid, d.Span(e.V), "one component", "%s names %d components; it shares the devices of exactly one", what, len(refs))
			return false
		}
		if ok {
			r.With = refs[0]
		}
		return ok
	case "apart_from":
		refs, ok := d.nameRefs(d.TokenSpan(e.K), e.V, what)
		r.ApartFrom = refs
		return ok
	}
	return true // unknown keys are reported by checkFields
}

// nameRefs reads component names: one name, a comma string, or a YAML
// list; key is where the names are given.
func (d *doc) nameRefs(key model.Span, n *yaml.Node, what string) ([]model.NameRef, bool) {
	n = yamlpos.Deref(n)
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	var refs []model.NameRef
	for _, item := range items {
		if item = yamlpos.Deref(item); item.Kind == yaml.ScalarNode && item.ShortTag() == "!!null" {
			// A null may have no text to point at: the key is shown.
			d.Errorf(model.CodeRequirementInvalid, key, "", "%s names no component (null)", what)
			return nil, false
		}
		v, ok := d.Scalar(item, what)
		if !ok {
			return nil, false
		}
		for _, nm := range ParseNames(v.Py.Str) {
			if nm.Text == "" {
				d.Errorf(model.CodeRequirementInvalid, v.Sub(nm.Off, nm.EndOff), "empty name", "%s has an empty component name", what)
				return nil, false
			}
			refs = append(refs, model.NameRef{Name: nm.Text, Span: v.Sub(nm.Off, nm.EndOff)})
		}
	}
	if len(refs) == 0 {
		d.Errorf(model.CodeRequirementInvalid, d.Span(n), "no names", "%s names no component", what)
		return nil, false
	}
	return refs, true
}

// positiveIntAt reads a positive integer node into f.
func (d *doc) positiveIntAt(f *model.IntFact, n *yaml.Node, what string) bool {
	f.Span = d.Span(n)
	v, _, ok := d.Integer(n, what)
	if !ok {
		return false
	}
	if v < 1 {
		d.Errorf(model.CodeInvalidValue, f.Span, "must be at least 1", "%s must be a positive integer, but got %d", what, v)
		return false
	}
	f.Value, f.Set = v, true
	return true
}

// entrySpan covers `key: value` from the key's first character to the
// value's last, where a write-back replaces it.
func (d *doc) entrySpan(e yamlpos.Entry) model.Span {
	s := d.TokenSpan(e.K)
	end := d.lastSpan(yamlpos.Deref(e.V))
	if end.File == s.File && end.Known() && (end.EndLine > s.Line || end.EndLine == s.Line && end.EndCol > s.Col) {
		s.EndLine, s.EndCol = end.EndLine, end.EndCol
	}
	return s
}

// lastSpan is the span of a value's last token: the value itself for a
// scalar or a one-line flow collection, else its last item's. A flow
// collection over several lines ends after its last item, at a bracket
// whose position is not known: the span then ends before it, and a
// write-back must find only that bracket after it (it refuses then).
func (d *doc) lastSpan(n *yaml.Node) model.Span {
	if n.Kind == yaml.ScalarNode && n.Value == "" && n.Style == 0 {
		return model.Span{} // `key:` with no value: the entry is the key
	}
	if n.Kind == yaml.ScalarNode {
		return d.TokenSpan(n)
	}
	if len(n.Content) == 0 {
		return d.Span(n)
	}
	if n.Style&yaml.FlowStyle != 0 {
		if s := d.Span(n); s.EndLine == s.Line && s.EndCol-s.Col > 1 {
			return s
		}
	}
	return d.lastSpan(yamlpos.Deref(n.Content[len(n.Content)-1]))
}

// requirementEntry reads a component entry that states a requirement. The
// entry is kept (marked Invalid: it has no placement) so that check can
// point at it and solve can place it.
func (d *doc) requirementEntry(cfg *model.Config, ce *model.ComponentEntry, v *yaml.Node, es []yamlpos.Entry, name string) {
	r, ok := d.requirement(name, v, es)
	if ge, has := yamlpos.Lookup(es, "node_group"); has {
		d.nodeGroupValue(ce, ge.V)
	}
	if !ok || len(ce.Names) == 0 {
		return
	}
	ce.Requirement, ce.Invalid = r, true
	cfg.Components = append(cfg.Components, *ce)
}
