package grammar

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// maxComposedFiles bounds how many config files one composition reads.
const maxComposedFiles = 512

// searchRoot is one folder of Hydra's config search path.
type searchRoot struct {
	dir string
	// from is the hydra.searchpath entry it comes from (nil for the
	// config's own folder); guess explains a folder rlsolve chose for an
	// unset environment variable, noted when the folder is used.
	from  *yaml.Node
	guess string
	used  bool
}

// loaded is one config file read for composition.
type loaded struct {
	file     string
	root     *yaml.Node // without its defaults list
	defaults []*hydraDefault
	header   *string // # @package
}

// repo is Hydra's config repository over the search path: the primary
// config's folder first, then hydra.searchpath's folders.
type repo struct {
	d     *doc
	roots []*searchRoot
	opt   *ConfigOptions
	cache map[string]*loaded // by config path; nil for "not found"
	files int
	// unset lists hydra.searchpath entries left out: they name an unset
	// environment variable and no folder above the config matches.
	unset []string
}

// exists reports whether path (a file or a folder) exists.
func (r *repo) exists(path string, dir bool) bool {
	st, err := r.opt.Stat(path)
	return err == nil && st.IsDir() == dir
}

// groupExists reports whether any search folder holds the group.
func (r *repo) groupExists(group string) bool {
	for _, root := range r.roots {
		if r.exists(filepath.Join(root.dir, filepath.FromSlash(group)), true) {
			return true
		}
	}
	return false
}

// options lists a group's configs, for messages.
func (r *repo) options(group string) []string {
	seen := map[string]bool{}
	var out []string
	for _, root := range r.roots {
		names, _ := r.opt.ReadDir(filepath.Join(root.dir, filepath.FromSlash(group)))
		for _, n := range names {
			if o, ok := strings.CutSuffix(n, ".yaml"); ok && !seen[o] {
				seen[o] = true
				out = append(out, o)
			}
		}
	}
	sort.Strings(out)
	return out
}

// find locates a config path's file in the search path.
func (r *repo) find(path string) (string, *searchRoot) {
	for _, root := range r.roots {
		file := filepath.Join(root.dir, filepath.FromSlash(path)+".yaml")
		if r.exists(file, false) {
			return file, root
		}
	}
	return "", nil
}

// load reads a config (cached: Hydra reads each once). The boolean is
// false when no search folder holds it.
func (r *repo) load(path string, at model.Span) (*loaded, bool) {
	if l, ok := r.cache[path]; ok {
		return l, l != nil
	}
	file, root := r.find(path)
	if file == "" {
		r.cache[path] = nil
		return nil, false
	}
	if r.files++; r.full() {
		if r.files == maxComposedFiles+1 { // once: composition stops here
			r.d.Record(nil, yamlpos.Limit{What: "the composition of the defaults lists", Max: maxComposedFiles, Unit: " config files"}.Diagnostic(at, "too many files"))
		}
		r.cache[path] = nil
		return nil, false
	}
	root.used = true
	data, err := r.opt.ReadFile(file)
	if err != nil {
		r.d.Errorf(model.CodeFileRead, at, "", "cannot read %s: %v", file, err)
		r.cache[path] = nil
		return nil, false
	}
	l := r.d.loadedConfig(file, r.d.Add(file, data), data)
	r.cache[path] = l
	return l, true
}

// full reports whether composition has read as many files as it may.
func (r *repo) full() bool { return r.files > maxComposedFiles }

// loadedConfig splits a config's root into its content and its defaults
// list. A nil root (unreadable YAML, reported) composes as empty.
func (d *doc) loadedConfig(file string, root *yaml.Node, data []byte) *loaded {
	l := &loaded{file: file, header: packageHeader(data)}
	root = yamlpos.Deref(root)
	if root == nil || root.Tag == "!!null" {
		return l
	}
	if root.Kind != yaml.MappingNode {
		d.WrongType(root, "expected a mapping", file, "a YAML mapping", yamlpos.KindName(root))
		return l
	}
	body := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: root.Line, Column: root.Column}
	d.Derive(body, root)
	for _, e := range d.Mapping(root) {
		if e.Key == "defaults" {
			l.defaults = d.defaultsList(e.V, file)
			continue
		}
		body.Content = append(body.Content, e.K, e.V)
	}
	l.root = body
	return l
}

var headerRE = regexp.MustCompile(`^\s*#\s*@`)

// packageHeader reads `# @package X` from the comment lines that open a
// file (config_source._get_header_dict).
func packageHeader(data []byte) *string {
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if !headerRE.Match(line) {
			return nil
		}
		f := strings.Fields(strings.TrimLeft(string(line), "# \t"))
		if len(f) == 2 && f[0] == "@package" {
			return &f[1]
		}
	}
	return nil
}

var envRefRE = regexp.MustCompile(`\$\{\s*oc\.env:\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:,([^}]*))?\}`)

// searchPath adds the primary config's hydra.searchpath folders. An entry
// naming an unset environment variable (RLinf's run scripts export
// EMBODIED_PATH and REPO_PATH) is taken as the nearest folder above the
// config that holds the rest of the path; a note says so when it is used.
func (r *repo) searchPath(primary *yaml.Node, ovs Overrides) {
	var sp *yaml.Node
	if h, ok := yamlpos.Lookup(r.d.Mapping(primary), "hydra"); ok {
		if e, ok := yamlpos.Lookup(r.d.Mapping(h.V), "searchpath"); ok {
			sp = yamlpos.Deref(e.V)
		}
	}
	if o, ok := r.searchPathOverride(ovs); ok {
		sp = o
	}
	if sp == nil || sp.Kind != yaml.SequenceNode {
		return
	}
	for _, item := range sp.Content {
		item = yamlpos.Deref(item)
		if item.Kind != yaml.ScalarNode {
			continue
		}
		path, ok := strings.CutPrefix(item.Value, "file://")
		if !ok {
			continue // pkg:// folders are Python packages, not files
		}
		root := &searchRoot{from: item}
		var unset []string
		path = envRefRE.ReplaceAllStringFunc(path, func(ref string) string {
			m := envRefRE.FindStringSubmatch(ref)
			if v, ok := r.opt.Getenv(m[1]); ok {
				return v
			}
			if m[2] != "" {
				return strings.TrimSpace(m[2])
			}
			unset = append(unset, m[1])
			return "\x00"
		})
		if strings.Contains(path, "${") {
			continue // another interpolation: Hydra fails on it too
		}
		if len(unset) == 1 && strings.HasPrefix(path, "\x00") {
			root.dir, root.guess = r.guessFolder(unset[0], strings.TrimPrefix(path, "\x00"))
		} else if len(unset) == 0 {
			root.dir = filepath.FromSlash(path)
		}
		switch {
		case root.dir == "":
			r.unset = append(r.unset, fmt.Sprintf("`%s` (%s is not set)", item.Value, strings.Join(unset, ", ")))
		case !r.hasRoot(root.dir):
			r.roots = append(r.roots, root)
		}
	}
}

// searchPathOverride is the command line's hydra.searchpath: Hydra
// replaces the config's list with it (nil for `~hydra.searchpath`); ok is
// false when the command line does not set it. The last one wins.
func (r *repo) searchPathOverride(ovs Overrides) (*yaml.Node, bool) {
	var last *Override
	for i := range ovs.List {
		if ovs.List[i].Key == "hydra.searchpath" {
			last = &ovs.List[i]
		}
	}
	if last == nil {
		return nil, false
	}
	if last.Kind == OverrideDelete || last.Value == nil {
		return nil, true
	}
	r.d.Place(last.Value, r.d.AddSource(OverrideSource, []byte(ovs.Text)))
	return yamlpos.Deref(last.Value), true
}

func (r *repo) hasRoot(dir string) bool {
	for _, root := range r.roots {
		if mustAbs(root.dir) == mustAbs(dir) {
			return true
		}
	}
	return false
}

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	return a
}

// guessFolder finds the nearest folder above the primary config's folder
// that holds rest, standing for the unset variable.
func (r *repo) guessFolder(name, rest string) (string, string) {
	rest = strings.TrimPrefix(rest, "/")
	dir := r.roots[0].dir
	for i := 0; i < 32; i++ {
		if found := filepath.Join(dir, filepath.FromSlash(rest)); r.exists(found, true) {
			return found, fmt.Sprintf("%s is not set: rlsolve took it as %s, the nearest folder above the config that holds %s", name, dir, rest)
		}
		if abs, err := filepath.Abs(dir); err != nil || abs == filepath.Dir(abs) {
			break
		}
		dir = filepath.Join(dir, "..")
	}
	return "", ""
}

// noteGuesses notes each guessed search folder that composition used.
func (r *repo) noteGuesses() {
	for _, root := range r.roots {
		if root.used && root.guess != "" {
			r.d.Notef(model.NoteSearchPath, r.d.Span(root.from), "read from "+root.dir, "hydra.searchpath: %s", root.guess).Help =
				[]model.Fix{{Message: "set the variable as RLinf's run script does to choose the folder yourself"}}
		}
	}
}

// osStat and friends are the defaults of ConfigOptions.
var (
	osStat    = os.Stat
	osReadDir = func(dir string) ([]string, error) {
		es, err := os.ReadDir(dir)
		names := make([]string, 0, len(es))
		for _, e := range es {
			names = append(names, e.Name())
		}
		return names, err
	}
)
