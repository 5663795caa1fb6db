package grammar

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/internal/fuzzy"
	"github.com/rlsolve/rlsolve/internal/yamlpos"
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
// from data, composing its Hydra `defaults:` list from the files beside it.
// It returns the config (nil when the file is unusable) and every problem
// found, each located in the file it is in.
func LoadConfig(file string, data []byte, lim Limits) (*model.Config, model.Diagnostics) {
	return LoadConfigWith(file, data, ConfigOptions{Limits: lim})
}

// LoadConfigWith is LoadConfig with command-line overrides and the ways
// composition reaches files.
func LoadConfigWith(file string, data []byte, opt ConfigOptions) (*model.Config, model.Diagnostics) {
	d := compose(file, data, opt)
	if d.Root == nil {
		return nil, d.Diags
	}
	cfg := d.config()
	return cfg, d.Diags
}

// ReadConfig reads the cluster section (and the keys placement reads) of
// a document already composed, adding its diagnostics to the document's.
func ReadConfig(y *yamlpos.Doc, lim Limits) *model.Config {
	if y.Root == nil {
		return nil
	}
	return (&doc{Doc: y, limits: lim}).config()
}

func (d *doc) config() *model.Config {
	top := d.Mapping(d.Root)
	if yamlpos.Deref(d.Root).Kind != yaml.MappingNode {
		d.WrongType(d.Root, "expected a mapping", d.File(), "a YAML mapping with a `cluster:` key", yamlpos.KindName(d.Root))
		return nil
	}
	cfg := &model.Config{File: d.File()}
	cluster := d.Root
	whole := true
	if e, ok := yamlpos.Lookup(top, "cluster"); ok {
		cluster = yamlpos.Deref(e.V)
		cfg.ClusterSpan = d.Span(e.K)
		if cluster == nil || cluster.Kind != yaml.MappingNode {
			d.wrongKind(e.V, "expected a mapping", "`cluster`", "a mapping", yamlpos.KindName(e.V))
			return nil
		}
	} else if _, ok := yamlpos.Lookup(top, "num_nodes"); ok {
		whole = false
	} else if _, ok := yamlpos.Lookup(top, "component_placement"); ok {
		whole = false
	} else if e, ok := yamlpos.Lookup(top, "inventory"); ok && len(top) == 1 {
		d.Errorf(model.CodeMissingField, d.Span(e.K), "", "%s is an inventory, not a config: pass it with --inventory", d.File())
		return nil
	} else {
		diag := d.Errorf(model.CodeMissingField, model.Span{File: d.File(), Line: 1, Col: 1, EndLine: 1, EndCol: 2}, "",
			"%s has no `cluster:` section", d.File())
		if len(d.composed) > 1 {
			diag.Why = fmt.Sprintf("rlsolve composed its Hydra defaults list (%s) and none of them has `cluster:`.", strings.Join(d.composed, ", "))
			diag.Help = []model.Fix{{Message: "add the cluster section, or a defaults entry for the config that has it"}}
		}
		return nil
	}
	if cfg.ClusterSpan.File == "" {
		cfg.ClusterSpan = model.Span{File: d.File(), Line: 1, Col: 1, EndLine: 1, EndCol: 2}
	}
	d.clusterSection(cfg, cluster)
	if whole {
		d.modelParallel(cfg)
		d.runConfig(cfg)
		d.sections(cfg)
		cfg.Memory = d.memorySettings(cfg)
	}
	if e, ok := yamlpos.Lookup(top, "inventory"); ok {
		if cfg.Inventory = d.inventory(e.V); cfg.Inventory == nil {
			cfg.MarkBroken(model.BrokenInventory, "") // its errors are reported; nothing else to place on
		}
	}
	d.placeholders()
	return cfg
}

func (d *doc) clusterSection(cfg *model.Config, cluster *yaml.Node) {
	es := d.Mapping(cluster)
	for _, e := range es {
		if !slices.Contains(knownClusterKeys, e.Key) {
			w := d.Warnf(model.WarnUnknownKey, d.Span(e.K), "ignored by RLinf", "unknown key `%s` under cluster: RLinf ignores it", e.Key)
			if s := fuzzy.Nearest(e.Key, knownClusterKeys); s != "" {
				w.Help = []model.Fix{{Message: fmt.Sprintf("did you mean `%s`?", s), Edits: []model.Edit{{Span: d.Span(e.K), NewText: s}}}}
			}
		}
	}
	var missing []string
	for _, k := range []string{"num_nodes", "component_placement"} {
		if _, ok := yamlpos.Lookup(es, k); !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		d.Errorf(model.CodeMissingField, cfg.ClusterSpan, "", "the cluster section is missing %s", joinQuoted(missing))
	}
	numOK := false
	if e, ok := yamlpos.Lookup(es, "num_nodes"); ok {
		cfg.NumNodesSpan = d.Span(e.V)
		if n, _, ok := d.Integer(e.V, "num_nodes"); ok {
			switch {
			case n <= 0:
				d.Errorf(model.CodeInvalidValue, cfg.NumNodesSpan, "must be positive", "num_nodes must be a positive integer, but got %d", n)
			case n > d.limits.MaxClusterNodes:
				d.Record(nil, yamlpos.Limit{What: "num_nodes", Size: strconv.Itoa(n), Max: d.limits.MaxClusterNodes}.Diagnostic(cfg.NumNodesSpan, "too many nodes"))
			default:
				cfg.NumNodes, numOK = n, true
			}
		}
	} else {
		cfg.NumNodesSpan = cfg.ClusterSpan
	}
	if e, ok := yamlpos.Lookup(es, "profiling"); ok {
		d.profiling(e.V)
	}
	if e, ok := yamlpos.Lookup(es, "node_groups"); ok && yamlpos.Deref(e.V).Tag != "!!null" {
		d.nodeGroups(cfg, e.V, numOK)
	}
	if e, ok := yamlpos.Lookup(es, "component_placement"); ok {
		cfg.ComponentsSpan = d.Span(e.K)
		d.components(cfg, e.V)
	}
	for _, k := range switchKeys {
		if e, ok := yamlpos.Lookup(es, k); ok {
			f := model.BoolFact{Set: true, Span: d.Span(e.V)}
			f.Value = d.switchValue(e.V, "cluster."+k)
			switch k {
			case "auto_scheduler":
				cfg.ModelParallel.AutoScheduler = f
			case "use_pre_process_policy":
				cfg.ModelParallel.UsePreProcessPolicy = f
			}
		}
	}
}

// switchKeys are the cluster's boolean switches, which RLinf reads by
// truthiness (getattr(cfg.cluster, key, False)).
var switchKeys = []string{"auto_scheduler", "use_pre_process_policy", "use_wait_before_last_iter_policy", "recreate_nccl_groups"}

// switchValue reads a switch as RLinf does, by truthiness, but refuses a
// mapping or list (D16): RLinf would turn the switch on for any non-empty
// one, which no one means.
func (d *doc) switchValue(n *yaml.Node, what string) bool {
	if v := yamlpos.Deref(n); v != nil && (v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode) {
		diag := d.WrongType(v, "expected true or false", "the switch "+what, "true or false", yamlpos.KindName(v))
		diag.Why = "RLinf reads the switch by its truthiness, so a non-empty mapping or list turns it on and an empty one off (D16)."
		diag.Help = []model.Fix{{Message: fmt.Sprintf("write `%s: true` or `%s: false`", what[strings.LastIndexByte(what, '.')+1:], what[strings.LastIndexByte(what, '.')+1:])}}
		return false
	}
	v, ok := d.ScalarAs(n, what, yamlpos.Bool)
	return ok && v.Py.Str != "False" && v.Py.Str != "None" && v.Py.Str != "" && v.Py.Str != "0"
}

func (d *doc) profiling(n *yaml.Node) {
	n = yamlpos.Deref(n)
	if n == nil || n.Tag == "!!null" {
		return
	}
	es := d.Mapping(n)
	if n.Kind != yaml.MappingNode {
		d.WrongType(n, "expected a mapping", "cluster.profiling", "a mapping", yamlpos.KindName(n))
		return
	}
	e, ok := yamlpos.Lookup(es, "backend")
	if !ok {
		d.Errorf(model.CodeMissingField, d.Span(n), "", "cluster.profiling.backend must be specified (known backends: nsight, rocprof_sys)")
		return
	}
	if v, ok := d.Scalar(e.V, "profiling backend"); ok && v.Py.Str != "nsight" && v.Py.Str != "rocprof_sys" {
		d.Errorf(model.CodeInvalidValue, v.Span, "unknown backend", "unknown profiling backend %q; known backends: nsight, rocprof_sys", v.Py.Str)
	}
}

func (d *doc) nodeGroups(cfg *model.Config, n *yaml.Node, numOK bool) {
	n = yamlpos.Deref(n)
	if n.Kind != yaml.SequenceNode {
		d.wrongKind(n, "expected a list", "cluster.node_groups", "a list of mappings", yamlpos.KindName(n))
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
	item = yamlpos.Deref(item)
	g := model.NodeGroup{Span: d.Span(item)}
	if item.Kind != yaml.MappingNode {
		d.wrongKind(item, "expected a mapping", fmt.Sprintf("node_groups[%d]", i), "a mapping with label and node_ranks", fmt.Sprintf("%s %q", yamlpos.KindName(item), item.Value))
		return g, false
	}
	es := d.Mapping(item)
	ok := d.fields(es, groupKeys, []string{"label", "node_ranks"}, g.Span, fmt.Sprintf("node_groups[%d]", i))
	if e, has := yamlpos.Lookup(es, "label"); has {
		g.LabelSpan = d.Span(e.V)
		if v, good := d.Scalar(e.V, "label"); good {
			g.Label = v.Py.Str
			if g.Label == "cluster" || g.Label == "node" {
				d.Errorf(model.CodeReservedLabel, g.LabelSpan, "reserved", "node group label %q is reserved by RLinf's scheduler", g.Label).Help =
					[]model.Fix{{Message: "choose another label (labels are case-sensitive)"}}
				ok = false
			}
		} else {
			ok = false
		}
	}
	if e, has := yamlpos.Lookup(es, "hardware"); has && yamlpos.Deref(e.V).Tag != "!!null" {
		g.Hardware = d.hardware(e.V)
		if g.Hardware == nil {
			ok = false
		} else {
			g.HardwareType, g.HardwareTypeSpan = g.Hardware.Type, g.Hardware.TypeSpan
			if t, has := yamlpos.Lookup(es, "hardware_type"); has && yamlpos.Deref(t.V).Tag != "!!null" {
				diag := d.Errorf(model.CodeHardwareExclusive, d.Span(t.K), "remove this", "hardware_type must not be set when hardware is given")
				diag.Labels = []model.Label{{Span: d.Span(e.K), Message: "hardware sets the type"}}
				ok = false
			}
		}
	} else if t, has := yamlpos.Lookup(es, "hardware_type"); has && yamlpos.Deref(t.V).Tag != "!!null" {
		if v, good := d.Scalar(t.V, "hardware_type"); good {
			g.HardwareType, g.HardwareTypeSpan = v.Py.Str, v.Span
		}
	}
	if e, has := yamlpos.Lookup(es, "ignore_hardware"); has {
		if b, _, good := d.Boolean(e.V, "ignore_hardware"); good {
			g.IgnoreHardware = b
			if b && g.Hardware != nil {
				d.Errorf(model.CodeHardwareExclusive, d.Span(e.V), "ignore_hardware is true", "hardware cannot be given when ignore_hardware is true")
				ok = false
			}
			if b {
				g.HardwareType = ""
			}
		}
	}
	if e, has := yamlpos.Lookup(es, "node_ranks"); has {
		g.RanksSpan = d.Span(e.V)
		if v, good := d.Scalar(e.V, "node_ranks"); good && numOK {
			ranks, good := d.expandRanks(v, span0(cfg.NumNodes), "node_ranks", fmt.Sprintf("node group %q", g.Label))
			g.NodeRanks = ranks
			if !good {
				ok = false
			} else if len(ranks) == 0 {
				d.Warnf(model.WarnEmptyGroup, v.Span, "no nodes", "node group %q has no nodes: RLinf drops it silently", g.Label)
			}
		} else {
			ok = false
		}
	}
	if e, has := yamlpos.Lookup(es, "env_configs"); has && yamlpos.Deref(e.V).Tag != "!!null" {
		g.EnvConfigs = d.envConfigs(&g, e.V, ok)
	}
	if g.Hardware != nil && ok {
		for _, rc := range g.Hardware.Configs {
			if !slices.Contains(g.NodeRanks, rc.NodeRank) {
				diag := d.Errorf(model.CodeHardwareNodeOutside, rc.NodeRankSpan, "not in the group",
					"hardware config node_rank %d is not one of node group %q's nodes %v", rc.NodeRank, g.Label, g.NodeRanks)
				diag.Labels = []model.Label{{Span: g.RanksSpan, Message: "the group's node_ranks"}}
			}
		}
	}
	return g, ok
}

// fields checks a mapping's keys against RLinf's dataclass fields.
func (d *doc) fields(es []yamlpos.Entry, valid, required []string, at model.Span, what string) bool {
	return d.checkFields(es, valid, required, at, what, "RLinf rejects unknown fields here.", "")
}

// inventoryFields checks the keys of rlsolve's own inventory format; hint
// follows a missing-field error.
func (d *doc) inventoryFields(es []yamlpos.Entry, valid, required []string, at model.Span, what, hint string) bool {
	return d.checkFields(es, valid, required, at, what, "An unknown key in the inventory would be silently lost; rlsolve refuses it.", hint)
}

func (d *doc) checkFields(es []yamlpos.Entry, valid, required []string, at model.Span, what, why, hint string) bool {
	ok := true
	// A misspelt required key is one mistake: report it as the unknown
	// field (with its fix), not also as a missing one.
	meant := map[string]bool{}
	for _, e := range es {
		if !slices.Contains(valid, e.Key) {
			diag := d.Errorf(model.CodeUnknownField, d.Span(e.K), "unknown field", "unknown field `%s` in %s (valid: %s)", e.Key, what, strings.Join(valid, ", "))
			if s := fuzzy.Nearest(e.Key, valid); s != "" {
				diag.Help = []model.Fix{{Message: fmt.Sprintf("did you mean `%s`?", s), Edits: []model.Edit{{Span: d.Span(e.K), NewText: s}}}}
				meant[s] = true
			}
			diag.Why = why
			ok = false
		}
	}
	var missing []string
	for _, r := range required {
		if _, has := yamlpos.Lookup(es, r); !has && !meant[r] {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		diag := d.Errorf(model.CodeMissingField, at, "", "%s is missing %s", what, joinQuoted(missing))
		if hint != "" {
			diag.Help = []model.Fix{{Message: hint}}
		}
		ok = false
	}
	return ok
}

func (d *doc) envConfigs(g *model.NodeGroup, n *yaml.Node, groupOK bool) []model.EnvConfig {
	n = yamlpos.Deref(n)
	if n.Kind != yaml.SequenceNode {
		d.wrongKind(n, "expected a list", "env_configs", "a list of mappings", yamlpos.KindName(n)).Help =
			[]model.Fix{{Message: "perhaps a '-' is missing before node_ranks"}}
		return nil
	}
	var out []model.EnvConfig
	for j, item := range n.Content {
		item = yamlpos.Deref(item)
		ec := model.EnvConfig{Span: d.Span(item)}
		if item.Kind != yaml.MappingNode {
			d.wrongKind(item, "expected a mapping", fmt.Sprintf("env_configs[%d]", j), "a mapping", yamlpos.KindName(item))
			continue
		}
		es := d.Mapping(item)
		if !d.fields(es, []string{"node_ranks", "env_vars", "python_interpreter_path"}, []string{"node_ranks"}, ec.Span, fmt.Sprintf("env_configs[%d] of node group %q", j, g.Label)) {
			continue
		}
		re, _ := yamlpos.Lookup(es, "node_ranks")
		ec.RanksSpan = d.Span(re.V)
		if v, ok := d.Scalar(re.V, "env_configs node_ranks"); ok && groupOK {
			if len(g.NodeRanks) == 0 {
				d.Errorf(model.CodeEnvRanksNotSubset, v.Span, "", "env_configs[%d] names nodes, but node group %q has none", j, g.Label)
			} else if ranks, good := d.expandRanks(v, g.NodeRanks, "env_configs node_ranks", fmt.Sprintf("node group %q", g.Label)); good {
				ec.NodeRanks = ranks
				for _, r := range ranks {
					if !slices.Contains(g.NodeRanks, r) {
						diag := d.Errorf(model.CodeEnvRanksNotSubset, v.Span, fmt.Sprintf("includes node %d", r),
							"env_configs[%d] node_ranks %v must be a subset of node group %q's nodes %v", j, ranks, g.Label, g.NodeRanks)
						diag.Labels = []model.Label{{Span: g.RanksSpan, Message: "the group's node_ranks"}}
						diag.Help = subsetFix(v, ranks, g.NodeRanks)
						break
					}
				}
			}
		}
		if e, ok := yamlpos.Lookup(es, "python_interpreter_path"); ok && yamlpos.Deref(e.V).Tag != "!!null" {
			if v, good := d.interpreter(e.V); good {
				ec.Interpreter, ec.HasInterpreter, ec.InterpreterSpan = v.Py.Str, true, v.Span
			}
		}
		if e, ok := yamlpos.Lookup(es, "env_vars"); ok && yamlpos.Deref(e.V).Tag != "!!null" {
			ec.HasEnvVars = true
			ev := yamlpos.Deref(e.V)
			if ev.Kind != yaml.SequenceNode {
				d.wrongKind(ev, "expected a list", "env_vars", "a list of one-key mappings", yamlpos.KindName(ev)).Help =
					[]model.Fix{{Message: "write each variable as a list item: `- NAME: value`"}}
			} else {
				for _, kv := range ev.Content {
					kv = yamlpos.Deref(kv)
					if kv.Kind != yaml.MappingNode {
						d.wrongKind(kv, "expected `NAME: value`", "an env_vars item", "a mapping `NAME: value`", yamlpos.KindName(kv))
						continue
					}
					kes := d.Mapping(kv)
					if len(kes) != 1 {
						d.WrongType(kv, "one variable per item", "each env_vars item", "exactly one `NAME: value` pair", fmt.Sprintf("%d pairs", len(kes))).Help =
							[]model.Fix{{Message: "start each variable with its own '-'"}}
						continue
					}
					kv0 := kes[0]
					kval, ok1 := d.Scalar(kv0.K, "env var name")
					vval, ok2 := d.Scalar(kv0.V, "env var value")
					if !ok1 || !ok2 {
						continue
					}
					if !envName.MatchString(kval.Py.Str) {
						// The name reaches a process environment and `plan --output env`'s
						// export lines: only a shell identifier is safe in both.
						d.Errorf(model.CodeInvalidValue, kval.Span, "not a variable name", "env var name %q must be letters, digits and '_', not starting with a digit", kval.Py.Str)
						continue
					}
					v := model.EnvVar{Key: kval.Py.Str, Value: vval.Py.Str, KeySpan: kval.Span, ValueSpan: vval.Span}
					v.ItemSpan, _ = d.ItemLine(kv)
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
func (d *doc) expandRanks(v yamlpos.Value, available []int, what, owner string) ([]int, bool) {
	ranges, all, err := ParseRankList(v.Py.Str, d.limits.MaxRankValue)
	if err != nil {
		d.Record(nil, err.Diagnostic(v.Sub(err.Offset, err.Offset+err.Len), fmt.Sprintf("%s of %s: ", what, owner)))
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
			d.Errorf(model.CodeRankReversed, v.Sub(r.Off, r.EndOff), "end before start", "%s of %s: range %d-%d ends before it starts", what, owner, r.Start, r.End).Help =
				[]model.Fix{swapFix(v, v.Sub(r.Off, r.EndOff), r.End, r.Start)}
			return nil, false
		}
		for _, x := range [2]int{r.Start, r.End} {
			if x < lo || x > hi {
				d.Errorf(model.CodeNodeRanksRange, v.Sub(r.Off, r.EndOff), fmt.Sprintf("%d is outside %d-%d", x, lo, hi),
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

// subsetFix keeps the env_config's nodes that its group has, when some
// are and the value is the source text.
func subsetFix(v yamlpos.Value, ranks, group []int) []model.Fix {
	var keep []int
	for _, r := range ranks {
		if slices.Contains(group, r) {
			keep = append(keep, r)
		}
	}
	if len(keep) == 0 || !v.Exact {
		return nil
	}
	text := model.CompactRanks(keep, ",")
	return []model.Fix{{Message: fmt.Sprintf("keep the group's nodes: `node_ranks: %s`", text), Edits: []model.Edit{{Span: v.Span, NewText: text}}}}
}

// joinQuoted lists keys as messages name them: `a` and `b`.
func joinQuoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	return strings.Join(q, " and ")
}
