package grammar

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
)

// ConfigOptions say how a config is read: its limits, the command-line
// overrides to apply, and how composition reaches files and the
// environment (the operating system's unless set, so tests can stub them).
type ConfigOptions struct {
	Limits    Limits
	Overrides Overrides
	ReadFile  func(name string) ([]byte, error)
	Stat      func(name string) (fs.FileInfo, error)
	ReadDir   func(dir string) ([]string, error)
	Getenv    func(name string) (string, bool)
}

func (o *ConfigOptions) fill() {
	if o.Limits.MaxFileBytes == 0 {
		o.Limits = DefaultLimits
	}
	if o.ReadFile == nil {
		o.ReadFile = os.ReadFile
	}
	if o.Stat == nil {
		o.Stat = osStat
	}
	if o.ReadDir == nil {
		o.ReadDir = osReadDir
	}
	if o.Getenv == nil {
		o.Getenv = os.LookupEnv
	}
}

// maxDefaultsDepth bounds how deeply defaults lists may nest (a config
// that names itself would otherwise never end).
const maxDefaultsDepth = 64

// composer runs Hydra's defaults-list algorithm (hydra/_internal/
// defaults_list.py) over one primary config.
type composer struct {
	d    *doc
	repo *repo
	ov   *overrides
	// composed counts the tree's nodes; stopped is set past the limit.
	composed int
	stopped  bool
}

// tree is a defaults tree node: an entry and, when its config has a
// defaults list, what that list expands to (leaves are entries whose
// config has none, and _self_).
type tree struct {
	node     *hydraDefault
	parent   *tree
	children []*tree
	leaf     bool // a child that is an entry, not a subtree
}

// Compose reads a config and composes its `defaults:` list the way Hydra
// does when RLinf's entry points run it with --config-path set to the
// config's folder, then applies the overrides. Every value keeps the span of
// the file (or command line) it came from. The document's Root is nil when
// the config cannot be used; its Diags say why.
func Compose(file string, data []byte, opt ConfigOptions) *yamlpos.Doc {
	return compose(file, data, opt).Doc
}

func compose(file string, data []byte, opt ConfigOptions) *doc {
	opt.fill()
	d := parseDoc(file, data, opt.Limits)
	d.Getenv = opt.Getenv
	if d.Root == nil {
		return d
	}
	primary := d.loadedConfig(file, d.Root, data)
	if primary.root == nil {
		d.Root = nil
		return d
	}
	r := &repo{d: d, opt: &opt, cache: map[string]*loaded{}}
	r.roots = []*searchRoot{{dir: filepath.Dir(file)}}
	r.searchPath(primary.root, opt.Overrides)
	groups, config := d.split(opt.Overrides, r)
	if composeFailed(d.Diags) {
		d.Root = nil // a defaults list Hydra cannot read
		return d
	}
	if len(primary.defaults) == 0 && len(groups) == 0 {
		d.Root = dropKey(d, primary.root, "hydra")
		d.applyOverrides(config)
		return d
	}
	name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	r.cache[name] = primary
	c := &composer{d: d, repo: r, ov: newOverrides(d, r, groups)}
	before := len(d.Diags)
	root := &tree{node: &hydraDefault{path: name, span: model.Span{File: file, Line: 1, Col: 1, EndLine: 1, EndCol: 2}}}
	c.expand(root, true, 0)
	c.ov.ensureUsed()
	list := c.list(root)
	// Hydra walks each defaults list from its end; report in file order.
	sort.SliceStable(d.Diags[before:], func(i, j int) bool {
		a, b := d.Diags[before+i].Primary, d.Diags[before+j].Primary
		return a.File < b.File || a.File == b.File && (a.Line < b.Line || a.Line == b.Line && a.Col < b.Col)
	})
	if d.Diags[before:].HasErrors() || composeFailed(d.Diags) {
		d.Root = nil // Hydra stops here: nothing to check
		return d
	}
	d.Root = c.merge(list)
	r.noteGuesses()
	d.applyOverrides(config)
	return d
}

// composeFailed reports an error of composition itself: Hydra would stop.
func composeFailed(ds model.Diagnostics) bool {
	for _, d := range ds {
		switch d.Code {
		case model.CodeDefaultsEntry, model.CodeDefaultsNotFound, model.CodeDefaultsConflict:
			return true
		}
	}
	return false
}

// expand is _create_defaults_tree_impl: it loads the node's config and
// expands its defaults list, last entry first, so that an override later
// in the list (or deeper in a later subtree) wins.
func (c *composer) expand(t *tree, isRoot bool, depth int) {
	node := t.node
	if !c.admit(t) {
		return
	}
	if depth > maxDefaultsDepth {
		c.d.Errorf(model.CodeDefaultsConflict, node.span, "nested too deeply",
			"the defaults lists nest more than %d levels (does a config name itself?)", maxDefaultsDepth)
		return
	}
	if node.hydraOwn() {
		return // Hydra's own configuration: not the job's
	}
	if n, ok := node.name(); ok && n != "" && !node.missing() {
		if l, found := c.repo.load(node.configPath(), node.span); found {
			node.header = l.header // update_package_header
		}
	}
	if c.ov.isDeleted(node) {
		node.deleted = true
		return
	}
	c.ov.setKnown(node)
	if n, ok := node.name(); !ok || n == "" {
		return
	}
	if node.missing() {
		c.ov.missing(node)
		return
	}
	if c.cycle(t) {
		return
	}
	l, found := c.repo.load(node.configPath(), node.span)
	if !found && c.repo.full() {
		c.stopped = true // the file limit, reported once: not a missing file
		return
	}
	if !found {
		if node.optional {
			node.deleted = true
			return
		}
		c.notFound(node)
		return
	}
	defaults := cloneDefaults(l.defaults)
	if len(defaults) > 0 || isRoot && len(c.ov.appends) > 0 {
		if !c.validateSelf(node, &defaults) {
			return
		}
	}
	if isRoot {
		defaults = append(defaults, cloneDefaults(c.ov.appends)...)
	}
	if !c.overridesLast(node, defaults) {
		return
	}
	var children []*tree
	for i := len(defaults) - 1; i >= 0; i-- {
		h := defaults[i]
		switch {
		case h.self():
			children = append(children, &tree{node: h, parent: t, leaf: true})
		case h.override:
			h.parentBase, h.parentPkg = node.groupPath(), node.finalPackage(true)
			c.ov.add(node.configPath(), h)
		default:
			h.parentBase, h.parentPkg = node.groupPath(), node.finalPackage(true)
			c.ov.apply(h)
			children = append(children, c.child(t, h, depth)...)
		}
	}
	for i, j := 0, len(children)-1; i < j; i, j = i+1, j-1 {
		children[i], children[j] = children[j], children[i]
	}
	t.children = children
}

// child expands one entry of a defaults list: each option of an options
// list is a config of its own.
func (c *composer) child(parent *tree, h *hydraDefault, depth int) []*tree {
	if strings.Contains(h.value, "${") || strings.Contains(h.path, "${") {
		c.d.Errorf(model.CodeDefaultsEntry, h.span, "interpolated", "the defaults entry `%s` chooses its config by interpolation, which rlsolve does not compose", h.describe()).Help =
			[]model.Fix{{Message: "write the config's name, or choose it on the command line (group=option)"}}
		return nil
	}
	var nodes []*hydraDefault
	if h.group && h.options != nil {
		for _, o := range h.options {
			n := &hydraDefault{path: h.path + "/" + o, pkg: h.pkg, optional: h.optional,
				parentBase: h.parentBase, parentPkg: h.parentPkg, span: h.span}
			if h.external { // already absolute
				n.path, n.parentBase, n.parentPkg = h.groupPath()+"/"+o, "", ""
			}
			nodes = append(nodes, n)
		}
	} else {
		nodes = []*hydraDefault{h}
	}
	var out []*tree
	for i := len(nodes) - 1; i >= 0 && !c.stopped; i-- {
		t := &tree{node: nodes[i], parent: parent}
		c.expand(t, false, depth+1)
		t.leaf = t.children == nil
		out = append(out, t)
	}
	return out
}

func cloneDefaults(in []*hydraDefault) []*hydraDefault {
	out := make([]*hydraDefault, len(in))
	for i, h := range in {
		c := *h
		out[i] = &c
	}
	return out
}
