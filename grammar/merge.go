package grammar

import (
	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"go.yaml.in/yaml/v3"
)

// mergeNodes merges src over dest as OmegaConf's merge does
// (BaseContainer._map_merge): mappings merge key by key, anything else
// replaces, and a `???` in src keeps what dest has. Neither input is
// changed: merged mappings are new nodes, so a config composed at two
// packages stays one tree read twice.
func (d *doc) mergeNodes(dest, src *yaml.Node) *yaml.Node {
	src = yamlpos.Deref(src)
	dd := yamlpos.Deref(dest)
	switch {
	case dd == nil:
		return src
	case src == nil:
		return dest
	case yamlpos.IsMissing(src):
		return dest
	case dd.Kind != yaml.MappingNode || src.Kind != yaml.MappingNode:
		return src
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: dd.Line, Column: dd.Column}
	d.Derive(out, dd)
	index := map[string]int{} // key -> position of its value in out.Content
	for _, e := range d.Mapping(dd) {
		index[e.Key] = len(out.Content) + 1
		out.Content = append(out.Content, e.K, e.V)
	}
	for _, e := range d.Mapping(src) {
		if i, ok := index[e.Key]; ok {
			merged := d.mergeNodes(out.Content[i], e.V)
			if merged != out.Content[i] {
				out.Content[i-1] = e.K // the key of the value that won
			}
			out.Content[i] = merged
			continue
		}
		index[e.Key] = len(out.Content) + 1
		out.Content = append(out.Content, e.K, e.V)
	}
	return out
}

// dropKey returns a mapping without one key (a copy when it has it).
func dropKey(d *doc, n *yaml.Node, key string) *yaml.Node {
	m := yamlpos.Deref(n)
	if m == nil || m.Kind != yaml.MappingNode {
		return n
	}
	if _, ok := yamlpos.Lookup(d.Mapping(m), key); !ok {
		return n
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: m.Line, Column: m.Column, Style: m.Style}
	d.Derive(out, m)
	for _, e := range d.Mapping(m) {
		if e.Key != key {
			out.Content = append(out.Content, e.K, e.V)
		}
	}
	return out
}
