package grammar

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlsolve/rlsolve/internal/fuzzy"
	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// applyOverrides applies config overrides to the composed config, in
// order, as Hydra's config loader does (_apply_overrides_to_config, with
// the config in struct mode: a plain override may only change a key that
// exists). The values they set point at the command line.
func (d *doc) applyOverrides(list []Override) {
	w := newWriter(d)
	defer w.finish()
	for i := range list {
		if d.Root == nil {
			return
		}
		o := &list[i]
		if o.Package != nil {
			d.Errorf(model.CodeOverride, o.keySpan(), "not a config group", "`%s` names a config group, but there is no group %s", o.Arg, o.Key)
			continue
		}
		w.apply(o)
	}
}

func (w *writer) apply(o *Override) {
	d := w.d
	parts := strings.Split(o.Key, ".")
	w.begin(o, parts)
	old, found := w.get(parts)
	switch o.Kind {
	case OverrideDelete:
		if !found {
			w.nearKey(parts, d.Errorf(model.CodeOverride, o.keySpan(), "no such key", "cannot delete %s: the config has no such key", o.Key))
			return
		}
		if o.Value != nil && !sameValue(old, o.Value) {
			d.Errorf(model.CodeOverride, d.Span(o.Value), "not its value", "cannot delete %s: its value is %s, not %s", o.Key, describeNode(old), describeNode(o.Value)).Labels =
				[]model.Label{{Span: d.Span(old), Message: "its value"}}
			return
		}
		w.update(parts, false, func(*yaml.Node) *yaml.Node { return nil })
	case OverrideAdd:
		empty := !found || isNull(old)
		if !empty && !isContainer(o.Value) {
			d.Errorf(model.CodeOverride, o.keySpan(), "already set", "cannot add %s: the config already sets it", o.Key).Help = []model.Fix{
				{Message: fmt.Sprintf("to change it, drop the +: %s", strings.TrimPrefix(o.Arg, "+"))},
				{Message: fmt.Sprintf("or add-or-change it with ++: +%s", o.Arg)}}
			return
		}
		w.update(parts, true, func(old *yaml.Node) *yaml.Node { return w.merge(old, o.Value) })
	case OverrideForce:
		w.update(parts, true, func(old *yaml.Node) *yaml.Node { return w.merge(old, o.Value) })
	default:
		if !found {
			diag := d.Errorf(model.CodeOverride, o.keySpan(), "no such key", "cannot override %s: the config has no such key", o.Key)
			diag.Help = []model.Fix{{Message: fmt.Sprintf("to add it, write +%s", o.Arg)}}
			w.nearKey(parts, diag)
			return
		}
		w.update(parts, false, func(old *yaml.Node) *yaml.Node { return w.merge(old, o.Value) })
	}
}

// nearKey puts "did you mean" first in a missing key's help: the key
// with its first missing part replaced by the nearest key of the mapping
// that lacks it (fuzzy.Nearest), when the whole of that key exists.
func (w *writer) nearKey(parts []string, d *model.Diagnostic) {
	for i := range parts {
		if _, ok := w.get(parts[:i+1]); ok {
			continue
		}
		parent, _ := w.get(parts[:i])
		parent = yamlpos.Deref(parent)
		if parent == nil || parent.Kind != yaml.MappingNode || w.isOwned(parent) {
			return
		}
		var keys []string
		for _, e := range w.d.Mapping(parent) {
			keys = append(keys, e.Key)
		}
		near := fuzzy.Nearest(parts[i], keys)
		if near == "" {
			return
		}
		fixed := append(append(slices.Clone(parts[:i]), near), parts[i+1:]...)
		if _, ok := w.get(fixed); ok {
			d.Help = append([]model.Fix{{Message: fmt.Sprintf("did you mean `%s`?", strings.Join(fixed, "."))}}, d.Help...)
		}
		return
	}
}

func isNull(n *yaml.Node) bool {
	n = yamlpos.Deref(n)
	return n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null" && !yamlpos.Quoted(n)
}

func isContainer(n *yaml.Node) bool {
	n = yamlpos.Deref(n)
	return n != nil && (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode)
}

// sameValue compares two scalars as Python values (~key=value must name
// the value the key has).
func sameValue(a, b *yaml.Node) bool {
	a, b = yamlpos.Deref(a), yamlpos.Deref(b)
	if a == nil || b == nil || a.Kind != yaml.ScalarNode || b.Kind != yaml.ScalarNode {
		return false
	}
	pa, pb := scalarPy(a), scalarPy(b)
	return pa.Kind == pb.Kind && pa.Str == pb.Str
}

func scalarPy(n *yaml.Node) yamlpos.PyValue {
	if yamlpos.Quoted(n) {
		return yamlpos.PyValue{Kind: yamlpos.Str, Str: n.Value}
	}
	return yamlpos.ResolvePlain(n.Value)
}

// describeNode renders a value for messages.
func describeNode(n *yaml.Node) string {
	n = yamlpos.Deref(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return yamlpos.KindName(n)
	}
	return fmt.Sprintf("`%s`", n.Value)
}
