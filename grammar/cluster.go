package grammar

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/rlsolve/rlsolve/internal/fuzzy"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// knownClusterKeys are the keys under `cluster:` that RLinf reads somewhere;
// any other key is silently ignored by RLinf (D10: rlsolve warns).
var knownClusterKeys = []string{"num_nodes", "component_placement", "node_groups", "profiling", "auto_scheduler",
	"use_pre_process_policy", "net_emulation", "tracer", "use_wait_before_last_iter_policy", "recreate_nccl_groups"}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

var groupKeys = []string{"label", "node_ranks", "env_configs", "hardware", "hardware_type", "ignore_hardware"}

// LoadConfig reads an RLinf training config, or a bare `cluster:` section,
// from data. It returns the config (nil when the file is unusable) and every
// problem found, each located in file.
func LoadConfig(file string, data []byte, lim Limits) (*model.Config, model.Diagnostics) {
	d := parseDoc(file, data, lim)
	if d.root == nil {
		return nil, d.diags
	}
	cfg := d.config()
	return cfg, d.diags
}

func (d *doc) config() *model.Config {
	top := d.mapping(d.root)
	if deref(d.root).Kind != yaml.MappingNode {
		d.errorf(model.CodeWrongType, d.span(d.root), "expected a mapping", "%s must be a YAML mapping with a `cluster:` key", d.file)
		return nil
	}
	cfg := &model.Config{File: d.file}
	cluster := d.root
	whole := true
	if e, ok := lookup(top, "cluster"); ok {
		cluster = deref(e.v)
		cfg.ClusterSpan = d.keySpan(e.k)
		if cluster == nil || cluster.Kind != yaml.MappingNode {
			d.errorf(model.CodeWrongType, d.span(e.v), "expected a mapping", "`cluster` must be a mapping, but got %s", kindName(e.v))
			return nil
		}
	} else if _, ok := lookup(top, "num_nodes"); ok {
		whole = false
	} else if _, ok := lookup(top, "component_placement"); ok {
		whole = false
	} else if e, ok := lookup(top, "inventory"); ok && len(top) == 1 {
		d.errorf(model.CodeMissingField, d.keySpan(e.k), "", "%s is an inventory, not a config: pass it with --inventory", d.file)
		return nil
	} else {
		diag := d.errorf(model.CodeMissingField, model.Span{File: d.file, Line: 1, Col: 1, EndLine: 1, EndCol: 2}, "",
			"%s has no `cluster:` section", d.file)
		if _, ok := lookup(top, "defaults"); ok {
			diag.Why = "The file uses Hydra `defaults:`; rlsolve reads one file and does not compose defaults."
			diag.Help = []model.Fix{{Message: "run rlsolve on the config that contains `cluster:` (or compose it first with Hydra's --cfg job)"}}
		}
		return nil
	}
	if cfg.ClusterSpan.File == "" {
		cfg.ClusterSpan = model.Span{File: d.file, Line: 1, Col: 1, EndLine: 1, EndCol: 2}
	}
	d.clusterSection(cfg, cluster)
	if whole {
		d.modelParallel(cfg)
		d.runConfig(cfg)
		d.sections(cfg)
		cfg.Memory = d.memorySettings(cfg)
	}
	if e, ok := lookup(top, "inventory"); ok {
		if cfg.Inventory = d.inventory(e.v); cfg.Inventory == nil {
			cfg.MarkBroken(model.BrokenInventory, "") // its errors are reported; nothing else to place on
		}
	}
	return cfg
}

func (d *doc) clusterSection(cfg *model.Config, cluster *yaml.Node) {
	es := d.mapping(cluster)
	for _, e := range es {
		if !contains(knownClusterKeys, e.key) {
			w := d.warnf(model.WarnUnknownKey, d.keySpan(e.k), "ignored by RLinf", "unknown key `%s` under cluster: RLinf ignores it", e.key)
			if s := fuzzy.Nearest(e.key, knownClusterKeys); s != "" {
				w.Help = []model.Fix{{Message: fmt.Sprintf("did you mean `%s`?", s), Edits: []model.Edit{{Span: d.keySpan(e.k), NewText: s}}}}
			}
		}
	}
	var missing []string
	for _, k := range []string{"num_nodes", "component_placement"} {
		if _, ok := lookup(es, k); !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		d.errorf(model.CodeMissingField, cfg.ClusterSpan, "", "the cluster section is missing %s", joinQuoted(missing))
	}
	numOK := false
	if e, ok := lookup(es, "num_nodes"); ok {
		cfg.NumNodesSpan = d.span(e.v)
		if n, _, ok := d.integer(e.v, "num_nodes"); ok {
			switch {
			case n <= 0:
				d.errorf(model.CodeInvalidValue, cfg.NumNodesSpan, "must be positive", "num_nodes must be a positive integer, but got %d", n)
			case n > d.limits.MaxClusterNodes:
				d.errorf(model.CodeLimit, cfg.NumNodesSpan, "too many nodes", "num_nodes is %d; rlsolve handles at most %d nodes", n, d.limits.MaxClusterNodes)
			default:
				cfg.NumNodes, numOK = n, true
			}
		}
	} else {
		cfg.NumNodesSpan = cfg.ClusterSpan
	}
	if e, ok := lookup(es, "profiling"); ok {
		d.profiling(e.v)
	}
	if e, ok := lookup(es, "node_groups"); ok && deref(e.v).Tag != "!!null" {
		d.nodeGroups(cfg, e.v, numOK)
	}
	if e, ok := lookup(es, "component_placement"); ok {
		cfg.ComponentsSpan = d.keySpan(e.k)
		d.components(cfg, e.v)
	}
	for _, k := range []string{"auto_scheduler", "use_pre_process_policy"} {
		if e, ok := lookup(es, k); ok {
			f := model.BoolFact{Set: true, Span: d.span(e.v)}
			v, ok := d.scalar(e.v, "cluster."+k)
			// RLinf tests truthiness (getattr(..., False)), not the type.
			f.Value = ok && v.py.str != "False" && v.py.str != "None" && v.py.str != "" && v.py.str != "0"
			if k == "auto_scheduler" {
				cfg.ModelParallel.AutoScheduler = f
			} else {
				cfg.ModelParallel.UsePreProcessPolicy = f
			}
		}
	}
}

func (d *doc) profiling(n *yaml.Node) {
	n = deref(n)
	if n == nil || n.Tag == "!!null" {
		return
	}
	es := d.mapping(n)
	if n.Kind != yaml.MappingNode {
		d.errorf(model.CodeWrongType, d.span(n), "expected a mapping", "cluster.profiling must be a mapping")
		return
	}
	e, ok := lookup(es, "backend")
	if !ok {
		d.errorf(model.CodeMissingField, d.span(n), "", "cluster.profiling.backend must be specified (known backends: nsight, rocprof_sys)")
		return
	}
	if v, ok := d.str(e.v, "profiling backend"); ok && v.py.str != "nsight" && v.py.str != "rocprof_sys" {
		d.errorf(model.CodeInvalidValue, v.span, "unknown backend", "unknown profiling backend %q; known backends: nsight, rocprof_sys", v.py.str)
	}
}

func (d *doc) nodeGroups(cfg *model.Config, n *yaml.Node, numOK bool) {
	n = deref(n)
	if n.Kind != yaml.SequenceNode {
		d.errorf(model.CodeWrongType, d.span(n), "expected a list", "cluster.node_groups must be a list of mappings, but got %s", kindName(n))
		return
	}
	// Duplicate labels and robots configured in two groups are rules
	// (rules/groups.go), judged with the rest.
	for i, item := range n.Content {
		g, ok := d.nodeGroup(cfg, i, item, numOK)
		if !ok {
			cfg.MarkBroken(model.BrokenGroup, g.Label)
			continue
		}
		cfg.NodeGroups = append(cfg.NodeGroups, g)
	}
}

func (d *doc) nodeGroup(cfg *model.Config, i int, item *yaml.Node, numOK bool) (model.NodeGroup, bool) {
	item = deref(item)
	g := model.NodeGroup{Span: d.span(item)}
	if item.Kind != yaml.MappingNode {
		v := item.Value
		d.errorf(model.CodeWrongType, d.span(item), "expected a mapping", "node_groups[%d] must be a mapping with label and node_ranks, but got %s %q", i, kindName(item), v)
		return g, false
	}
	es := d.mapping(item)
	ok := d.fields(es, groupKeys, []string{"label", "node_ranks"}, g.Span, fmt.Sprintf("node_groups[%d]", i))
	if e, has := lookup(es, "label"); has {
		g.LabelSpan = d.span(e.v)
		if v, good := d.str(e.v, "label"); good {
			g.Label = v.py.str
			if g.Label == "cluster" || g.Label == "node" {
				d.errorf(model.CodeReservedLabel, g.LabelSpan, "reserved", "node group label %q is reserved by RLinf's scheduler", g.Label).Help =
					[]model.Fix{{Message: "choose another label (labels are case-sensitive)"}}
				ok = false
			}
		} else {
			ok = false
		}
	}
	if e, has := lookup(es, "hardware"); has && deref(e.v).Tag != "!!null" {
		g.Hardware = d.hardware(e.v)
		if g.Hardware == nil {
			ok = false
		} else {
			g.HardwareType, g.HardwareTypeSpan = g.Hardware.Type, g.Hardware.TypeSpan
			if t, has := lookup(es, "hardware_type"); has && deref(t.v).Tag != "!!null" {
				diag := d.errorf(model.CodeHardwareExclusive, d.keySpan(t.k), "remove this", "hardware_type must not be set when hardware is given")
				diag.Labels = []model.Label{{Span: d.keySpan(e.k), Message: "hardware sets the type"}}
				ok = false
			}
		}
	} else if t, has := lookup(es, "hardware_type"); has && deref(t.v).Tag != "!!null" {
		if v, good := d.str(t.v, "hardware_type"); good {
			g.HardwareType, g.HardwareTypeSpan = v.py.str, v.span
		}
	}
	if e, has := lookup(es, "ignore_hardware"); has {
		if b, _, good := d.boolean(e.v, "ignore_hardware"); good {
			g.IgnoreHardware = b
			if b && g.Hardware != nil {
				d.errorf(model.CodeHardwareExclusive, d.span(e.v), "ignore_hardware is true", "hardware cannot be given when ignore_hardware is true")
				ok = false
			}
			if b {
				g.HardwareType = ""
			}
		}
	}
	if e, has := lookup(es, "node_ranks"); has {
		g.RanksSpan = d.span(e.v)
		if v, good := d.str(e.v, "node_ranks"); good && numOK {
			ranks, good := d.expandRanks(v, span0(cfg.NumNodes), "node_ranks", fmt.Sprintf("node group %q", g.Label))
			g.NodeRanks = ranks
			if !good {
				ok = false
			} else if len(ranks) == 0 {
				d.warnf(model.WarnEmptyGroup, v.span, "no nodes", "node group %q has no nodes: RLinf drops it silently", g.Label)
			}
		} else {
			ok = false
		}
	}
	if e, has := lookup(es, "env_configs"); has && deref(e.v).Tag != "!!null" {
		g.EnvConfigs = d.envConfigs(&g, e.v, ok)
	}
	if g.Hardware != nil && ok {
		for _, rc := range g.Hardware.Configs {
			if !containsInt(g.NodeRanks, rc.NodeRank) {
				diag := d.errorf(model.CodeHardwareNodeOutside, rc.NodeRankSpan, "not in the group",
					"hardware config node_rank %d is not one of node group %q's nodes %v", rc.NodeRank, g.Label, g.NodeRanks)
				diag.Labels = []model.Label{{Span: g.RanksSpan, Message: "the group's node_ranks"}}
			}
		}
	}
	return g, ok
}

// fields checks a mapping's keys against RLinf's dataclass fields.
func (d *doc) fields(es []entry, valid, required []string, at model.Span, what string) bool {
	return d.checkFields(es, valid, required, at, what, "RLinf rejects unknown fields here.", "")
}

// inventoryFields checks the keys of rlsolve's own inventory format; hint
// follows a missing-field error.
func (d *doc) inventoryFields(es []entry, valid, required []string, at model.Span, what, hint string) bool {
	return d.checkFields(es, valid, required, at, what, "An unknown key in the inventory would be silently lost; rlsolve refuses it.", hint)
}

func (d *doc) checkFields(es []entry, valid, required []string, at model.Span, what, why, hint string) bool {
	ok := true
	// A misspelt required key is one mistake: report it as the unknown
	// field (with its fix), not also as a missing one.
	meant := map[string]bool{}
	for _, e := range es {
		if !contains(valid, e.key) {
			diag := d.errorf(model.CodeUnknownField, d.keySpan(e.k), "unknown field", "unknown field `%s` in %s (valid: %s)", e.key, what, strings.Join(valid, ", "))
			if s := fuzzy.Nearest(e.key, valid); s != "" {
				diag.Help = []model.Fix{{Message: fmt.Sprintf("did you mean `%s`?", s), Edits: []model.Edit{{Span: d.keySpan(e.k), NewText: s}}}}
				meant[s] = true
			}
			diag.Why = why
			ok = false
		}
	}
	var missing []string
	for _, r := range required {
		if _, has := lookup(es, r); !has && !meant[r] {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		diag := d.errorf(model.CodeMissingField, at, "", "%s is missing %s", what, joinQuoted(missing))
		if hint != "" {
			diag.Help = []model.Fix{{Message: hint}}
		}
		ok = false
	}
	return ok
}

func (d *doc) hardware(n *yaml.Node) *model.HardwareConfig {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		d.errorf(model.CodeWrongType, d.span(n), "expected a mapping", "hardware must be a mapping {type, configs}, but got %s", kindName(n))
		return nil
	}
	es := d.mapping(n)
	if !d.fields(es, []string{"type", "configs"}, []string{"type", "configs"}, d.span(n), "hardware") {
		return nil
	}
	te, _ := lookup(es, "type")
	tv, ok := d.str(te.v, "hardware type")
	if !ok {
		return nil
	}
	hw := &model.HardwareConfig{Type: tv.py.str, TypeSpan: tv.span}
	fields, known := robotFields[hw.Type]
	if !known {
		diag := d.errorf(model.CodeUnsupportedHardware, tv.span, "not a registered type", "unsupported hardware type %q (RLinf supports %s)", hw.Type, strings.Join(model.RobotTypes, ", "))
		if s := fuzzy.Nearest(hw.Type, model.RobotTypes); s != "" {
			diag.Help = []model.Fix{{Message: fmt.Sprintf("types are case-sensitive: did you mean `%s`?", s), Edits: []model.Edit{{Span: tv.span, NewText: s}}}}
		}
		return nil
	}
	ce, _ := lookup(es, "configs")
	cn := deref(ce.v)
	if cn.Kind != yaml.SequenceNode {
		d.errorf(model.CodeWrongType, d.span(cn), "expected a list", "hardware.configs must be a list of mappings, but got %s", kindName(cn))
		return nil
	}
	valid := []string{"node_rank"}
	for _, f := range fields {
		valid = append(valid, f.name)
	}
	seen := map[string]model.Span{}
	good := true
	for j, c := range cn.Content {
		c = deref(c)
		if c.Kind != yaml.MappingNode {
			d.errorf(model.CodeWrongType, d.span(c), "expected a mapping", "hardware config %d must be a mapping, but got %s", j, kindName(c))
			good = false
			continue
		}
		ces := d.mapping(c)
		if !d.fields(ces, valid, []string{"node_rank"}, d.span(c), fmt.Sprintf("%s hardware config", hw.Type)) {
			good = false
			continue
		}
		rc := model.RobotConfig{Span: d.span(c), Fields: map[string]any{}}
		nr, _ := lookup(ces, "node_rank")
		rc.NodeRankSpan = d.span(nr.v)
		rank, _, ok := d.integer(nr.v, "node_rank")
		if !ok {
			good = false
			continue
		}
		rc.NodeRank = rank
		given := map[string]any{}
		for _, e := range ces {
			var v any
			if err := e.v.Decode(&v); err == nil {
				given[e.key] = v
			}
		}
		for _, f := range fields {
			rc.FieldOrder = append(rc.FieldOrder, f.name)
			rc.Fields[f.name] = f.def
			if v, has := given[f.name]; has {
				rc.Fields[f.name] = v
			}
			if e, has := lookup(ces, f.name); has && ipFields[f.name] && given[f.name] != nil {
				if s := fmt.Sprint(given[f.name]); !validIP(s) {
					d.errorf(model.CodeInvalidValue, d.span(e.v), "not an IP address", "%s in %s config must be a valid IP address, but got %q", f.name, hw.Type, s).Help =
						[]model.Fix{{Message: "replace the placeholder with the robot's IP address"}}
					good = false
				}
			}
			if f.name == "arm_variant" {
				if s := fmt.Sprint(rc.Fields[f.name]); s != "gim_arm" && s != "gim_arm_xl" {
					e, _ := lookup(ces, f.name)
					d.errorf(model.CodeInvalidValue, d.span(e.v), "", "arm_variant must be gim_arm or gim_arm_xl, but got %q", s)
					good = false
				}
			}
		}
		canon, _ := json.Marshal(given) // map keys sort, as yaml.dump(sort_keys=True)
		if first, dup := seen[string(canon)]; dup {
			diag := d.errorf(model.CodeHardwareDuplicate, rc.Span, "same as an earlier config", "duplicate %s hardware config", hw.Type)
			diag.Labels = []model.Label{{Span: first, Message: "first given here"}}
			good = false
			continue
		}
		seen[string(canon)] = rc.Span
		hw.Configs = append(hw.Configs, rc)
	}
	if !good {
		return nil
	}
	return hw
}

func (d *doc) envConfigs(g *model.NodeGroup, n *yaml.Node, groupOK bool) []model.EnvConfig {
	n = deref(n)
	if n.Kind != yaml.SequenceNode {
		d.errorf(model.CodeWrongType, d.span(n), "expected a list", "env_configs must be a list of mappings, but got %s", kindName(n)).Help =
			[]model.Fix{{Message: "perhaps a '-' is missing before node_ranks"}}
		return nil
	}
	var out []model.EnvConfig
	for j, item := range n.Content {
		item = deref(item)
		ec := model.EnvConfig{Span: d.span(item)}
		if item.Kind != yaml.MappingNode {
			d.errorf(model.CodeWrongType, d.span(item), "expected a mapping", "env_configs[%d] must be a mapping, but got %s", j, kindName(item))
			continue
		}
		es := d.mapping(item)
		if !d.fields(es, []string{"node_ranks", "env_vars", "python_interpreter_path"}, []string{"node_ranks"}, ec.Span, fmt.Sprintf("env_configs[%d] of node group %q", j, g.Label)) {
			continue
		}
		re, _ := lookup(es, "node_ranks")
		ec.RanksSpan = d.span(re.v)
		if v, ok := d.str(re.v, "env_configs node_ranks"); ok && groupOK {
			if len(g.NodeRanks) == 0 {
				d.errorf(model.CodeEnvRanksNotSubset, v.span, "", "env_configs[%d] names nodes, but node group %q has none", j, g.Label)
			} else if ranks, good := d.expandRanks(v, g.NodeRanks, "env_configs node_ranks", fmt.Sprintf("node group %q", g.Label)); good {
				ec.NodeRanks = ranks
				for _, r := range ranks {
					if !containsInt(g.NodeRanks, r) {
						diag := d.errorf(model.CodeEnvRanksNotSubset, v.span, fmt.Sprintf("includes node %d", r),
							"env_configs[%d] node_ranks %v must be a subset of node group %q's nodes %v", j, ranks, g.Label, g.NodeRanks)
						diag.Labels = []model.Label{{Span: g.RanksSpan, Message: "the group's node_ranks"}}
						break
					}
				}
			}
		}
		if e, ok := lookup(es, "python_interpreter_path"); ok && deref(e.v).Tag != "!!null" {
			if v, good := d.str(e.v, "python_interpreter_path"); good {
				ec.Interpreter, ec.HasInterpreter, ec.InterpreterSpan = v.py.str, true, v.span
			}
		}
		if e, ok := lookup(es, "env_vars"); ok && deref(e.v).Tag != "!!null" {
			ec.HasEnvVars = true
			ev := deref(e.v)
			if ev.Kind != yaml.SequenceNode {
				d.errorf(model.CodeWrongType, d.span(ev), "expected a list", "env_vars must be a list of one-key mappings, but got %s", kindName(ev)).Help =
					[]model.Fix{{Message: "write each variable as a list item: `- NAME: value`"}}
			} else {
				for _, kv := range ev.Content {
					kv = deref(kv)
					if kv.Kind != yaml.MappingNode {
						d.errorf(model.CodeWrongType, d.span(kv), "expected `NAME: value`", "each env_vars item must be a mapping `NAME: value`, but got %s", kindName(kv))
						continue
					}
					kes := d.mapping(kv)
					if len(kes) != 1 {
						d.errorf(model.CodeWrongType, d.span(kv), "one variable per item", "each env_vars item must hold exactly one NAME: value pair, but this one has %d", len(kes)).Help =
							[]model.Fix{{Message: "start each variable with its own '-'"}}
						continue
					}
					kv0 := kes[0]
					kval, ok1 := d.str(kv0.k, "env var name")
					vval, ok2 := d.str(kv0.v, "env var value")
					if !ok1 || !ok2 {
						continue
					}
					if !envName.MatchString(kval.py.str) {
						// The name reaches a process environment and `plan --output env`'s
						// export lines: only a shell identifier is safe in both.
						d.errorf(model.CodeInvalidValue, kval.span, "not a variable name", "env var name %q must be letters, digits and '_', not starting with a digit", kval.py.str)
						continue
					}
					v := model.EnvVar{Key: kval.py.str, Value: vval.py.str, KeySpan: kval.span, ValueSpan: vval.span}
					ec.EnvVars = append(ec.EnvVars, v)
				}
			}
		}
		out = append(out, ec)
	}
	return out
}

// expandRanks parses a rank spec against sorted available ranks, as
// parse_rank_config does: ranges must lie within [min, max] of available.
func (d *doc) expandRanks(v value, available []int, what, owner string) ([]int, bool) {
	ranges, all, err := ParseRankList(v.py.str, d.limits.MaxRankValue)
	if err != nil {
		d.errorf(err.DiagCode(), v.sub(err.Offset, err.Offset+err.Len), "", "%s of %s: %s", what, owner, err.Msg)
		return nil, false
	}
	if all {
		return append([]int(nil), available...), true
	}
	lo, hi := -1, -1
	if len(available) > 0 {
		lo, hi = available[0], available[len(available)-1]
	}
	for _, r := range ranges {
		if r.End < r.Start {
			d.errorf(model.CodeRankReversed, v.sub(r.Off, r.EndOff), "end before start", "%s of %s: range %d-%d ends before it starts", what, owner, r.Start, r.End).Help =
				[]model.Fix{{Message: fmt.Sprintf("write %d-%d", r.End, r.Start)}}
			return nil, false
		}
		for _, x := range [2]int{r.Start, r.End} {
			if x < lo || x > hi {
				d.errorf(model.CodeNodeRanksRange, v.sub(r.Off, r.EndOff), fmt.Sprintf("%d is outside %d-%d", x, lo, hi),
					"%s of %s: rank %d is outside the available ranks %s", what, owner, x, model.RangeText(available))
				return nil, false
			}
		}
	}
	// Merge the ranges first: the result is bounded by the available ranks,
	// and so is the work, however often a spec repeats a range.
	sorted := append([]Range(nil), ranges...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Start < sorted[j].Start })
	var out []int
	next := -1 // the first rank not yet in out
	for _, r := range sorted {
		for x := max(r.Start, next); x <= r.End; x++ {
			out = append(out, x)
		}
		next = max(next, r.End+1)
	}
	return out, true
}

func span0(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
