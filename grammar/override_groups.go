package grammar

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// split sorts the overrides into config-group choices and config values
// (defaults_list.Overrides.__init__), placing their values in the command
// line's source. Hydra's own (hydra.*, hydra/*) are left out.
func (d *doc) split(ovs Overrides, r *repo) (groups, config []Override) {
	if len(ovs.List) == 0 {
		return nil, nil
	}
	src := d.AddSource(OverrideSource, []byte(ovs.Text))
	for _, o := range ovs.List {
		if o.Key == "hydra" || strings.HasPrefix(o.Key, "hydra.") || strings.HasPrefix(o.Key, "hydra/") {
			continue
		}
		if o.Value != nil {
			d.Place(o.Value, src)
		}
		isDict := o.Value != nil && o.Value.Kind == yaml.MappingNode
		if !isDict && r.groupExists(o.Key) || o.Kind == OverrideDelete && r.configExists(o.Key) {
			groups = append(groups, o)
			continue
		}
		config = append(config, o)
	}
	return groups, config
}

// configExists reports whether a config path names a file.
func (r *repo) configExists(path string) bool {
	file, _ := r.find(path)
	return file != ""
}

// spanOf is the span of characters [from, to) of the command line.
func spanOf(from, to int) model.Span {
	if to <= from {
		to = from + 1
	}
	return model.Span{File: OverrideSource, Line: 1, Col: from + 1, EndLine: 1, EndCol: to + 1}
}

func (o *Override) span() model.Span    { return spanOf(o.Off, o.Off+len(o.Arg)) }
func (o *Override) keySpan() model.Span { return spanOf(o.KeyOff, o.KeyEnd) }

// keyElement is the override's key with its package (get_key_element).
func (o *Override) keyElement() string {
	if o.Package != nil {
		return o.Key + "@" + *o.Package
	}
	return o.Key
}

// choice is a group's chosen option from an override.
type choice struct {
	value    string
	options  []string
	external bool
	used     bool
	in       string // the config whose defaults list overrides it
	relKey   string
	span     model.Span
}

type deletion struct {
	name *string
	used bool
	span model.Span
}

// overrides is Hydra's Overrides: the group choices of the command line
// and of `override` entries, appended groups, deletions, and the choices
// made so far.
type overrides struct {
	d         *doc
	repo      *repo
	choices   map[string]*choice
	order     []string
	appends   []*hydraDefault
	deletions map[string]*deletion
	known     map[string]known
	perGroup  map[string]map[string]bool
}

// known is a group's choice so far and where it was made.
type known struct {
	name string
	at   model.Span
}

func newOverrides(d *doc, r *repo, groups []Override) *overrides {
	ov := &overrides{d: d, repo: r, choices: map[string]*choice{}, deletions: map[string]*deletion{},
		known: map[string]known{}, perGroup: map[string]map[string]bool{}}
	for i := range groups {
		ov.command(&groups[i])
	}
	return ov
}

// command records one command-line group override.
func (ov *overrides) command(o *Override) {
	var value string
	var options []string
	if o.Value != nil {
		switch v := yamlpos.Deref(o.Value); {
		case v.Kind == yaml.ScalarNode:
			value = v.Value
		case v.Kind == yaml.SequenceNode:
			options = []string{}
			for _, c := range v.Content {
				options = append(options, c.Value)
			}
		}
	}
	switch {
	case o.Kind == OverrideDelete:
		del := &deletion{span: o.span()}
		if o.Value != nil {
			del.name = &value
		}
		ov.deletions[o.keyElement()] = del
	case o.Kind == OverrideForce:
		ov.d.Errorf(model.CodeOverride, o.span(), "a config group", "`%s` force-adds a config group, which Hydra does not support", o.Arg).Help =
			[]model.Fix{{Message: fmt.Sprintf("append it with one +: +%s", strings.TrimPrefix(o.Arg, "++"))}}
	case o.Kind == OverrideAdd:
		h := &hydraDefault{group: true, path: o.Key, pkg: o.Package, value: value, options: options, external: true, span: o.span()}
		ov.appends = append(ov.appends, h)
	default:
		key := o.keyElement()
		if _, seen := ov.choices[key]; !seen {
			ov.order = append(ov.order, key)
		}
		ov.choices[key] = &choice{value: value, options: options, external: true, span: o.span()}
	}
}

// add registers a defaults list's `override` entry; the first one met in
// the reverse walk (the last in the list) wins, and the command line wins
// over every entry.
func (ov *overrides) add(in string, h *hydraDefault) {
	if h.hydraOwn() {
		return
	}
	key := h.overrideKey()
	if _, ok := ov.choices[key]; ok {
		return
	}
	rel := h.path
	if h.pkg != nil && *h.pkg != strings.ReplaceAll(strings.TrimPrefix(h.path, "/"), "/", ".") {
		rel += "@" + *h.pkg
	}
	ov.order = append(ov.order, key)
	ov.choices[key] = &choice{value: h.value, options: h.options, in: in, relKey: rel, span: h.span}
}

// apply gives a group entry the option an override chose.
func (ov *overrides) apply(h *hydraDefault) {
	if !h.group {
		return
	}
	if c, ok := ov.choices[h.overrideKey()]; ok {
		h.value, h.options, h.null = c.value, c.options, false
		if c.options == nil && c.value == "" {
			h.null = true
		}
		if c.external {
			h.span = c.span // the option now comes from the command line
		}
		c.used = true
	}
}

// setKnown records a group's choice; a second, different choice of the
// same group fails as in Hydra.
func (ov *overrides) setKnown(h *hydraDefault) {
	if !h.group || h.options != nil {
		return
	}
	key := h.overrideKey()
	name, _ := h.name()
	if prev, ok := ov.known[key]; ok && prev.name != name {
		// Hydra walks the list from its end: prev is the later entry.
		d := ov.d.Errorf(model.CodeDefaultsConflict, h.span, "a second choice", "the group %s is chosen twice, as %s and as %s", key, name, prev.name)
		d.Labels = []model.Label{{Span: prev.at, Message: "chosen as " + prev.name + " here"}}
		d.Help = []model.Fix{{Message: fmt.Sprintf("to change the earlier choice, write `override %s: %s` there", key, prev.name)}}
		return
	}
	ov.known[key] = known{name, h.span}
	g := h.groupPath()
	if ov.perGroup[g] == nil {
		ov.perGroup[g] = map[string]bool{}
	}
	ov.perGroup[g][key] = true
}

// isDeleted reports (and records) an entry that a ~group override removes.
func (ov *overrides) isDeleted(h *hydraDefault) bool {
	key := h.configPath()
	if h.group {
		key = h.overrideKey()
	}
	del, ok := ov.deletions[key]
	if !ok {
		return false
	}
	name, _ := h.name()
	if del.name != nil && (!h.group || *del.name != name) {
		return false
	}
	del.used = true
	return true
}

// missing reports a group left at `???` that no override chose.
func (ov *overrides) missing(h *hydraDefault) {
	key := h.overrideKey()
	d := ov.d.Record(nil, yamlpos.Mandatory(h.span, "never chosen", "the config group "+key, "a config must be chosen for it"))
	d.Why = "Hydra refuses to compose a defaults list with a group left at `???`."
	fix := fmt.Sprintf("choose one on the command line: %s=OPTION", key)
	if opts := ov.repo.options(h.groupPath()); len(opts) > 0 {
		fix += " (options: " + strings.Join(limitList(opts, 12), ", ") + ")"
	}
	d.Help = []model.Fix{{Message: fix}}
}

// ensureUsed reports overrides and deletions that matched nothing.
func (ov *overrides) ensureUsed() {
	for _, key := range ov.order {
		c := ov.choices[key]
		if c.used {
			continue
		}
		if !c.external {
			ov.d.Errorf(model.CodeDefaultsConflict, c.span, "nothing to override",
				"in %s, `override %s` has no earlier entry for the group %s in the defaults list", c.in, c.relKey, key).Help =
				[]model.Fix{{Message: "drop `override` to add the group, or override a group that an earlier entry chooses"}}
			continue
		}
		d := ov.d.Errorf(model.CodeOverride, c.span, "no such group in the defaults list", "cannot override %s: the defaults list does not choose it", key)
		group := strings.SplitN(key, "@", 2)[0]
		var keys []string
		for k := range ov.perGroup[group] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if len(keys) > 0 {
			d.Help = append(d.Help, model.Fix{Message: "did you mean " + strings.Join(keys, " or ") + "?"})
		}
		d.Help = append(d.Help, model.Fix{Message: fmt.Sprintf("to append it to the defaults list, write +%s=%s", key, c.describe())})
	}
	for key, del := range ov.deletions {
		if !del.used {
			ov.d.Errorf(model.CodeOverride, del.span, "nothing to delete", "cannot delete %s: the defaults list does not have it", key)
		}
	}
}

func (c *choice) describe() string {
	if c.options != nil {
		return "[" + strings.Join(c.options, ",") + "]"
	}
	return c.value
}
