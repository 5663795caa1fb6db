package rules

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/memory"
	"github.com/rlsolve/rlsolve/model"
)

// The GPU memory capacity rule (spec/memory.md §4.4): will each GPU hold
// what is placed on it? The memory package computes each GPU's bytes per
// phase and its findings; this rule makes the errors (the run cannot work:
// RLS-E1001..E1005) conflicts the solver explains, over the facts that
// drive them: the model, the placement parts that put components on the
// GPUs, and every memory setting written in the input (its absence puts
// it back to the framework's default). Warnings (thin headroom, the
// logits spike) and the per-GPU reports come from the same evaluation of
// the config as written (Set.Memory).

// Memory is what the rule knows besides the config: the model's
// architecture, where it came from, and the memory profile.
type Memory struct {
	Arch    memory.Arch
	Source  memory.ArchSource
	Profile memory.Profile
}

// MemoryOptions are NewMemory's inputs besides the settings.
type MemoryOptions struct {
	// ModelConfig is --model-config FILE ("" when not given).
	ModelConfig string
	// Profile is the --mem-profile file's profile; nil is the default.
	Profile *memory.Profile
	// ReadFile reads a model's config.json; nil reads the file system.
	ReadFile func(name string) ([]byte, error)
}

var ruleMemory = &Rule{Name: "GPU memory capacity", Codes: []string{model.CodeMemoryState, model.CodeMemoryPool,
	model.CodeMemoryVLLMInit, model.CodeMemoryFractions, model.CodeMemoryKVSeq}}

// NewMemory decides whether memory is checked for settings s on nodes
// (the GPUs the run uses): it resolves the model's architecture when some
// node gives its GPUs' memory_gib. It returns nil when memory is not
// checked, with a note that says why (RLS-N1001), or the error of an
// unusable model config (RLS-E1006); else the note naming the
// architecture's source (RLS-N1002). anchor locates notes without a
// setting to point at.
func NewMemory(s *model.MemorySettings, nodes []model.Node, anchor model.Span, opt MemoryOptions) (*Memory, model.Diagnostics) {
	if s == nil || s.ModelPath.Value == "" && s.ModelType.Value == "" && len(s.ModelArgs) == 0 && opt.ModelConfig == "" {
		return nil, nil // no model named: nothing to check
	}
	var ds model.Diagnostics
	at, label := s.ModelPath.Span, "the model"
	switch {
	case at.Known():
	case s.ModelType.Span.Known():
		at = s.ModelType.Span
	default:
		at, label = anchor, ""
	}
	known, unknown := capacityNodes(nodes)
	if len(known) == 0 {
		ds.Notef(model.NoteMemoryUnchecked, at, label, "GPU memory is not checked: the inventory gives no memory_gib for its GPUs").Help =
			[]model.Fix{{Message: "give each node's accelerators `memory_gib` in the inventory (e.g. `accelerators: {count: 8, memory_gib: 80}`)"}}
		return nil, ds
	}
	arch, src, err := memory.ResolveArch(s, memory.ResolveOptions{ModelConfig: opt.ModelConfig, ReadFile: opt.ReadFile})
	var inputErr *memory.InputError
	switch {
	case errors.Is(err, memory.ErrUnknownArch):
		what := "the model"
		switch {
		case s.ModelPath.Value != "":
			what = fmt.Sprintf("the model at %s", s.ModelPath.Value)
		case s.ModelType.Value != "":
			what = fmt.Sprintf("the model (model_type %s)", s.ModelType.Value)
		}
		ds.Notef(model.NoteMemoryUnchecked, at, label, "GPU memory is not checked: the architecture of %s is unknown (no config.json beside it, and not in the built-in table)", what).Help =
			[]model.Fix{{Message: "give the model's config.json with --model-config FILE"}}
		return nil, ds
	case errors.As(err, &inputErr):
		return nil, append(ds, inputErr.Diagnostic())
	case err != nil:
		return nil, append(ds, model.Diagnostic{Code: model.CodeMemoryInput, Severity: model.SeverityError, Summary: err.Error(), Primary: at})
	}
	m := &Memory{Arch: arch, Source: src, Profile: memory.DefaultProfile()}
	if opt.Profile != nil {
		m.Profile = *opt.Profile
	}
	noteAt, noteLabel := src.Span, "decides the architecture"
	if !noteAt.Known() {
		noteAt, noteLabel = at, label
	}
	ds.Notef(model.NoteMemoryArch, noteAt, noteLabel, "GPU memory is checked for %s (%.3g B parameters) from the %s, with the %s",
		arch.Name, float64(arch.Params())/1e9, src, profileName(m.Profile))
	if len(unknown) > 0 {
		ds.Notef(model.NoteMemoryUnchecked, noteAt, "", "GPU memory is not checked on node(s) %s: the inventory gives no memory_gib for their GPUs", model.CompactRanks(unknown, ","))
	}
	return m, ds
}

func profileName(p memory.Profile) string {
	if p.File == "" {
		return "default memory profile"
	}
	return "memory profile " + p.File
}

// capacityNodes splits the nodes with GPUs into those whose memory_gib is
// known and the others, by rank.
func capacityNodes(nodes []model.Node) (known, unknown []int) {
	for i := range nodes {
		switch n := &nodes[i]; {
		case n.AccelCount <= 0:
		case n.MemoryGiB > 0:
			known = append(known, n.Rank)
		default:
			unknown = append(unknown, n.Rank)
		}
	}
	return known, unknown
}

// MemoryResult is the memory of a config as written: one report per
// distinct GPU layout (identical GPUs grouped), and the warnings with the
// fixes that re-checking confirms. Errors are the solver's conflicts.
type MemoryResult struct {
	Memory   *Memory
	Groups   []memory.Group
	Warnings model.Diagnostics
}

// Memory is the memory of the set's input as written; nil when memory is
// not checked (no settings, no capacities, an unknown model) or the
// placement does not hold.
func (s *Set) Memory() *MemoryResult {
	m := s.memory
	if m == nil {
		return nil
	}
	ev := m.eval(All)
	if ev == nil || ev.groups == nil {
		return nil
	}
	return &MemoryResult{Memory: m.mem, Groups: ev.groups, Warnings: m.warnings(ev)}
}

// memoryInstances adds an instance per error the config as written has
// (per code and component): only those can be conflicts, since every
// removed fact is taken back to its default and an instance that holds
// as written is never compiled.
func (m *memRule) memoryInstances(set *Set) {
	ev := m.eval(All)
	if ev == nil {
		return
	}
	seen := map[string]bool{}
	for _, f := range ev.findings {
		key := f.Code + "|" + f.Component
		if f.Severity != model.SeverityError || seen[key] {
			continue
		}
		seen[key] = true
		code, comp := f.Code, f.Component
		set.Rules = append(set.Rules, &Instance{Rule: ruleMemory, Name: fmt.Sprintf("GPU memory of %s (%s)", comp, code), Reads: m.reads,
			Check: func(p Present) *Violation {
				ev := m.eval(p)
				if ev == nil {
					return nil
				}
				for _, f := range ev.findings {
					if f.Code == code && f.Component == comp {
						return m.violation(f, p)
					}
				}
				return nil
			}})
	}
}

// preferRoles orders the drivers a diagnostic of each code points at.
var preferRoles = map[string][]memory.Role{
	model.CodeMemoryState:     {memory.RoleModel, memory.RoleTP, memory.RoleSharding, memory.RoleDistOpt},
	model.CodeMemoryPool:      {memory.RoleFraction, memory.RoleEngineTP, memory.RoleModel},
	model.CodeMemoryVLLMInit:  {memory.RoleFraction, memory.RoleModel},
	model.CodeMemoryFractions: {memory.RoleFraction, memory.RoleModel},
	model.CodeMemoryKVSeq:     {memory.RoleSeqLength, memory.RoleFraction, memory.RoleEngineTP, memory.RoleModel},
}

// violation explains a finding over the facts present: each driver that
// is a fact labelled with its value, the preferred ones first; every
// driver's value and the GPUs' capacity as context (the solver keeps the
// facts of a minimal conflict, so that a driver at its default may not be
// one of them).
func (m *memRule) violation(f memory.Finding, p Present) *Violation {
	v := &Violation{Code: f.Code, Summary: f.Summary, Why: f.Why, Primary: -1, Roles: map[int]string{},
		Else: m.anchor, ElseLabel: "the memory settings"}
	var rest []int
	for _, r := range preferRoles[f.Code] {
		for _, d := range f.Drivers {
			if fid, ok := m.driverFact(d, p); ok && d.Role == r && !slices.Contains(v.Prefer, fid) {
				v.Prefer = append(v.Prefer, fid)
			}
		}
	}
	for _, d := range f.Drivers {
		fid, ok := m.driverFact(d, p)
		if !ok {
			continue
		}
		v.Roles[fid] = driverText(d)
		v.Extra = append(v.Extra, model.Label{Span: d.Span, Message: driverText(d)})
		if !slices.Contains(v.Prefer, fid) && !slices.Contains(rest, fid) {
			rest = append(rest, fid)
		}
	}
	v.Prefer = append(v.Prefer, rest...)
	v.Extra = append(v.Extra, m.capacity...)
	for _, fx := range f.Fixes {
		v.Fixes = append(v.Fixes, m.fix(fx))
	}
	return v
}

// driverFact is the fact of a located driver, when present.
func (m *memRule) driverFact(d memory.Driver, p Present) (int, bool) {
	if !d.Set || !d.Span.Known() {
		return 0, false
	}
	fid, ok := m.spanFact[d.Span]
	return fid, ok && p(fid)
}

func driverText(d memory.Driver) string { return settingText(d.Key, d.Value) }

// memoryRules adds the memory rule of an RLinf config: the components'
// placement parts and node_group choices place them on GPUs as the entry
// rules read them.
func (b *builder) memoryRules() {
	var placement []int
	for ei := range b.cfg.Components {
		placement = append(placement, b.fs.segment[ei]...)
		if ng := b.fs.nodeGroup[ei]; ng >= 0 {
			placement = append(placement, ng)
		}
	}
	m := newMemRule(b.set, b.opt.Memory, b.cfg.Memory, placement)
	m.place = b.memoryLoad
	m.anchor = b.cfg.ComponentsSpan
	m.capacity = capacityLabels(b.inv.Nodes)
	m.rebuild = func(key, value string, at model.Span) (*Set, bool) {
		c := clone(b.cfg)
		c.Memory = b.cfg.Memory.Clone()
		if !c.Memory.SetKey(key, value, at) {
			return nil, false
		}
		setSize(c, key, value)
		return b.rebuild(c), true
	}
	m.memoryInstances(b.set)
}

// memoryLoad places every component's processes on the GPUs the entry
// rules give them under p (RLinf's rank maps); false when an entry fails
// its own rules.
func (b *builder) memoryLoad(p Present, _ *model.MemorySettings) (*gpuLoad, bool) {
	nodes := b.inv.Nodes
	l := newGPULoad(len(nodes), func(i int) *model.Node { return &nodes[i] }, func(_, j int) int { return j })
	first := make(map[int]int, len(nodes)) // node rank -> its first GPU
	for g := len(l.node) - 1; g >= 0; g-- {
		first[l.node[g]] = g
	}
	mp := packedGPUs{}
	for ei := range b.cfg.Components {
		e := &b.cfg.Components[ei]
		if e.Invalid || brokenLabels(b.cfg, ei) || !b.onGPUs(ei, p) {
			continue // no GPU to hold it (its own rules judge it)
		}
		x, v := b.evalEntry(ei, p, allRules)
		if v != nil {
			return nil, false
		}
		if x == nil {
			continue
		}
		var own []string
		for _, n := range e.Names {
			if b.mpPacked(n) {
				mp.add(n, model.HardwareRanks(x.parts))
			} else {
				own = append(own, n)
			}
		}
		if len(own) > 0 {
			b.putProcesses(l, x, own, first)
		}
	}
	if len(mp.names) > 0 {
		auto, _ := b.setting(p, "auto_scheduler")
		mp.place(l, auto == 1 && !b.evalClass(), b.cfg.ModelParallel.UsePreProcessPolicy.Value)
	}
	recompute, _ := b.setting(p, "recompute_logprobs")
	_, inference := l.ids["inference"]
	l.actorLogprob = recompute == 1 && !inference
	l.finish()
	return l, true
}

// putProcesses puts each process of the entry's components on its GPUs.
func (b *builder) putProcesses(l *gpuLoad, x *entryView, names []string, first map[int]int) {
	ps := &x.procs
	for i := 0; i < ps.Len(); i++ {
		for h := ps.Start[i]; h < ps.Start[i]+ps.N[i]; h++ {
			w := x.r.Locate(h)
			if w.Group.HardwareType != model.HardwareAccelerator {
				continue
			}
			for _, n := range names {
				l.put(n, first[w.Node]+w.Local)
			}
		}
	}
}

// mpPacked reports whether the placement class re-places component name
// with a Packed strategy over its GPUs (semantics §5.2; strategies'
// modelParallel and evaluation).
func (b *builder) mpPacked(name string) bool {
	switch b.opt.Class {
	case model.ClassModelParallel:
		return slices.Contains(model.MPComponents, name)
	case model.ClassMultiAgent:
		return slices.Contains(model.MPComponents, name) || model.ExtraEngine(name)
	case model.ClassModelParallelEval:
		return name == "rollout" || name == "reward"
	case model.ClassMultiAgentEval:
		return name == "rollout" || name == "reward" || model.ExtraEngine(name)
	}
	return false
}

// packedGPUs are the GPUs of the components a model-parallel class
// re-places, in the config's order.
type packedGPUs struct {
	names []string
	gpus  map[string][]int
}

func (m *packedGPUs) add(name string, gpus []int) {
	if m.gpus == nil {
		m.gpus = map[string][]int{}
	}
	m.names = append(m.names, name)
	m.gpus[name] = gpus
}

// place puts the components on their Packed(first, last) GPUs: in AUTO
// mode (auto, without a critic) the actor on every GPU and the rollout on
// AutoRolloutGPUs, as the class launches them.
func (m *packedGPUs) place(l *gpuLoad, auto, preProcess bool) {
	actor, rollout := m.gpus["actor"], m.gpus["rollout"]
	if _, critic := m.gpus["critic"]; auto && !critic && actor != nil && rollout != nil {
		m.gpus["actor"] = model.AutoActorGPUs(len(l.node))
		m.gpus["rollout"] = model.AutoRolloutGPUs(actor, rollout, preProcess)
	}
	for _, n := range m.names {
		gs := m.gpus[n]
		if len(gs) == 0 {
			continue
		}
		for g := gs[0]; g <= gs[len(gs)-1] && g < len(l.node); g++ {
			l.put(n, g)
		}
	}
}

// onGPUs reports whether entry ei's node groups under p hold GPUs.
func (b *builder) onGPUs(ei int, p Present) bool {
	labels := []string{"cluster"}
	if ng := b.fs.nodeGroup[ei]; ng >= 0 && p(ng) {
		labels = b.cfg.Components[ei].NodeGroups
	}
	r, _ := b.cluster().Resolve(labels)
	return r != nil && r.Typed && accelerators(r)
}

// accelerators reports whether some group of r holds GPUs.
func accelerators(r *model.Resolver) bool {
	for _, g := range r.Groups {
		if g.HardwareType == model.HardwareAccelerator {
			return true
		}
	}
	return false
}

// capacityLabels locate the GPUs' capacities: each node entry of the
// inventory that gives memory_gib (once per position).
func capacityLabels(nodes []model.Node) []model.Label {
	var out []model.Label
	seen := map[model.Span]bool{}
	for _, n := range nodes {
		if n.MemoryGiB > 0 && n.Span.Known() && !seen[n.Span] {
			seen[n.Span] = true
			out = append(out, model.Label{Span: n.Span, Message: fmt.Sprintf("%g GiB per GPU (memory_gib)", n.MemoryGiB)})
		}
	}
	return out
}

// setSize gives the placement rules' copy of a parallel size
// (ModelParallel, a section's sizes) the value a memory fix sets, so that a
// fix raising a TP size is judged by every rule. cfg is a clone: its
// sections are copied before the change.
func setSize(cfg *model.Config, key, value string) {
	n, err := strconv.Atoi(value)
	if err != nil {
		return
	}
	mp := &cfg.ModelParallel
	sizes := map[string]*model.IntFact{
		"actor.model.tensor_model_parallel_size": &mp.ActorTP, "actor.model.pipeline_model_parallel_size": &mp.ActorPP,
		"actor.model.context_parallel_size": &mp.ActorCP, "rollout.tensor_parallel_size": &mp.RolloutTP,
		"rollout.pipeline_parallel_size": &mp.RolloutPP, "inference.model.tensor_model_parallel_size": &mp.InferenceTP,
	}
	if f, ok := sizes[key]; ok {
		f.Value = n
		return
	}
	name, k, ok := strings.Cut(key, ".")
	sz, has := cfg.Sections[name]
	if !ok || !has {
		return
	}
	switch k {
	case "tensor_parallel_size":
		sz.TensorParallel.Value = n
	case "pipeline_parallel_size":
		sz.PipelineParallel.Value = n
	case "dp_size":
		sz.DataParallel.Value = n
	default:
		return
	}
	cfg.Sections = maps.Clone(cfg.Sections)
	cfg.Sections[name] = sz
}
