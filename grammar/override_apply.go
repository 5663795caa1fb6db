package grammar

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// applyOverrides applies config overrides to the composed config, in
// order, as Hydra's config loader does (_apply_overrides_to_config, with
// the config in struct mode: a plain override may only change a key that
// exists). The values they set point at the command line.
func (d *doc) applyOverrides(list []Override) {
	for i := range list {
		if d.Root == nil {
			return
		}
		o := &list[i]
		if o.Package != nil {
			d.Errorf(model.CodeOverride, o.keySpan(), "not a config group", "`%s` names a config group, but there is no group %s", o.Arg, o.Key)
			continue
		}
		d.applyOverride(o)
	}
}

func (d *doc) applyOverride(o *Override) {
	parts := strings.Split(o.Key, ".")
	old, found := d.selectPath(parts)
	switch o.Kind {
	case OverrideDelete:
		if !found {
			d.Errorf(model.CodeOverride, o.keySpan(), "no such key", "cannot delete %s: the config has no such key", o.Key)
			return
		}
		if o.Value != nil && !sameValue(old, o.Value) {
			d.Errorf(model.CodeOverride, d.Span(o.Value), "not its value", "cannot delete %s: its value is %s, not %s", o.Key, describeNode(old), describeNode(o.Value)).Labels =
				[]model.Label{{Span: d.Span(old), Message: "its value"}}
			return
		}
		d.Root = d.updatePath(d.Root, parts, o, false, func(*yaml.Node) *yaml.Node { return nil })
	case OverrideAdd:
		empty := !found || isNull(old)
		if !empty && !isContainer(o.Value) {
			d.Errorf(model.CodeOverride, o.keySpan(), "already set", "cannot add %s: the config already sets it", o.Key).Help = []model.Fix{
				{Message: fmt.Sprintf("to change it, drop the +: %s", strings.TrimPrefix(o.Arg, "+"))},
				{Message: fmt.Sprintf("or add-or-change it with ++: +%s", o.Arg)}}
			return
		}
		d.Root = d.updatePath(d.Root, parts, o, true, func(old *yaml.Node) *yaml.Node { return d.mergeNodes(old, o.Value) })
	case OverrideForce:
		d.Root = d.updatePath(d.Root, parts, o, true, func(old *yaml.Node) *yaml.Node { return d.mergeNodes(old, o.Value) })
	default:
		if !found {
			d.Errorf(model.CodeOverride, o.keySpan(), "no such key", "cannot override %s: the config has no such key", o.Key).Help =
				[]model.Fix{{Message: fmt.Sprintf("to add it, write +%s", o.Arg)}}
			return
		}
		d.Root = d.updatePath(d.Root, parts, o, false, func(old *yaml.Node) *yaml.Node { return d.mergeNodes(old, o.Value) })
	}
}

// selectPath finds the value at a dotted path (a number indexes a list).
func (d *doc) selectPath(parts []string) (*yaml.Node, bool) {
	n := d.Root
	for _, p := range parts {
		n = yamlpos.Deref(n)
		switch {
		case n == nil:
			return nil, false
		case n.Kind == yaml.MappingNode:
			e, ok := yamlpos.Lookup(d.Mapping(n), p)
			if !ok {
				return nil, false
			}
			n = e.V
		case n.Kind == yaml.SequenceNode:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(n.Content) {
				return nil, false
			}
			n = n.Content[i]
		default:
			return nil, false
		}
	}
	return n, true
}

// updatePath returns n with the value at parts replaced by set(old): a
// copy of every mapping and list on the way, so that trees composed twice
// stay shared safely. With create, missing mappings on the way are made
// (at the override's key); set returning nil removes the key.
func (d *doc) updatePath(n *yaml.Node, parts []string, o *Override, create bool, set func(old *yaml.Node) *yaml.Node) *yaml.Node {
	n = yamlpos.Deref(n)
	if len(parts) == 0 {
		return set(n)
	}
	// The part's own characters in the command line, for new keys.
	off := o.KeyOff + len(o.Key) - len(strings.Join(parts, "."))
	at := spanOf(off, off+len(parts[0]))
	if n == nil || isNull(n) {
		if !create {
			return n
		}
		n = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		d.placeAt(n, at)
	}
	out := *n
	out.Content = append([]*yaml.Node(nil), n.Content...)
	d.Derive(&out, n)
	switch n.Kind {
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(parts[0]); err == nil && i >= 0 && i < len(out.Content) {
			if v := d.updatePath(out.Content[i], parts[1:], o, create, set); v != nil {
				out.Content[i] = v
			} else {
				out.Content = append(out.Content[:i], out.Content[i+1:]...)
			}
		}
		return &out
	case yaml.MappingNode:
	default:
		return n
	}
	out.Content = out.Content[:0]
	found := false
	for _, e := range d.Mapping(n) {
		if e.Key != parts[0] {
			out.Content = append(out.Content, e.K, e.V)
			continue
		}
		found = true
		if v := d.updatePath(e.V, parts[1:], o, create, set); v != nil {
			out.Content = append(out.Content, e.K, v)
		}
	}
	if !found && create {
		k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: parts[0]}
		d.placeAt(k, at)
		if v := d.updatePath(nil, parts[1:], o, create, set); v != nil {
			out.Content = append(out.Content, k, v)
		}
	}
	return &out
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
