package yamlpos

import (
	"strings"

	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// Deref follows aliases.
func Deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 64; i++ {
		n = n.Alias
	}
	return n
}

// Entry is one key/value pair of a mapping.
type Entry struct {
	Key  string
	K, V *yaml.Node
}

// Mapping returns the pairs of a mapping node and reports duplicate keys
// (PyYAML under OmegaConf rejects them; yaml.v3 silently keeps both).
func (d *Doc) Mapping(n *yaml.Node) []Entry { return d.mapping(n, nil) }

// mapping reads n's pairs; merging holds the mappings whose merge keys are
// being read, so that a mapping merged into itself ends (PyYAML refuses
// such a recursive mapping).
func (d *Doc) mapping(n *yaml.Node, merging map[*yaml.Node]bool) []Entry {
	n = Deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	out := make([]Entry, 0, len(n.Content)/2)
	seen := map[string]*yaml.Node{}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			merges = append(merges, v)
			continue
		}
		key := KeyText(k)
		if first, dup := seen[key]; dup {
			if d.reported[k] {
				continue // a mapping read twice reports its duplicate once
			}
			d.reported[k] = true
			diag := d.Errorf(model.CodeDuplicateKey, d.Span(k), "repeated here", "duplicate key %q", key)
			diag.Labels = append(diag.Labels, model.Label{Span: d.Span(first), Message: "first defined here"})
			diag.Why = "RLinf's YAML loader (OmegaConf) rejects a mapping with a repeated key."
			continue
		}
		seen[key] = k
		out = append(out, Entry{Key: key, K: k, V: v})
	}
	// `<<: *base` merges the aliased mappings' keys; keys written in this
	// mapping win, as in PyYAML, and are no duplicates of merged ones.
	if len(merges) == 0 {
		return out
	}
	if merging == nil {
		merging = map[*yaml.Node]bool{}
	}
	merging[n] = true
	defer delete(merging, n)
	for _, v := range merges {
		for _, src := range mergeSources(v) {
			if merging[src] {
				if !d.reported[v] {
					d.reported[v] = true
					d.Errorf(model.CodeYAMLSyntax, d.Span(v), "merges a mapping it is part of", "`<<` merges a mapping into itself").Why =
						"RLinf's YAML loader (PyYAML) cannot build a recursive mapping."
				}
				continue
			}
			for _, e := range d.mapping(src, merging) {
				if _, set := seen[e.Key]; !set {
					seen[e.Key] = e.K
					out = append(out, e)
				}
			}
		}
	}
	return out
}

func mergeSources(v *yaml.Node) []*yaml.Node {
	v = Deref(v)
	if v == nil {
		return nil
	}
	if v.Kind == yaml.SequenceNode {
		var out []*yaml.Node
		for _, c := range v.Content {
			out = append(out, Deref(c))
		}
		return out
	}
	return []*yaml.Node{v}
}

// KeyText is Python's str() of a mapping key (keys such as 4090 are ints).
func KeyText(k *yaml.Node) string {
	k = Deref(k)
	if k == nil || k.Kind != yaml.ScalarNode {
		return ""
	}
	if Quoted(k) {
		return k.Value
	}
	return ResolvePlain(k.Value).Str
}

// Quoted reports whether a scalar is a string whatever its text: quoted,
// a block scalar, or explicitly tagged !!str.
func Quoted(n *yaml.Node) bool {
	return n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 ||
		n.Tag == "!!str" && n.Style != 0
}

// Lookup finds a key in a mapping's entries.
func Lookup(es []Entry, key string) (Entry, bool) {
	for _, e := range es {
		if e.Key == key {
			return e, true
		}
	}
	return Entry{}, false
}

// Path walks dotted keys from the root (for the keys placement reads and
// for ${a.b} interpolations); nil when a key is absent.
func (d *Doc) Path(dotted string) *yaml.Node {
	e, ok := d.PathEntry(dotted)
	if !ok {
		return nil
	}
	return Deref(e.V)
}

// PathEntry is the last key of a dotted path with its value, for pointing
// at a section by its key.
func (d *Doc) PathEntry(dotted string) (Entry, bool) {
	n := d.Root
	var e Entry
	for _, part := range strings.Split(dotted, ".") {
		var ok bool
		if e, ok = Lookup(d.Mapping(n), part); !ok {
			return Entry{}, false
		}
		n = Deref(e.V)
	}
	return e, true
}

// KindName names a node's YAML type for messages, Python-style.
func KindName(n *yaml.Node) string {
	n = Deref(n)
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case IsMissing(n):
		return "`???` (a mandatory value that was never given)"
	}
	return "a scalar"
}
