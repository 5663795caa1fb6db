package rules

import (
	"fmt"

	"github.com/rlsolve/rlsolve/model"
)

// Options select the placement class and the bounds of one build.
type Options struct {
	Class model.PlacementClass
	// ClassWhy says how the class was chosen ("runner.task_type:
	// reasoning", "--mode"), ClassAt where (unknown for --mode), for the
	// messages of the class's own rules.
	ClassWhy string
	ClassAt  model.Span
	// MaxProcesses bounds one component's processes, MaxTotalProcesses all
	// of them (defaults 1<<20 and 2<<20): past them nothing is expanded.
	MaxProcesses, MaxTotalProcesses int
	// Solving judges what a config places around its requirements: solve
	// places those, so they are not refused.
	Solving bool
	// Memory, when set, adds the GPU memory rule (NewMemory).
	Memory *Memory
}

func (o *Options) defaults() {
	if o.MaxProcesses == 0 {
		o.MaxProcesses = 1 << 20
	}
	if o.MaxTotalProcesses == 0 {
		o.MaxTotalProcesses = 2 << 20
	}
}

// builder is one RLinf config's rule set in the making: the config, the
// inventory's first num_nodes nodes, and the cluster view they give.
type builder struct {
	set  *Set
	cfg  *model.Config
	inv  *model.Inventory
	full *model.Inventory // as given, for fixes that rebuild
	opt  Options
	fs   *facts
	view *model.Cluster
	// bases[e][s] is the worker index of part s's first process.
	bases map[int][]int
}

// Build is the rule set of an RLinf config on an inventory under the
// options' placement class.
func Build(cfg *model.Config, inv *model.Inventory, opt Options) *Set {
	opt.defaults()
	b := &builder{set: &Set{Anchor: cfg.ComponentsSpan, Noun: "facts"}, cfg: cfg, full: inv, opt: opt}
	b.fs = collect(b.set, cfg)
	if opt.Solving {
		b.fs.collectRequirements(b.set, cfg)
	}
	if cfg.NumNodes > 0 && len(inv.Nodes) < cfg.NumNodes {
		b.inventoryTooSmall(inv)
		return b.set
	}
	nodes := inv.Nodes
	if cfg.NumNodes > 0 {
		nodes = nodes[:cfg.NumNodes]
	}
	b.inv = &model.Inventory{Nodes: nodes, Source: inv.Source}
	b.view = model.NewCluster(b.inv, cfg)
	if b.processLimits() {
		return b.set
	}
	if !opt.Solving {
		b.needsSolve()
	}
	b.groupRules()
	for ei := range cfg.Components {
		if !cfg.Components[ei].Invalid && !brokenLabels(cfg, ei) {
			b.entryRules(ei)
		}
	}
	if b.mpClass() && !b.brokenMP() {
		b.mpRules()
	}
	if opt.Memory != nil && cfg.Memory != nil {
		b.memoryRules()
	}
	if !b.brokenMP() {
		b.actorParallelRule()
	}
	b.neededNames()
	return b.set
}

// always adds an instance that no fact can lift: the input itself is the
// problem (an inventory too small, a limit); v points at Else.
func (b *builder) always(r *Rule, v *Violation) {
	v.Primary = -1
	b.set.Rules = append(b.set.Rules, &Instance{Rule: r, Name: r.Name, Check: func(Present) *Violation { return v }})
}

var ruleInventoryNodes = &Rule{Name: "inventory holds num_nodes nodes", Codes: []string{model.CodeInventoryNodes}}

func (b *builder) inventoryTooSmall(inv *model.Inventory) {
	source := inv.Source
	if source == "" {
		source = "given"
	}
	b.always(ruleInventoryNodes, &Violation{Code: model.CodeInventoryNodes, Else: b.cfg.NumNodesSpan,
		ElseLabel: fmt.Sprintf("needs %d nodes", b.cfg.NumNodes),
		Summary:   fmt.Sprintf("num_nodes is %d, but the inventory (%s) has %d node(s)", b.cfg.NumNodes, source, len(inv.Nodes)),
		Why:       "RLinf waits until num_nodes nodes have joined the Ray cluster; with fewer it never starts."})
}

var ruleProcessLimit = &Rule{Name: "process limit", Codes: []string{model.CodeProcessLimit}}

// processLimits refuses a config that places more processes than rlsolve
// expands, before anything is expanded; it reports whether it did.
func (b *builder) processLimits() bool {
	total := 0
	for ei := range b.cfg.Components {
		e := &b.cfg.Components[ei]
		if e.Invalid || brokenLabels(b.cfg, ei) {
			continue
		}
		r, _ := b.cluster().Resolve(e.NodeGroups)
		if r == nil || !inRange(e, r.Total) {
			continue // the entry's own rules say why
		}
		n := model.ProcessCount(e, r.Total)
		if n > b.opt.MaxProcesses {
			b.always(ruleProcessLimit, &Violation{Code: model.CodeProcessLimit, Else: e.PlacementSpan, ElseLabel: "too many processes",
				Summary: fmt.Sprintf("%s: %d processes in one component; the limit is %d", names(e), n, b.opt.MaxProcesses)})
			return true
		}
		total += n
		if total > b.opt.MaxTotalProcesses {
			b.always(ruleProcessLimit, &Violation{Code: model.CodeProcessLimit, Else: e.PlacementSpan, ElseLabel: "too many processes",
				Summary: fmt.Sprintf("the config places more than %d processes in all", b.opt.MaxTotalProcesses)})
			return true
		}
	}
	return false
}

// inRange reports whether every resource rank of e is below total.
func inRange(e *model.ComponentEntry, total int) bool {
	for i := range e.Segments {
		if s := &e.Segments[i]; !s.AllResources && s.ResEnd >= total {
			return false
		}
	}
	return true
}

// cluster is the cluster view of the config's node groups.
func (b *builder) cluster() *model.Cluster { return b.view }

func brokenLabels(cfg *model.Config, ei int) bool {
	for _, l := range cfg.Components[ei].NodeGroups {
		if cfg.IsBroken(model.BrokenGroup, l) {
			return true
		}
	}
	return false
}

// brokenMP reports whether a model-parallel component could not be read.
// A requirement's names stay broken for check, which has no GPUs to judge;
// when solving, the requirement is the component.
func (b *builder) brokenMP() bool {
	for _, n := range model.MPComponents {
		if b.cfg.IsBroken(model.BrokenComponent, n) && !b.isRequirement(entryNamed(b.cfg, n)) {
			return true
		}
	}
	return false
}

// isRequirement reports whether entry ei is a requirement the rules judge
// as present (when solving); false for -1.
func (b *builder) isRequirement(ei int) bool {
	_, ok := b.fs.requirement[ei]
	return ok
}

// rebuild is the rule set of an edited copy of the config, for fixes.
func (b *builder) rebuild(cfg *model.Config) *Set { return Build(cfg, b.full, b.opt) }
