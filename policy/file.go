package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/internal/fuzzy"
	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// FileName is the settings file read beside a config, or in a folder above
// it up to the repository's root.
const FileName = ".rlsolve.yaml"

// fileKeys are the keys of .rlsolve.yaml.
var fileKeys = []string{"allow", "deny", "strict", "inventory"}

// maxFileBytes bounds .rlsolve.yaml: a few lists of codes.
const maxFileBytes = 1 << 20

var fileLimits = yamlpos.Limits{MaxFileBytes: maxFileBytes, MaxDepth: 8, MaxNodes: 10_000, MaxStringBytes: 1 << 10}

// Beside reads the nearest .rlsolve.yaml (Find from config's directory),
// when there is one: its settings, its bytes (for code frames) and what is
// wrong with it (RLS-E0114 at the key or value; RLS-E0110 when it cannot be
// read).
func Beside(config string) (Settings, string, []byte, model.Diagnostics) {
	name := Find(filepath.Dir(config))
	if name == "" {
		return Settings{}, "", nil, nil
	}
	data, d := grammar.ReadFile(name, grammar.Limits{MaxFileBytes: maxFileBytes})
	if d != nil {
		return Settings{}, name, nil, model.Diagnostics{*d}
	}
	s, ds := ReadFile(name, data)
	return s, name, data, ds
}

// Find is the .rlsolve.yaml in dir or the nearest folder above it, as git
// and editorconfig look for theirs: the search stops at the repository's
// root (the first folder holding .git) or at the file system's root, so a
// settings file outside the project never applies. "" when there is none.
func Find(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		name := filepath.Join(dir, FileName)
		if _, err := os.Stat(name); err == nil {
			return relative(name)
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return ""
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// relative gives name relative to the working directory when it lies
// below it, so messages name it as the user would.
func relative(name string) string {
	wd, err := os.Getwd()
	if err != nil {
		return name
	}
	if r, err := filepath.Rel(wd, name); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return name
}

// ReadFile reads the settings of a .rlsolve.yaml's bytes:
//
//	allow: [RLS-W0105]      # or a single code
//	deny: [W0104, W0105]
//	strict: true
//	inventory: cluster.yaml # relative to this file
func ReadFile(name string, data []byte) (Settings, model.Diagnostics) {
	var s Settings
	var probe yaml.Node
	if len(data) <= maxFileBytes && yaml.Unmarshal(data, &probe) == nil && len(probe.Content) == 0 {
		return s, nil // empty, or only comments: no settings
	}
	doc := yamlpos.Parse(name, data, fileLimits)
	if doc.Root == nil {
		return s, doc.Diags
	}
	root := yamlpos.Deref(doc.Root)
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return s, doc.Diags // `~` or `null`: no settings
	}
	if root.Kind != yaml.MappingNode {
		doc.Errorf(model.CodePolicy, doc.Span(root), "", "%s must be a mapping of allow, deny and strict, not %s", name, yamlpos.KindName(root))
		return s, doc.Diags
	}
	for _, e := range doc.Mapping(root) {
		switch e.Key {
		case "allow", "deny":
			lvl := Allow
			if e.Key == "deny" {
				lvl = Deny
			}
			s.readCodes(doc, e, lvl)
		case "strict":
			if v, val, ok := doc.Boolean(e.V, "strict"); ok {
				s.Strict, s.StrictBy = &v, fmt.Sprintf("strict: true in %s", val.Span)
			}
		case "inventory":
			if val, ok := doc.Scalar(e.V, "inventory"); ok && val.Py.Str != "" {
				s.Inventory = inventoryPath(name, val.Py.Str)
			} else if ok {
				doc.Errorf(model.CodePolicy, val.Span, "", "inventory: give the inventory's file, relative to %s", name)
			}
		default:
			d := doc.Errorf(model.CodePolicy, doc.Span(e.K), "not a setting", "unknown setting %q; %s takes allow, deny, strict and inventory", e.Key, FileName)
			if near := fuzzy.Nearest(e.Key, fileKeys); near != "" {
				d.Help = []model.Fix{{Message: fmt.Sprintf("did you mean `%s`?", near), Edits: []model.Edit{{Span: doc.Span(e.K), NewText: near}}}}
			}
		}
	}
	return s, doc.Diags
}

// inventoryPath is an inventory: value as the command line would give it:
// a live Ray cluster's URL as written, a file relative to the settings
// file's folder.
func inventoryPath(settings, v string) string {
	if strings.Contains(v, "://") || filepath.IsAbs(v) {
		return v
	}
	return filepath.Join(filepath.Dir(settings), v)
}

// readCodes reads an allow or deny value: one code, or a list of codes.
func (s *Settings) readCodes(doc *yamlpos.Doc, e yamlpos.Entry, lvl Level) {
	v := yamlpos.Deref(e.V)
	items := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		items = v.Content
	}
	for _, n := range items {
		val, ok := doc.Scalar(n, e.Key)
		if !ok {
			continue
		}
		code, err := Code(val.Py.Str, lvl)
		if err == nil {
			err = s.add(Setting{Code: code, Level: lvl, By: fmt.Sprintf("%s %s in %s", lvl, code, val.Span)})
		}
		if err != nil {
			doc.Errorf(model.CodePolicy, val.Span, "", "%s", err)
		}
	}
}

// DefaultInventory is the inventory of a command line that names none:
// $RLSOLVE_INVENTORY, else the inventory: of the .rlsolve.yaml nearest
// config (or the working directory's, config ""). What is wrong with that
// file is reported with each config, not here.
func DefaultInventory(config string, getenv func(string) string) string {
	if env := getenv("RLSOLVE_INVENTORY"); env != "" {
		return env
	}
	if config == "" {
		config = filepath.Join(".", "config")
	}
	s, _, _, _ := Beside(config)
	return s.Inventory
}
