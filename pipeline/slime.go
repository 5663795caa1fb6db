package pipeline

import (
	"io"
	"path/filepath"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/memory"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
	"github.com/rlsolve/rlsolve/strategies"
	"github.com/rlsolve/rlsolve/topology"
)

// SlimeOutcome is everything known about one slime layout. Its Outcome
// carries the diagnostics and exit status as for RLinf configs (Config and
// Result stay nil); the slime plan is in Plan.
type SlimeOutcome struct {
	*Outcome
	Slime    *model.SlimeConfig
	Topology *model.SlimeTopology
	Plan     *strategies.SlimeResult
}

// CheckSlime runs the whole check on a slime layout: the --slime flags,
// a YAML file (its `slime:` keys and `inventory:`), or both, the flags
// winning. file may be "" when flags are given.
func CheckSlime(flags, file string, opt Options) *SlimeOutcome {
	if file == "" {
		return CheckSlimeBytes(flags, "", nil, opt)
	}
	data, d := grammar.ReadFile(file, opt.Limits)
	if d != nil {
		return &SlimeOutcome{Outcome: &Outcome{File: file, Diagnostics: model.Diagnostics{*d}, IOError: true}}
	}
	return CheckSlimeBytes(flags, file, data, opt)
}

// CheckSlimeBytes is CheckSlime on a file's bytes already read (file ""
// when only flags are given).
func CheckSlimeBytes(flags, file string, data []byte, opt Options) *SlimeOutcome {
	if opt.Limits.MaxFileBytes == 0 {
		opt.Limits = grammar.DefaultLimits
	}
	lim := opt.Limits
	so := &SlimeOutcome{Outcome: &Outcome{File: file, Sources: map[string][]byte{}}}
	src := opt.SlimeSource
	if src == "" {
		src = grammar.SlimeSource
	}
	if file == "" {
		so.File = src
	} else {
		so.Sources[file] = data
	}
	defer so.finish(file, data, opt)
	var cfg *model.SlimeConfig
	if file != "" {
		c, ds := grammar.LoadSlime(file, data, lim, flags == "")
		so.Diagnostics = append(so.Diagnostics, ds...)
		cfg = c
		if c == nil {
			return so
		}
	}
	if flags != "" || file == "" {
		so.Sources[src] = []byte(flags)
		c, ds := grammar.ParseSlimeScript(src, flags, scriptOptions(src, opt), lim)
		so.Diagnostics = append(so.Diagnostics, ds...)
		if c == nil {
			return so
		}
		if cfg == nil {
			cfg = c
		} else {
			cfg.Overlay(c)
		}
	}
	so.Slime = cfg
	if so.Diagnostics.HasErrors() {
		return so
	}
	inv, note := slimeInventory(cfg, opt)
	if note != "" {
		so.Diagnostics = append(so.Diagnostics, model.Diagnostic{Code: model.NoteAssumedInventory, Severity: model.SeverityNote,
			Summary: note, Primary: cfg.Span, PrimaryLabel: "GPU counts from here"})
	}
	so.Inventory = inv
	so.Topology = model.NewSlimeTopology(inv.Nodes, StableOrder(inv.Nodes))
	so.Topology.Span = inv.Span
	ms, msd := memory.SlimeSettings(cfg.Flags)
	mem, notes := so.memory(ms, inv.Nodes, cfg.Span, opt)
	if mem != nil { // the memory flags' values matter only when memory is checked
		so.Diagnostics = append(so.Diagnostics, msd...)
	}
	set := rules.Slime(cfg, so.Topology, rules.SlimeOptions{MaxBundles: lim.MaxTotalProcesses, Memory: mem})
	valid := so.judge(set, opt, cfg.Span)
	so.memoryNotes(notes)
	if !valid {
		return so
	}
	so.Plan = strategies.PlanSlime(cfg, so.Topology)
	so.Diagnostics = append(so.Diagnostics, rules.SlimeWarnings(cfg, so.Topology, so.Plan.Layout)...)
	so.addMemory(set)
	return so
}

// scriptOptions are the sandbox's: a script read from a file may read its
// folder; nvidia-smi and hostname answer as the inventory's first node.
func scriptOptions(src string, opt Options) grammar.ScriptOptions {
	so := grammar.ScriptOptions{Env: opt.SlimeEnv}
	if src != grammar.SlimeSource && src != "<stdin>" {
		so.Dir = filepath.Dir(src)
	}
	if inv := opt.Inventory; inv != nil && len(inv.Nodes) > 0 {
		n := inv.Nodes[0]
		so.GPUs, so.Hostname, so.IP = n.AccelCount, n.Hostname, n.IP
	}
	return so
}

// slimeInventory picks the inventory in design.md's order: --inventory, the
// file's `inventory:`, --gpus-per-node, else nodes of --num-gpus-per-node
// GPUs (8 by default), assumed. A uniform inventory has as many nodes as the
// placement group needs.
func slimeInventory(cfg *model.SlimeConfig, opt Options) (*model.Inventory, string) {
	s := cfg.Settings(nil)
	total, _ := s.Bundles()
	if s.Mode() == model.SlimeColocateMode {
		total = max(total, s.Rollout())
	}
	nodes := func(g int) int {
		if g <= 0 {
			return 1
		}
		return min(max(1, (total+g-1)/g), opt.Limits.MaxClusterNodes)
	}
	return topology.Choose(topology.Choice{File: opt.Inventory, InConfig: cfg.Inventory, GPUsPerNode: opt.GPUsPerNode,
		Nodes: nodes, Assume: s.NumGPUsPerNode, From: "--num-gpus-per-node"})
}

// StableOrder is slime's stable order of the inventory's nodes (numeric
// IPv4, else host name, else characters: topology.Order), as indices into
// nodes.
func StableOrder(nodes []model.Node) []int {
	type key struct{ ip, host string }
	queue := map[key][]int{}
	for i, n := range nodes {
		k := key{n.IP, n.Hostname}
		queue[k] = append(queue[k], i)
	}
	sorted, _ := topology.Order(nodes)
	out := make([]int, 0, len(nodes))
	for _, n := range sorted {
		k := key{n.IP, n.Hostname}
		if q := queue[k]; len(q) > 0 {
			out = append(out, q[0])
			queue[k] = q[1:]
		}
	}
	return out
}

// Check runs the whole check on one input, read once: a slime layout when
// slimeFlags are given or the file has a top-level `slime:` key (file may
// then be ""), else an RLinf config. The slime outcome is nil for an RLinf
// config; for a slime layout its Outcome is the one returned.
func Check(file, slimeFlags string, opt Options) (*Outcome, *SlimeOutcome) {
	if file == "" {
		so := CheckSlimeBytes(slimeFlags, "", nil, opt)
		return so.Outcome, so
	}
	file, data, bad := readInput(file, opt)
	if bad != nil {
		return bad, nil
	}
	if slimeFlags != "" || grammar.IsSlimeDoc(data) {
		so := CheckSlimeBytes(slimeFlags, file, data, opt)
		return so.Outcome, so
	}
	return CheckBytes(file, data, opt), nil
}

// ReadSlimeCommand reads --slime (its @FILE or @- form, from stdin) once
// for all files; the outcome says why when it cannot be read (exit 2).
func ReadSlimeCommand(flag string, stdin io.Reader) (text, source string, bad *Outcome) {
	text, source, d := grammar.ReadSlimeCommand(flag, stdin, grammar.DefaultLimits)
	if d != nil {
		return "", "", &Outcome{File: d.Primary.File, Diagnostics: model.Diagnostics{*d}, IOError: true}
	}
	return text, source, nil
}
