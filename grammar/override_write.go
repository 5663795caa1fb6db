package grammar

import (
	"strconv"

	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// writer applies overrides to the composed tree. The tree's mappings may be
// shared (a config composed at two packages is one tree read twice), so a
// container is copied the first time an override reaches it; the copy is
// the writer's own, changed in place after that, with an index of its
// keys. Each override then costs its path and its value, not the size of
// the config: 5,000 overrides of one mapping read its keys once, where a
// copy per override read them 5,000 times.
type writer struct {
	d     *doc
	owned map[*yaml.Node]*keyIndex // the copied containers (a list's index is nil)
	// o is the override being applied, starts where its key's parts start.
	o      *Override
	starts []int
}

// keyIndex is where each key's value is in an owned mapping's Content. A
// removed key leaves a pair of nils there until the writer is done, so
// that removing keys does not move the others.
type keyIndex struct {
	pos  map[string]int
	dead bool
}

func (x *keyIndex) add(key string, at int) { x.pos[key] = at }

func newWriter(d *doc) *writer {
	return &writer{d: d, owned: map[*yaml.Node]*keyIndex{}}
}

// own returns the writer's copy of a container (itself once copied); a
// scalar or nothing comes back as it is.
func (w *writer) own(n *yaml.Node) *yaml.Node {
	n = yamlpos.Deref(n)
	if n == nil || n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode {
		return n
	}
	if _, ok := w.owned[n]; ok {
		return n
	}
	out := *n
	w.d.Derive(&out, n)
	if n.Kind == yaml.SequenceNode {
		out.Content = append([]*yaml.Node(nil), n.Content...)
		w.owned[&out] = nil
		return &out
	}
	// Merge keys (`<<`) are read into plain pairs, as Mapping reads them.
	es := w.d.Mapping(n)
	out.Content = make([]*yaml.Node, 0, 2*len(es))
	x := &keyIndex{pos: make(map[string]int, len(es))}
	for _, e := range es {
		x.add(e.Key, len(out.Content)+1)
		out.Content = append(out.Content, e.K, e.V)
	}
	w.owned[&out] = x
	return &out
}

// slot is the index in an owned container's Content of the value at part.
func (w *writer) slot(n *yaml.Node, part string) (int, bool) {
	if n.Kind == yaml.SequenceNode {
		i, err := strconv.Atoi(part)
		return i, err == nil && i >= 0 && i < len(n.Content)
	}
	i, ok := w.owned[n].pos[part]
	return i, ok
}

// get finds the value at a dotted path (a number indexes a list). It
// changes nothing: an owned container is read through its index, another
// as written (an override that fails leaves the config as it was).
func (w *writer) get(parts []string) (*yaml.Node, bool) {
	n := w.d.Root
	for _, p := range parts {
		n = yamlpos.Deref(n)
		switch {
		case n == nil:
			return nil, false
		case w.isOwned(n):
			i, ok := w.slot(n, p)
			if !ok {
				return nil, false
			}
			n = n.Content[i]
		case n.Kind == yaml.MappingNode:
			e, ok := yamlpos.Lookup(w.d.Mapping(n), p)
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

func (w *writer) isOwned(n *yaml.Node) bool {
	_, ok := w.owned[n]
	return ok
}

// update replaces the value at parts by set(old). With create, missing
// mappings on the way are made (at the override's key); set returning nil
// removes the key. A path through a scalar, or past a list's end, changes
// nothing.
func (w *writer) update(parts []string, create bool, set func(old *yaml.Node) *yaml.Node) {
	n := w.own(w.d.Root)
	if isNull(n) && create {
		n = w.newMapping(parts)
	}
	if _, ok := w.owned[n]; !ok || n == nil {
		return
	}
	w.d.Root = n
	for j, p := range parts {
		i, found := w.slot(n, p)
		last := j == len(parts)-1
		switch {
		case !found:
			if create && n.Kind == yaml.MappingNode {
				w.add(n, parts[j:], set)
			}
			return
		case last:
			w.replace(n, i, set(yamlpos.Deref(n.Content[i])))
			return
		}
		c := yamlpos.Deref(n.Content[i])
		switch {
		case isNull(c) && create:
			c = w.newMapping(parts[j+1:])
		case isContainer(c):
			c = w.own(c)
		default:
			return
		}
		n.Content[i] = c
		n = c
	}
}

// add appends the missing key parts[0] to an owned mapping, with mappings
// down to the value set(nil).
func (w *writer) add(n *yaml.Node, parts []string, set func(old *yaml.Node) *yaml.Node) {
	for len(parts) > 1 {
		m := w.newMapping(parts[1:])
		w.appendKey(n, parts, m)
		n, parts = m, parts[1:]
	}
	if v := set(nil); v != nil {
		w.appendKey(n, parts, v)
	}
}

func (w *writer) appendKey(n *yaml.Node, parts []string, v *yaml.Node) {
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: parts[0]}
	w.d.placeAt(k, w.span(parts))
	w.owned[n].add(parts[0], len(n.Content)+1)
	n.Content = append(n.Content, k, v)
}

// newMapping is an empty mapping made for the key parts[0] of an override.
func (w *writer) newMapping(parts []string) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	w.d.placeAt(m, w.span(parts))
	w.owned[m] = &keyIndex{pos: map[string]int{}}
	return m
}

// replace sets the value at index i of an owned container, or removes it
// when v is nil (a list's later items move up: their indices name them).
func (w *writer) replace(n *yaml.Node, i int, v *yaml.Node) {
	if v != nil {
		n.Content[i] = v
		return
	}
	if n.Kind == yaml.SequenceNode {
		n.Content = append(n.Content[:i], n.Content[i+1:]...)
		return
	}
	x := w.owned[n]
	delete(x.pos, yamlpos.KeyText(n.Content[i-1]))
	n.Content[i-1], n.Content[i] = nil, nil
	x.dead = true
}

// finish drops the pairs removed from the owned mappings: only the writer
// reads them while overrides are applied.
func (w *writer) finish() {
	for n, x := range w.owned {
		if x == nil || !x.dead {
			continue
		}
		kept := n.Content[:0]
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i] != nil {
				kept = append(kept, n.Content[i], n.Content[i+1])
			}
		}
		n.Content = kept
	}
}

// merge merges src over old as mergeNodes does, in place in the writer's
// own copy of old when both are mappings (the copy made once: ++x={k: v}
// repeated does not copy x each time).
func (w *writer) merge(old, src *yaml.Node) *yaml.Node {
	if !mapOverMap(old, src) {
		return w.d.mergeNodes(old, src)
	}
	dd := w.own(old)
	// As mergeNodes builds it: a block mapping (a flow requirement merged
	// with the command line's keys is no longer one piece of the file).
	dd.Style, dd.Tag = 0, "!!map"
	x := w.owned[dd]
	for _, e := range w.d.Mapping(src) {
		i, ok := x.pos[e.Key]
		if !ok {
			x.add(e.Key, len(dd.Content)+1)
			dd.Content = append(dd.Content, e.K, e.V)
			continue
		}
		merged := w.merge(dd.Content[i], e.V)
		if merged != dd.Content[i] || mapOverMap(dd.Content[i], e.V) {
			dd.Content[i-1] = e.K // the key of the value that won, as mergeNodes makes a new mapping
		}
		dd.Content[i] = merged
	}
	return dd
}

// mapOverMap reports whether merging src over dest merges two mappings.
func mapOverMap(dest, src *yaml.Node) bool {
	d, s := yamlpos.Deref(dest), yamlpos.Deref(src)
	return d != nil && s != nil && d.Kind == yaml.MappingNode && s.Kind == yaml.MappingNode && !yamlpos.IsMissing(s)
}

// begin starts an override: where each part of its key starts.
func (w *writer) begin(o *Override, parts []string) {
	w.o, w.starts = o, w.starts[:0]
	off := o.KeyOff
	for _, p := range parts {
		w.starts = append(w.starts, off)
		off += len(p) + 1
	}
}

// span is the command-line span of parts[0], parts a suffix of the
// override's key.
func (w *writer) span(parts []string) model.Span {
	off := w.starts[len(w.starts)-len(parts)]
	return spanOf(off, off+len(parts[0]))
}
