package grammar

import (
	"fmt"
	"strings"

	"github.com/rlsolve/rlsolve/internal/fuzzy"
	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// The YAML form of a slime layout: a top-level `slime:` key holding the
// flags' names with underscores (`actor_num_nodes: 2`, `colocate: true`),
// or a string of flags as on the command line; and optionally an
// `inventory:` key, as in RLinf configs.
//
//	slime:
//	  actor_num_nodes: 2
//	  actor_num_gpus_per_node: 8
//	  rollout_num_gpus: 8
//	  rollout_num_gpus_per_engine: 2
//	inventory:
//	  nodes: ...

// IsSlimeDoc reports whether data is a YAML mapping with a top-level
// `slime:` key and no `cluster:` key.
// It reads data within the default limits (a plain decode of a 15 MB list
// took 580 MB before the config was read, and refused, within them).
func IsSlimeDoc(data []byte) bool {
	m := yamlpos.Deref(parseDoc("", data, DefaultLimits).Root)
	if m == nil || m.Kind != yaml.MappingNode {
		return false
	}
	slime, cluster := false, false
	for i := 0; i+1 < len(m.Content); i += 2 {
		switch m.Content[i].Value {
		case "slime":
			slime = true
		case "cluster":
			cluster = true
		}
	}
	return slime && !cluster
}

// LoadSlime reads a slime YAML file. With required set, a file without a
// `slime:` key is an error; otherwise it may hold only an inventory (the
// flags then come from --slime). The config is nil when the file is
// unusable.
func LoadSlime(file string, data []byte, lim Limits, required bool) (*model.SlimeConfig, model.Diagnostics) {
	if lim.MaxFileBytes == 0 {
		lim = DefaultLimits
	}
	d := parseDoc(file, data, lim)
	if d.Root == nil {
		return nil, d.Diags
	}
	root := yamlpos.Deref(d.Root)
	if root.Kind != yaml.MappingNode {
		d.WrongType(root, "expected a mapping", file, "a YAML mapping with a `slime:` key", yamlpos.KindName(root))
		return nil, d.Diags
	}
	top := d.Mapping(root)
	first := model.Span{File: file, Line: 1, Col: 1, EndLine: 1, EndCol: 2}
	cfg := &model.SlimeConfig{Source: file, Span: first, End: first}
	e, ok := yamlpos.Lookup(top, "slime")
	switch {
	case ok:
		cfg.Span = d.Span(e.K)
		cfg.End = cfg.Span
		d.slime(cfg, e.V)
	case required:
		diag := d.Errorf(model.CodeMissingField, first, "", "%s has no `slime:` section", file)
		diag.Help = []model.Fix{{Message: "add `slime:` with the placement flags (actor_num_nodes, rollout_num_gpus, ...), or pass them with --slime"}}
		return nil, d.Diags
	}
	if e, ok := yamlpos.Lookup(top, "inventory"); ok {
		cfg.Inventory = d.inventory(e.V)
		if cfg.Inventory == nil {
			return nil, d.Diags
		}
	}
	return cfg, d.Diags
}

func (d *doc) slime(cfg *model.SlimeConfig, n *yaml.Node) {
	n = yamlpos.Deref(n)
	if n == nil || n.Tag == "!!null" {
		return
	}
	if n.Kind == yaml.ScalarNode {
		d.slimeString(cfg, n)
		return
	}
	if n.Kind != yaml.MappingNode {
		d.WrongType(n, "expected a mapping", "`slime`", "a mapping of flags (or a string of them)", yamlpos.KindName(n))
		return
	}
	var names []string
	for _, k := range model.SlimeKeys {
		names = append(names, k.Key)
		for _, a := range k.Aliases {
			names = append(names, a.Key)
		}
	}
	var ignored []string
	var ignSpan model.Span
	for _, e := range d.Mapping(n) {
		norm := strings.ReplaceAll(strings.TrimLeft(e.Key, "-"), "-", "_")
		key, asSwitch, ok := model.SlimeKeyByYAML(norm)
		ks := d.Span(e.K)
		if !ok {
			if near := fuzzy.Nearest(norm, names); near != "" && !strings.HasPrefix(norm, "sglang_") {
				diag := d.Errorf(model.CodeSlimeFlag, ks, "unknown key", "unknown slime key `%s`; did you mean `%s`?", e.Key, near)
				diag.Why = "A misspelt placement key would leave its default in force."
				diag.Help = []model.Fix{{Message: fmt.Sprintf("write `%s`", near), Edits: []model.Edit{{Span: ks, NewText: near}}}}
				continue
			}
			if len(ignored) == 0 {
				ignSpan = ks
			}
			ignored = append(ignored, e.Key)
			d.slimeFlag(cfg, e.Key, ks, e.V)
			continue
		}
		if v, ok := d.slimeValue(key, asSwitch, e.V); ok {
			v.Span = ks
			if v.ValueSpan.Line == ks.Line {
				v.Span.EndCol = v.ValueSpan.EndCol
			}
			cfg.Values[key] = v
			d.slimeFlag(cfg, e.Key, v.Span, e.V)
		}
	}
	if len(ignored) > 0 {
		d.Diags = append(d.Diags, model.Diagnostic{Code: model.NoteSlimeIgnored, Severity: model.SeverityNote,
			Summary:      fmt.Sprintf("ignored %d key(s) under slime: that do not affect placement: %s", len(ignored), quoteList(ignored)),
			Primary:      ignSpan,
			PrimaryLabel: "not a placement flag",
		})
	}
}

// slimeValue reads one key's value: a boolean for a switch, a path or
// addresses (a string or a list) for a Text key, else a count. ok is false
// when a diagnostic was recorded or a Text key is empty.
func (d *doc) slimeValue(key model.SlimeKey, asSwitch bool, n *yaml.Node) (model.SlimeValue, bool) {
	info := key.Info()
	what := "slime." + info.Key
	v := model.SlimeValue{Set: true, ValueSpan: d.Span(n), Value: 1}
	switch {
	case info.Bool || asSwitch:
		b, val, ok := d.Boolean(n, what)
		if !ok {
			return v, false
		}
		v.Value, v.ValueSpan = b2i(b), val.Span
		v.Text = fmt.Sprintf("%s: %v", info.Key, b)
		return v, true
	case info.Text:
		var parts []string
		for _, it := range append([]*yaml.Node{n}, yamlpos.Deref(n).Content...) {
			if it = yamlpos.Deref(it); it != nil && it.Kind == yaml.ScalarNode {
				parts = append(parts, it.Value)
			}
		}
		v.Arg = strings.Join(parts, " ")
		v.Set = v.Arg != "" && yamlpos.Deref(n).Tag != "!!null"
		v.Text = fmt.Sprintf("%s: %s", info.Key, v.Arg)
		return v, v.Set
	}
	x, val, ok := d.Integer(n, what)
	if !ok {
		return v, false
	}
	v.ValueSpan = val.Span
	least := 1
	if info.Zero {
		least = 0
	}
	if x < least || x > MaxSlimeValue {
		label, msg := "must be positive", fmt.Sprintf("%s must be at least %d, but is %d", what, least, x)
		if x > MaxSlimeValue {
			label, msg = "too large", fmt.Sprintf("%s is %d; rlsolve accepts at most %d", what, x, MaxSlimeValue)
		}
		d.Errorf(model.CodeSlimeValue, val.Span, label, "%s", msg)
		return v, false
	}
	v.Value = x
	v.Text = fmt.Sprintf("%s: %d", info.Key, x)
	return v, true
}

// slimeString reads `slime: "--actor-num-nodes 2 ..."`, with positions
// inside the scalar when it is written on one line as it reads.
func (d *doc) slimeString(cfg *model.SlimeConfig, n *yaml.Node) {
	v, ok := d.Scalar(n, "slime")
	if !ok {
		return
	}
	s := v.Py.Str
	loc := &slimeLocator{file: d.File(), s: s, at: func(off int) (int, int) {
		if v.Exact && v.Span.EndLine == v.Span.Line {
			return v.Span.Line, v.Span.Col + min(max(off, 0), len(s))
		}
		return v.Span.Line, v.Span.Col
	}}
	inner, ds := parseSlimeFlags(s, loc, d.limits, ScriptOptions{})
	d.Diags = append(d.Diags, ds...)
	if inner == nil {
		return
	}
	for k := range inner.Values {
		if inner.Values[k].Set {
			cfg.Values[k] = inner.Values[k]
		}
	}
	for name, v := range inner.Flags {
		cfg.SetFlag(name, v.Text, v.Span)
	}
}

// slimeFlag records a `slime:` key as the flag it spells (underscores as
// dashes): a scalar's text, a switch when true (false: absent), a list's
// items joined by spaces. ks is the key's span.
func (d *doc) slimeFlag(cfg *model.SlimeConfig, key string, ks model.Span, n *yaml.Node) {
	name := strings.ReplaceAll(strings.TrimLeft(key, "-"), "_", "-")
	n = yamlpos.Deref(n)
	if n == nil || n.Tag == "!!null" {
		return
	}
	at := ks
	if vs := d.Span(n); vs.Line == ks.Line {
		at.EndCol = vs.EndCol
	}
	if n.Tag == "!!bool" {
		if b, _, ok := d.Boolean(n, "slime."+key); ok && b {
			cfg.SetFlag(name, "", at)
		}
		return
	}
	var parts []string
	for _, it := range append([]*yaml.Node{n}, n.Content...) {
		if it = yamlpos.Deref(it); it != nil && it.Kind == yaml.ScalarNode {
			parts = append(parts, it.Value)
		}
	}
	cfg.SetFlag(name, strings.Join(parts, " "), at)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
