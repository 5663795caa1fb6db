package rules

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// The memory rule of an RLinf config: the components' placement parts and
// node_group choices put their processes on GPUs as the entry rules read
// them (RLinf's rank maps), the model-parallel classes pack theirs.

// memoryRules adds the memory rule of an RLinf config.
func (b *builder) memoryRules() {
	var placement []int
	for ei := range b.cfg.Components {
		placement = append(placement, b.fs.segment[ei]...)
		if ng := b.fs.nodeGroup[ei]; ng >= 0 {
			placement = append(placement, ng)
		}
	}
	for _, k := range []string{"auto_scheduler", "recompute_logprobs"} { // memoryLoad reads them
		if f, ok := b.fs.setting[k]; ok {
			placement = append(placement, f)
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
	for _, pr := range model.Processes(x.parts) {
		for h := pr.Start; h < pr.Start+pr.N; h++ {
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
