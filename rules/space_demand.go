package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlsolve/rlsolve/internal/fuzzy"
	"github.com/rlsolve/rlsolve/model"
)

// demand reads requirement entry ei: where its devices may be, how many,
// and in what units.
func (s *Space) demand(ei int) *Demand {
	e := &s.cfg.Components[ei]
	r := e.Requirement
	d := &Demand{Entry: ei, Name: names(e), Labels: e.NodeGroups, With: -1, WithPlaced: -1,
		CountFact: -1, GroupFact: -1, WithFact: -1, ApartFacts: map[int]int{}, Unit: 1}
	d.OwnFact = s.fact(Fact{Kind: FactOwn, Entry: ei, Span: r.Span, What: fmt.Sprintf("%s gets devices of its own (no `with`)", d.Name)})
	if len(e.NodeGroups) > 0 {
		d.GroupFact = s.fact(Fact{Kind: FactNodeGroup, Entry: ei, Span: e.NodeGroupSpan,
			What: fmt.Sprintf("%s is placed on node group %s", d.Name, strings.Join(e.NodeGroups, ","))})
	}
	if s.mpClass() && len(e.NodeGroups) > 0 && !slices.Equal(e.NodeGroups, []string{"cluster"}) && slices.ContainsFunc(e.Names, isMP) {
		// RLinf places these on the default group whatever node_group says
		// (semantics §5.2 step 7): no placement keeps the requirement.
		s.errorf(e.NodeGroupSpan, "%s: %s ignores node_group and places on the whole cluster, so no placement keeps %s on %s; drop node_group", d.Name, s.Class.RLinfClass(), d.Name, strings.Join(e.NodeGroups, ","))
		return d
	}
	res, missing := s.view.Resolve(e.NodeGroups)
	if res == nil {
		s.unknownGroup(e, missing)
		return d
	}
	if !res.Typed && len(res.Groups) > 1 && slices.ContainsFunc(res.Groups, func(g *model.Group) bool { return g.HardwareType != "" }) {
		s.errorf(e.NodeGroupSpan, "%s: node_group mixes groups with hardware and without", d.Name)
		return d
	}
	d.Type = res.Groups[0].HardwareType
	for _, g := range res.Groups {
		if g.HardwareType != d.Type {
			s.errorf(e.NodeGroupSpan, "%s: node_group mixes hardware types %s and %s; solve places one type per component", d.Name, d.Type, g.HardwareType)
			return d
		}
	}
	d.Blocks = s.blocks(res)
	s.counts(d, r)
	return d
}

// counts reads gpus, processes, gpus_per_process and nodes into the
// demand's count, unit and processes.
func (s *Space) counts(d *Demand, r *model.Requirement) {
	if r.GPUsPerProcess.Set {
		d.Unit = r.GPUsPerProcess.Value
	} else {
		d.Unit = s.defaultUnit(d)
	}
	d.PerDevice = s.mpClass() && slices.ContainsFunc(s.cfg.Components[d.Entry].Names, isMP)
	d.Global = d.PerDevice
	g, p := r.GPUs, r.Processes
	if r.Auto {
		g = s.autoCount(d, r)
	}
	switch {
	case r.Nodes.Set && g.Set:
		s.conflict(r.Nodes.Span, g.Span, "%s gives both nodes and gpus; give one", d.Name)
	case r.Nodes.Set:
		d.Whole = r.Nodes.Value
		d.CountFact = s.countFact(d, r.Nodes, "whole nodes")
		if p.Set {
			d.Procs = p.Value
			s.wholeProcesses(d, r)
		}
	case g.Set && p.Set:
		s.gpusAndProcesses(d, r)
	case g.Set:
		d.Count = g.Value
		d.CountFact = s.countFact(d, g, model.HardwareUnit(d.Type))
		if d.Type != "" && g.Value%d.Unit != 0 {
			s.conflict(g.Span, r.GPUsPerProcess.Span, "%s: %d %s do not make whole processes of %d", d.Name, g.Value, model.HardwareUnit(d.Type), d.Unit)
		}
	case p.Set && d.Type == "":
		d.Procs = p.Value
		d.Count = s.nodesFor(d, p.Value)
		d.CountFact = s.countFact(d, p, "processes")
	case p.Set:
		d.Count = p.Value * d.Unit
		d.CountFact = s.countFact(d, p, "processes")
	case !r.With.Set():
		s.errorf(r.Span, "%s says neither how many %s (gpus:, processes:, nodes:) nor whose devices it shares (with:)", d.Name, model.HardwareUnit(d.Type))
	}
	if d.Type == "" {
		d.Unit = 1
	}
	if d.Unit > 1 && d.Whole == 0 {
		d.Blocks = s.splitIslands(d.Blocks)
	}
}

// wholeProcesses refuses processes that whole nodes cannot share evenly:
// the same number on each node, whole devices per process or whole
// processes per device, on nodes of one size (the placement string gives
// each run of devices its share of the processes).
func (s *Space) wholeProcesses(d *Demand, r *model.Requirement) {
	p, n := r.Processes.Value, r.Nodes.Value
	if p%n != 0 {
		s.conflict(r.Processes.Span, r.Nodes.Span, "%s: %d processes cannot be spread evenly over %d nodes", d.Name, p, n)
		return
	}
	per, sizes := p/n, map[int]bool{}
	for _, b := range d.Blocks {
		sizes[b.Cap] = true
		if b.Cap%per != 0 && per%b.Cap != 0 {
			s.conflict(r.Processes.Span, r.Nodes.Span, "%s: %d processes a node cannot be spread evenly over node %d's %d %s", d.Name, per, b.Node, b.Cap, model.HardwareUnit(d.Type))
			return
		}
	}
	if len(sizes) > 1 {
		s.errorf(r.Nodes.Span, "%s: nodes with processes need nodes of one size, but its node group has nodes of %d sizes; give gpus instead", d.Name, len(sizes))
	}
}

// autoCount is `gpus: auto` resolved: the count the cost model chose for
// the component (SpaceOptions.Counts), as a fact at the key.
func (s *Space) autoCount(d *Demand, r *model.Requirement) model.IntFact {
	f := model.IntFact{Span: r.GPUs.Span, Key: "gpus"}
	for _, n := range s.cfg.Components[d.Entry].Names {
		if c, ok := s.opt.Counts[n]; ok && c > 0 {
			f.Value, f.Set = c, true
			return f
		}
	}
	s.errorf(r.GPUs.Span, "%s: `gpus: auto` asks the cost model for the count; run solve with --objective cost (it gives counts to actor, rollout and inference of a reasoning run, env, rollout and actor of an embodied one)", d.Name)
	return f
}

// gpusAndProcesses reads a requirement that gives both counts: processes
// of gpus/processes devices each, or several processes per device.
func (s *Space) gpusAndProcesses(d *Demand, r *model.Requirement) {
	g, p := r.GPUs.Value, r.Processes.Value
	d.Count, d.Procs = g, p
	d.CountFact = s.countFact(d, r.GPUs, model.HardwareUnit(d.Type))
	switch {
	case g%p == 0 && (!r.GPUsPerProcess.Set || r.GPUsPerProcess.Value == g/p):
		if d.Type != "" && !d.PerDevice {
			d.Unit = g / p
		}
	case p%g == 0 && !r.GPUsPerProcess.Set:
		d.Unit = 1
	case r.GPUsPerProcess.Set:
		s.conflict(r.GPUsPerProcess.Span, r.Processes.Span, "%s: %d %s for %d processes is not %d per process", d.Name, g, model.HardwareUnit(d.Type), p, r.GPUsPerProcess.Value)
	default:
		s.conflict(r.GPUs.Span, r.Processes.Span, "%s: %d processes cannot be spread evenly over %d %s", d.Name, p, g, model.HardwareUnit(d.Type))
	}
}

// nodesFor is how many nodes processes-only CPU demands use: the most
// nodes of the group that divide the processes evenly (they take nothing
// others need, so spreading costs nothing).
func (s *Space) nodesFor(d *Demand, procs int) int {
	avail := 0
	for _, b := range d.Blocks {
		if _, down := s.Down[b.Node]; !down {
			avail++
		}
	}
	for n := min(avail, procs); n > 1; n-- {
		if procs%n == 0 {
			return n
		}
	}
	return 1
}

// defaultUnit is a component's TP (or engine) size where its class defines
// one, else 1 (for an entry of several components, a multiple of each
// one's); a collocated rollout's is set once relations are known.
func (s *Space) defaultUnit(d *Demand) int {
	if !s.mpClass() {
		return 1
	}
	u := 1
	for _, n := range s.cfg.Components[d.Entry].Names {
		u = model.LCMCap(u, s.tpSize(n), maxUnit)
	}
	return u
}

// maxUnit bounds a unit built of TP sizes: more devices than any cluster
// has, so the arithmetic stays in range.
const maxUnit = 1 << 30

// tpSize is the devices of one process of a model-parallel component.
func (s *Space) tpSize(name string) int {
	mp := &s.cfg.ModelParallel
	switch name {
	case "actor":
		return max(1, mp.ActorTP.Value)
	case "rollout":
		return max(1, mp.RolloutTP.Value) * max(1, mp.RolloutPP.Value)
	case "inference", "actor_inference":
		return max(1, mp.InferenceTP.Value)
	}
	// An extra engine's GPUs are a multiple of each of its own section's
	// sizes (RLinf checks TP, PP and dp_size apart).
	sec := s.cfg.Sections[name]
	u := 1
	for _, f := range []model.IntFact{sec.TensorParallel, sec.PipelineParallel, sec.DataParallel} {
		u = model.LCMCap(u, max(1, f.Value), maxUnit)
	}
	return u
}

// names reports whether demand d's entry names component n.
func (s *Space) names(d *Demand, n string) bool {
	return slices.Contains(s.cfg.Components[d.Entry].Names, n)
}

func isMP(name string) bool { return slices.Contains(model.MPComponents, name) }

func (s *Space) mpClass() bool {
	return s.Class != model.ClassHybrid && s.Class != model.ClassBase && s.Class != ""
}

func (s *Space) countFact(d *Demand, f model.IntFact, plural string) int {
	return s.fact(Fact{Kind: FactCount, Entry: d.Entry, Span: f.Span, Name: f.Key, What: fmt.Sprintf("%s needs %s", d.Name, countOf(f.Value, plural))})
}

// countOf is "1 GPU", "2 GPUs", "1 process": n of a plural noun.
func countOf(n int, plural string) string {
	if n != 1 {
		return fmt.Sprintf("%d %s", n, plural)
	}
	if one, ok := strings.CutSuffix(plural, "es"); ok && strings.HasSuffix(one, "ss") {
		return "1 " + one
	}
	return "1 " + strings.TrimSuffix(plural, "s")
}

// relations reads with and apart_from once every demand is known.
func (s *Space) relations(d *Demand, index map[string]int) {
	r := s.cfg.Components[d.Entry].Requirement
	if r.With.Set() {
		s.with(d, r.With, index)
	}
	for _, ref := range r.ApartFrom {
		j, ok := index[ref.Name]
		switch {
		case ok && s.Demands[j] == d:
			s.errorf(ref.Span, "%s is apart from itself", d.Name)
		case ok:
			d.Apart = append(d.Apart, j)
			d.ApartFacts[j] = s.fact(Fact{Kind: FactApart, Entry: d.Entry, Span: ref.Span, What: fmt.Sprintf("%s is apart from %s", d.Name, ref.Name)})
		case s.placedEntry(ref.Name) < 0:
			s.unknownComponent(ref)
		}
	}
}

// with links d to the component whose devices it shares.
func (s *Space) with(d *Demand, ref model.NameRef, index map[string]int) {
	d.WithFact = s.fact(Fact{Kind: FactWith, Entry: d.Entry, Span: ref.Span, What: fmt.Sprintf("%s shares the devices of %s", d.Name, ref.Name)})
	if j, ok := index[ref.Name]; ok {
		if s.Demands[j] == d {
			s.errorf(ref.Span, "%s shares devices with itself", d.Name)
			return
		}
		d.With = j
		return
	}
	if ei := s.placedEntry(ref.Name); ei >= 0 {
		d.WithPlaced = ei
		return
	}
	s.unknownComponent(ref)
}

// checkWith refuses cycles of with, with and apart from the same component,
// and shared devices of different types; it settles the collocated
// rollout's unit.
func (s *Space) checkWith() {
	for i, d := range s.Demands {
		root, ok := s.root(i)
		if !ok {
			s.errorf(s.Facts[d.WithFact].Span, "%s: `with` goes round in a circle", d.Name)
			continue
		}
		rd := s.Demands[root]
		s.copiedWhole(d, rd)
		if root == i {
			continue
		}
		if len(d.Labels) == 0 && len(rd.Labels) > 0 {
			// Written in the ranks of the devices' own group, as a person
			// would: `reward: {node_group: a800, placement: "0-15"}`.
			d.Labels, d.Blocks, d.Type, d.WriteGroup = rd.Labels, rd.Blocks, rd.Type, true
		}
		if rd.Type != d.Type && len(d.Labels) > 0 {
			s.errorf(s.Facts[d.WithFact].Span, "%s (%s) cannot share the devices of %s (%s)", d.Name, model.HardwareUnit(d.Type), rd.Name, model.HardwareUnit(rd.Type))
		}
		for _, j := range d.Apart {
			if r2, _ := s.root(j); r2 == root {
				s.conflict(s.Facts[d.ApartFacts[j]].Span, s.Facts[d.WithFact].Span, "%s both shares devices with %s and is apart from %s", d.Name, rd.Name, s.Demands[j].Name)
			}
		}
		if s.mpClass() && s.names(d, "rollout") && s.names(rd, "actor") && !s.cfg.Components[d.Entry].Requirement.GPUsPerProcess.Set {
			d.Unit = model.LCMCap(d.Unit, s.tpSize("actor"), maxUnit)
		}
	}
}

// copiedWhole refuses a demand that copies a placed component's devices
// (its with chain ends at root rd, which copies them) where they are not
// whole processes of its unit, each on one node: solve cannot change a
// placed string.
func (s *Space) copiedWhole(d, rd *Demand) {
	if rd.WithPlaced < 0 || d.Unit <= 1 {
		return
	}
	ranks, r := s.placedOn(rd.WithPlaced)
	if r == nil {
		return
	}
	placed := &s.cfg.Components[rd.WithPlaced]
	if len(ranks)%d.Unit != 0 {
		s.conflict(s.Facts[d.WithFact].Span, placed.PlacementSpan, "%s takes the %d GPUs %s holds, which are not whole processes of %d GPUs (its TP and engine sizes); place %s on a multiple of %d",
			d.Name, len(ranks), names(placed), d.Unit, names(placed), d.Unit)
		return
	}
	for k := 0; k < len(ranks); k += d.Unit {
		if a, b := r.Locate(ranks[k]), r.Locate(ranks[k+d.Unit-1]); a.Node != b.Node {
			s.conflict(s.Facts[d.WithFact].Span, placed.PlacementSpan, "%s takes the GPUs %s holds, where a process of %d GPUs (its TP and engine sizes) would span nodes %d and %d; place %s in whole processes on each node",
				d.Name, names(placed), d.Unit, a.Node, b.Node, names(placed))
			return
		}
	}
}

// root follows with to the demand that owns the devices; ok is false on
// a cycle.
func (s *Space) root(i int) (int, bool) {
	for steps := 0; steps <= len(s.Demands); steps++ {
		if s.Demands[i].With < 0 {
			return i, true
		}
		i = s.Demands[i].With
	}
	return i, false
}

// Root is the demand whose devices demand i uses (itself, or the end of
// its with chain).
func (s *Space) Root(i int) int { r, _ := s.root(i); return r }

// placedEntry is the index of the placed (not required) entry naming
// component n, or -1.
func (s *Space) placedEntry(n string) int {
	for ei := range s.cfg.Components {
		e := &s.cfg.Components[ei]
		if e.Requirement == nil && slices.Contains(e.Names, n) {
			return ei
		}
	}
	return -1
}

func (s *Space) unknownComponent(ref model.NameRef) {
	var all []string
	for _, e := range s.cfg.Components {
		all = append(all, e.Names...)
	}
	d := s.errorf(ref.Span, "no component is named %q", ref.Name)
	if near := fuzzy.Nearest(ref.Name, all); near != "" {
		d.Help = []model.Fix{{Message: fmt.Sprintf("did you mean `%s`?", near), Edits: []model.Edit{{Span: ref.Span, NewText: near}}}}
	}
}

func (s *Space) unknownGroup(e *model.ComponentEntry, missing string) {
	var labels []string
	for _, g := range s.view.Groups {
		labels = append(labels, g.Label)
	}
	at := e.NodeGroupSpan
	for j, l := range e.NodeGroups {
		if l == missing && j < len(e.NodeGroupSpans) {
			at = e.NodeGroupSpans[j]
		}
	}
	code, sum := model.CodeUnknownGroup, fmt.Sprintf("%s: node group %q does not exist", names(e), missing)
	if _, empty := s.view.Empty[missing]; empty {
		code, sum = model.CodeEmptyGroup, fmt.Sprintf("%s: node group %q has no nodes", names(e), missing)
	}
	d := s.Diagnostics.Errorf(code, at, "", "%s", sum)
	if near := fuzzy.Nearest(missing, labels); near != "" {
		d.Help = []model.Fix{{Message: fmt.Sprintf("did you mean `%s`?", near), Edits: []model.Edit{{Span: at, NewText: near}}}}
	}
}

func (s *Space) errorf(at model.Span, format string, args ...any) *model.Diagnostic {
	return s.Diagnostics.Errorf(model.CodeRequirementConflict, at, "", format, args...)
}

// conflict reports two keys of requirements that contradict each other.
func (s *Space) conflict(at, other model.Span, format string, args ...any) {
	d := s.errorf(at, format, args...)
	if other.Known() {
		d.Labels = []model.Label{{Span: other, Message: "and this"}}
	}
}
