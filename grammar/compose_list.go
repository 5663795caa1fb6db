package grammar

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rlsolve/rlsolve/internal/fuzzy"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// validateSelf checks _self_ appears at most once and, where it is not
// listed, adds it last: Hydra 1.1 and later merge a config over the
// configs its defaults list names.
func (c *composer) validateSelf(node *hydraDefault, defaults *[]*hydraDefault) bool {
	has, nonOverride := false, false
	for _, h := range *defaults {
		if !h.override {
			nonOverride = true
		}
		if h.self() {
			if has {
				c.d.Errorf(model.CodeDefaultsEntry, h.span, "listed again", "_self_ appears twice in the defaults list of %s", node.configPath())
				return false
			}
			has = true
		}
	}
	if !has && nonOverride || len(*defaults) == 0 {
		*defaults = append(*defaults, &hydraDefault{path: "_self_", span: node.span})
	}
	return true
}

// overridesLast is _update_overrides' rule: `override` entries end a
// defaults list.
func (c *composer) overridesLast(node *hydraDefault, defaults []*hydraDefault) bool {
	var last *hydraDefault
	for _, h := range defaults {
		if h.self() {
			continue
		}
		if last != nil && !h.override && !h.external {
			d := c.d.Errorf(model.CodeDefaultsEntry, last.span, "an override before other entries",
				"in %s, the override `%s` comes before `%s`: overrides must end the defaults list", node.configPath(), last.describe(), h.describe())
			d.Labels = []model.Label{{Span: h.span, Message: "a later entry that is not an override"}}
			return false
		}
		if h.group && h.override {
			last = h
		}
	}
	return true
}

// notFound reports a config that no search folder holds, at the entry
// that names it.
func (c *composer) notFound(h *hydraDefault) {
	path := h.configPath()
	var dirs []string
	for _, r := range c.repo.roots {
		dirs = append(dirs, r.dir)
	}
	diag := c.d.Errorf(model.CodeDefaultsNotFound, h.span, "no such config",
		"the defaults list names %s, but %s.yaml is not in %s", h.describe(), path, strings.Join(dirs, " or "))
	diag.Why = "Hydra looks a config up in the config's own folder, then in hydra.searchpath's folders; RLinf's run scripts pass the config's folder as --config-path."
	group := ""
	if i := strings.LastIndex(path, "/"); i >= 0 {
		group = path[:i]
	}
	name := filepath.Base(path)
	if opts := c.repo.options(group); len(opts) > 0 {
		if s := fuzzy.Nearest(name, opts); s != "" {
			diag.Help = []model.Fix{{Message: fmt.Sprintf("did you mean `%s`?", s)}}
		} else {
			diag.Help = []model.Fix{{Message: "the folder holds: " + strings.Join(limitList(opts, 12), ", ")}}
		}
	}
	for _, u := range c.repo.unset {
		diag.Help = append(diag.Help, model.Fix{Message: "hydra.searchpath's " + u + " was not searched: set the variable as RLinf's run script does"})
	}
	if h.group && !h.optional {
		diag.Help = append(diag.Help, model.Fix{Message: fmt.Sprintf("or mark the entry `optional %s` if the config may be absent", strings.TrimPrefix(h.describe(), "override "))})
	}
}

func limitList(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(append([]string(nil), s[:n]...), fmt.Sprintf("... (%d more)", len(s)-n))
}

// composed is one config of the final defaults list, at its package.
type composed struct {
	path, pkg string
	at        model.Span
}

// list walks the tree depth first into the final defaults list
// (_tree_to_list), refusing a group chosen twice.
func (c *composer) list(root *tree) []composed {
	var out []composed
	keys := map[string]bool{}
	var emit func(parent *tree, h *hydraDefault)
	emit = func(parent *tree, h *hydraDefault) {
		if h.deleted || h.missing() || h.hydraOwn() {
			return
		}
		if n, ok := h.name(); !ok || n == "" {
			return
		}
		if h.self() {
			out = append(out, composed{path: parent.node.configPath(), pkg: parent.node.finalPackage(true), at: parent.node.span})
			return
		}
		if h.group {
			k := h.overrideKey()
			if keys[k] {
				c.d.Errorf(model.CodeDefaultsConflict, h.span, "chosen again", "the group %s is chosen more than once in the composed defaults list", k)
				return
			}
			keys[k] = true
		}
		out = append(out, composed{path: h.configPath(), pkg: h.finalPackage(true), at: h.span})
	}
	var walk func(t *tree)
	walk = func(t *tree) {
		if len(t.children) == 0 {
			if t.parent != nil {
				emit(t.parent, t.node)
			} else {
				emit(t, t.node)
			}
			return
		}
		for _, ch := range t.children {
			if ch.leaf {
				emit(t, ch.node)
			} else {
				walk(ch)
			}
		}
	}
	walk(root)
	return out
}

// merge composes the configs of the final list in order, each at its
// package, as Hydra's config loader merges them; the top-level `hydra:`
// key (Hydra's own settings) is left out.
func (c *composer) merge(list []composed) *yaml.Node {
	var root *yaml.Node
	for _, e := range list {
		l, ok := c.repo.cache[e.path]
		if !ok || l == nil || l.root == nil {
			continue
		}
		root = c.d.mergeNodes(root, c.d.embed(l.root, e.pkg, e.at))
		c.d.composed = append(c.d.composed, l.file)
	}
	if root == nil {
		root = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	return dropKey(c.d, root, "hydra")
}

// embed places a config's content under a dotted package.
func (d *doc) embed(n *yaml.Node, pkg string, at model.Span) *yaml.Node {
	if pkg == "" {
		return n
	}
	parts := strings.Split(pkg, ".")
	for i := len(parts) - 1; i >= 0; i-- {
		key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: parts[i]}
		d.placeAt(key, at)
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{key, n}}
		d.Derive(m, key)
		n = m
	}
	return n
}

// placeAt gives a node built while composing the position of span (the
// defaults entry or override that made it).
func (d *doc) placeAt(n *yaml.Node, at model.Span) {
	n.Line, n.Column = at.Line, at.Col
	d.PlaceSpan(n, at)
}
