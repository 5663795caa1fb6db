package grammar

import (
	"fmt"
	"strings"

	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// A Hydra defaults list entry (hydra/core/default_element.py), with the
// place it was written. Hydra's two kinds: a config (`- base`,
// `- env/maniskill@env.train`, `- _self_`) and a config group
// (`- model: pi0`, `- optional override db@backup: mysql`).
type hydraDefault struct {
	group bool
	// path is a config's path, or a group's name (either may start with
	// "/": from the search path's root instead of the parent's folder).
	path string
	// value is a group's chosen option; options a list of them; null a
	// group given no config.
	value    string
	options  []string
	null     bool
	pkg      *string // the @package written, "" for _here_
	optional bool
	override bool
	// external is a command-line append (+group=option): absolute.
	external bool

	// Set when the entry is placed in its parent (update_parent).
	parentBase, parentPkg string
	header                *string // the loaded file's # @package header
	deleted               bool

	span model.Span // where the entry is written (its option, for a group)
}

func (h *hydraDefault) self() bool {
	return !h.group && h.path == "_self_" || h.group && h.value == "_self_"
}

func (h *hydraDefault) name() (string, bool) {
	if h.group {
		return h.value, !h.null && h.options == nil
	}
	return h.path[strings.LastIndex(h.path, "/")+1:], true
}

func (h *hydraDefault) missing() bool { n, ok := h.name(); return ok && n == yamlpos.Missing }

func trimSlash(p string) (string, bool) {
	if strings.HasPrefix(p, "/") {
		return p[1:], true
	}
	return p, false
}

// relGroup is the entry's group written relative to its parent.
func (h *hydraDefault) relGroup() string {
	p, _ := trimSlash(h.path)
	if h.group {
		return p
	}
	if i := strings.LastIndex(p, "/"); i >= 0 {
		return p[:i]
	}
	return ""
}

// groupPath is the entry's group from the search path's root.
func (h *hydraDefault) groupPath() string {
	p, abs := trimSlash(h.path)
	abs = abs || h.external
	g := p
	if !h.group {
		g = h.relGroup()
	}
	switch {
	case abs || h.parentBase == "":
		return g
	case g == "":
		return h.parentBase
	}
	return h.parentBase + "/" + g
}

// configPath is the config file's path from the search path's root,
// without ".yaml".
func (h *hydraDefault) configPath() string {
	if h.group {
		n, _ := h.name()
		return h.groupPath() + "/" + n
	}
	p, abs := trimSlash(h.path)
	if abs || h.parentBase == "" {
		return p
	}
	return h.parentBase + "/" + p
}

// packageOf is the package written, else the file's header.
func (h *hydraDefault) packageOf(useHeader bool) *string {
	if h.pkg == nil && useHeader {
		return h.header
	}
	return h.pkg
}

// finalPackage is where the entry's config lands in the composed config
// (default_element._get_final_package).
func (h *hydraDefault) finalPackage(useHeader bool) string {
	parent := h.parentPkg
	if h.group && h.external {
		parent = ""
	}
	var pkg string
	if p := h.packageOf(useHeader); p != nil {
		pkg = *p
	} else {
		pkg = strings.ReplaceAll(h.relGroup(), "/", ".")
	}
	ret := pkg
	switch {
	case parent == "":
	case pkg == "":
		ret = parent
	default:
		ret = parent + "." + pkg
	}
	if i := strings.LastIndex(ret, "_global_"); i >= 0 {
		ret = strings.TrimPrefix(ret[i+len("_global_"):], ".")
	}
	return ret
}

// overrideKey names a group entry for overrides: its group, and the
// package when it is not the group's default.
func (h *hydraDefault) overrideKey() string {
	key := h.groupPath()
	def := strings.ReplaceAll(key, "/", ".")
	if final := h.finalPackage(false); final != def {
		if final == "" {
			final = "_global_"
		}
		key += "@" + final
	}
	return key
}

// hydraOwn reports whether the entry is one of Hydra's own groups
// (hydra/job_logging, ...), which configure Hydra, not the job.
func (h *hydraDefault) hydraOwn() bool {
	g := h.groupPath()
	return h.group && (g == "hydra" || strings.HasPrefix(g, "hydra/"))
}

// defaultsList reads a config's `defaults:` list (config_repository.py's
// _create_defaults_list); nil entries are reported and left out.
func (d *doc) defaultsList(n *yaml.Node, file string) []*hydraDefault {
	n = yamlpos.Deref(n)
	if n == nil || n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		d.Errorf(model.CodeDefaultsEntry, d.Span(n), "expected a list", "the defaults list of %s must be a list, but got %s", file, yamlpos.KindName(n))
		return nil
	}
	var out []*hydraDefault
	for _, item := range n.Content {
		if h := d.defaultsEntry(yamlpos.Deref(item)); h != nil {
			out = append(out, h)
		}
	}
	return out
}

func (d *doc) defaultsEntry(item *yaml.Node) *hydraDefault {
	switch {
	case item.Kind == yaml.ScalarNode:
		v, ok := d.Scalar(item, "defaults entry")
		if !ok {
			return nil
		}
		path, pkg := splitPackage(v.Py.Str)
		return &hydraDefault{path: path, pkg: pkg, span: v.Span}
	case item.Kind != yaml.MappingNode:
		d.Errorf(model.CodeDefaultsEntry, d.Span(item), "expected `group: option` or a config name", "a defaults entry must be a config name or `group: option`, but got %s", yamlpos.KindName(item))
		return nil
	}
	es := d.Mapping(item)
	if len(es) != 1 {
		d.Errorf(model.CodeDefaultsEntry, d.Span(item), "one `group: option` per entry", "a defaults entry holds one `group: option`, but this one has %d keys", len(es)).Help =
			[]model.Fix{{Message: "start each entry with its own '-'"}}
		return nil
	}
	e := es[0]
	kv, ok := d.Scalar(e.K, "defaults group")
	if !ok {
		return nil
	}
	words := strings.Fields(kv.Py.Str)
	if len(words) == 0 {
		d.Errorf(model.CodeDefaultsEntry, kv.Span, "", "a defaults entry names no group")
		return nil
	}
	h := &hydraDefault{group: true, span: d.Span(e.V)}
	for _, w := range words[:len(words)-1] {
		switch w {
		case "optional":
			h.optional = true
		case "override":
			h.override = true
		default:
			d.Errorf(model.CodeDefaultsEntry, kv.Span, "not a keyword", "unsupported keyword `%s` in a defaults entry (Hydra knows optional and override)", w)
			return nil
		}
	}
	h.path, h.pkg = splitPackage(words[len(words)-1])
	if !d.defaultsValue(h, yamlpos.Deref(e.V)) {
		return nil
	}
	if !h.null && !h.override && h.path == "" {
		d.Errorf(model.CodeDefaultsEntry, kv.Span, "", "a defaults entry names no group")
		return nil
	}
	return h
}

// defaultsValue reads a group entry's option: a name, a list of names, or
// null.
func (d *doc) defaultsValue(h *hydraDefault, v *yaml.Node) bool {
	switch {
	case v == nil || v.Kind == yaml.ScalarNode && v.Tag == "!!null":
		h.null = true
		return true
	case v.Kind == yaml.SequenceNode:
		h.options = []string{}
		for _, c := range v.Content {
			s, ok := d.Scalar(c, "defaults option")
			if !ok {
				return false
			}
			h.options = append(h.options, s.Py.Str)
		}
		return true
	case v.Kind == yaml.ScalarNode:
		if yamlpos.IsMissing(v) {
			h.value = yamlpos.Missing
			return true
		}
		s, ok := d.Scalar(v, "defaults option")
		h.value = s.Py.Str
		return ok
	}
	d.Errorf(model.CodeDefaultsEntry, d.Span(v), "expected an option name", "a defaults option must be a name or a list of names, but got %s", yamlpos.KindName(v))
	return false
}

// splitPackage splits `group@package` (config_repository._split_group; a
// `:rename` after the package is Hydra 1.0's and ignored).
func splitPackage(s string) (string, *string) {
	i := strings.IndexByte(s, '@')
	if i < 0 {
		return s, nil
	}
	pkg := s[i+1:]
	if j := strings.IndexByte(pkg, ':'); j >= 0 {
		pkg = pkg[:j]
	}
	if pkg == "_here_" {
		pkg = ""
	}
	return s[:i], &pkg
}

// describe names an entry as it is written, for messages.
func (h *hydraDefault) describe() string {
	s := h.path
	if h.pkg != nil {
		s += "@" + *h.pkg
	}
	if !h.group {
		return s
	}
	switch {
	case h.null:
		return s + ": null"
	case h.options != nil:
		return fmt.Sprintf("%s: [%s]", s, strings.Join(h.options, ", "))
	}
	return s + ": " + h.value
}
