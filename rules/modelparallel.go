package rules

import (
	"fmt"
	"slices"

	"github.com/rlsolve/rlsolve/model"
)

// The model-parallel classes (semantics §5.2 and §10): RLinf's
// ModelParallel, MultiAgent and Eval component placements. Each of their
// assertions is a named check over the components and sizes it reads, so
// that independent problems are reported one by one, each with only its
// own facts.

// mpCheck is one check of a model-parallel class: the components whose
// placements it reads, the sizes and switches it reads, and the check.
type mpCheck struct {
	rule     *Rule
	name     string
	comps    []string
	settings []string
	check    func(x *mpView) *Violation
}

var (
	ruleMPRequired = &Rule{Name: "model-parallel components present", Codes: []string{model.CodeMPMissing}}
	ruleMPContig   = &Rule{Name: "model-parallel GPUs contiguous", Codes: []string{model.CodeMPNotContiguous}}
	ruleMPGPUs     = &Rule{Name: "model-parallel placement has GPUs", Codes: []string{model.CodeNeedsHardware}}
	ruleMPTP       = &Rule{Name: "TP size within the GPUs", Codes: []string{model.CodeMPTPTooLarge}}
	ruleMPMode     = &Rule{Name: "collocated, disaggregated or AUTO", Codes: []string{model.CodeMPAutoOrder, model.CodeMPMode}}
	ruleMPExtra    = &Rule{Name: "no inference in collocated mode", Codes: []string{model.CodeMPCollocatedExtra}}
	ruleMPStride   = &Rule{Name: "collocated rollout engines inside actor TP groups", Codes: []string{model.CodeMPTPDivisible, model.CodePackedDivisible, model.CodeSpansNodes}}
	ruleMPInfer    = &Rule{Name: "disaggregated inference", Codes: []string{model.CodeMPTPTooLarge, model.CodeMPRecompute}}
	ruleMPEngines  = &Rule{Name: "rollout engines of TP x PP GPUs on one node", Codes: []string{model.CodeMPSizes, model.CodePackedDivisible, model.CodeSpansNodes}}
	ruleMPRange    = &Rule{Name: "packed ranges within the cluster's GPUs", Codes: []string{model.CodeRankOutOfRange}}
)

// mpChecks are the checks of the class, in RLinf's order.
func (b *builder) mpChecks() []mpCheck {
	infer := "inference"
	if b.entryOf(infer) < 0 && b.entryOf("actor_inference") >= 0 {
		infer = "actor_inference"
	}
	var cs []mpCheck
	add := func(c ...mpCheck) { cs = append(cs, c...) }
	if b.evalClass() {
		add(mpCheck{ruleMPRequired, "evaluation components present", nil, nil, func(x *mpView) *Violation { return x.required("rollout", "reward") }})
		add(mpc(ruleMPContig, "rollout GPUs contiguous", []string{"rollout"}, nil, contiguousGPUs("rollout")))
		add(mpCheck{ruleMPGPUs, "evaluation placement has GPUs", nil, nil, (*mpView).hasGPUs})
		add(mpc(ruleMPTP, "rollout TP size within its GPUs", []string{"rollout"}, []string{"rollout_tp"}, tpSize("rollout")))
		add(mpc(ruleMPEngines, "rollout engines of TP GPUs", []string{"rollout"}, []string{"rollout_tp"}, (*mpView).evalEngines))
		for _, n := range []string{"rollout", "reward"} {
			add(mpc(ruleMPRange, n+" within the cluster's GPUs", []string{n}, nil, packedInRange(n)))
		}
		if b.opt.Class == model.ClassMultiAgentEval {
			cs = append(cs, b.extraChecks()...)
		}
		return cs
	}
	modeComps := []string{"actor", "rollout", infer, "critic", "critic_inference"}
	add(mpCheck{ruleMPRequired, "model-parallel components present", nil, nil, func(x *mpView) *Violation { return x.required("actor", "rollout", "reward") }})
	for _, n := range []string{"actor", "rollout", infer, "critic_inference", "critic"} {
		add(mpc(ruleMPContig, n+" GPUs contiguous", []string{n}, nil, contiguousGPUs(n)))
	}
	add(mpCheck{ruleMPGPUs, "model-parallel placement has GPUs", nil, nil, (*mpView).hasGPUs})
	for _, n := range []string{"actor", "rollout"} {
		add(mpc(ruleMPTP, n+" TP size within its GPUs", []string{n}, []string{n + "_tp"}, tpSize(n)))
	}
	add(mpc(ruleMPMode, "collocated, disaggregated or AUTO", modeComps, []string{"auto_scheduler"}, (*mpView).mode))
	add(mpc(ruleMPExtra, "no inference in collocated mode", modeComps, []string{"auto_scheduler"}, (*mpView).collocatedExtra))
	add(mpc(ruleMPStride, "collocated rollout engines", []string{"actor", "rollout", "critic"}, []string{"auto_scheduler", "actor_tp", "rollout_tp"}, (*mpView).collocatedRollout))
	add(mpc(ruleMPInfer, "disaggregated inference", append(modeComps, "critic"), []string{"auto_scheduler", "inference_tp", "actor_tp", "recompute_logprobs"}, (*mpView).inference))
	add(mpc(ruleMPEngines, "disaggregated and AUTO rollout engines", []string{"actor", "rollout", "critic"}, []string{"auto_scheduler", "rollout_tp", "rollout_pp"}, (*mpView).engines))
	for _, n := range model.MPComponents {
		if n != "critic_inference" || !b.cfg.ModelParallel.AutoScheduler.Value {
			add(mpc(ruleMPRange, n+" within the cluster's GPUs", []string{n}, nil, packedInRange(n)))
		}
	}
	if b.opt.Class == model.ClassMultiAgent {
		cs = append(cs, b.multiAgentChecks()...)
	}
	return cs
}

// mpc is an mpCheck: the check's rule, name, components, settings and
// function.
func mpc(r *Rule, name string, comps, settings []string, f func(*mpView) *Violation) mpCheck {
	return mpCheck{r, name, comps, settings, f}
}

func (b *builder) evalClass() bool {
	return b.opt.Class == model.ClassModelParallelEval || b.opt.Class == model.ClassMultiAgentEval
}

// mpRules adds an instance per check of the class.
func (b *builder) mpRules() {
	for _, c := range b.mpChecks() {
		c := c
		var reads []int
		for _, n := range c.comps {
			if ei := b.entryOf(n); ei >= 0 {
				reads = append(reads, b.entryFacts(ei)...)
			}
		}
		for _, k := range c.settings {
			if f, ok := b.fs.setting[k]; ok {
				reads = append(reads, f)
			}
		}
		b.set.Rules = append(b.set.Rules, &Instance{Rule: c.rule, Name: c.name, Reads: reads, Check: func(p Present) *Violation {
			x, ok := b.mpView(p, c.comps)
			if !ok {
				return nil // an entry's own rules report it
			}
			return c.check(x)
		}})
	}
}

// entryOf is the entry that gives component name, placed (and readable)
// or, when solving, required; -1.
func (b *builder) entryOf(name string) int {
	for ei := range b.cfg.Components {
		for _, n := range b.cfg.Components[ei].Names {
			if n == name && (!b.cfg.Components[ei].Invalid || b.isRequirement(ei)) {
				return ei
			}
		}
	}
	return -1
}

// entryFacts are the facts that give entry ei: its placement parts, or
// its requirement and the facts of the entries whose devices its `with`
// takes (a reward placed on the actor's GPUs makes a rollout `with` it
// collocated).
func (b *builder) entryFacts(ei int) []int {
	if _, ok := b.fs.requirement[ei]; !ok {
		return b.fs.segment[ei]
	}
	chain, _ := withChain(b.cfg, ei)
	var out []int
	for _, c := range chain {
		if f, ok := b.fs.requirement[c]; ok {
			out = append(out, f)
		} else {
			out = append(out, b.fs.segment[c]...)
		}
	}
	return out
}

// setting reads a size or flag under p: a removed size is 1, a removed
// auto_scheduler false, a removed recompute_logprobs true (the defaults);
// it also returns the fact (-1 when absent).
func (b *builder) setting(p Present, name string) (int, int) {
	mp := &b.cfg.ModelParallel
	f, ok := b.fs.setting[name]
	on := ok && p(f)
	if !ok {
		f = -1
	}
	switch name {
	case "auto_scheduler":
		return b2i(on && mp.AutoScheduler.Value), f
	case "recompute_logprobs":
		return b2i(!on || mp.RecomputeLogprobs.Value), f
	case "inference_tp":
		if !on {
			a, _ := b.setting(p, "actor_tp")
			return a, -1
		}
	}
	if !on {
		return 1, -1
	}
	val := map[string]model.IntFact{"actor_tp": mp.ActorTP, "actor_pp": mp.ActorPP, "actor_cp": mp.ActorCP,
		"rollout_tp": mp.RolloutTP, "rollout_pp": mp.RolloutPP, "inference_tp": mp.InferenceTP}
	return val[name].Value, f
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

// mpView is one evaluation of a model-parallel check: the GPUs (RLinf's
// get_hardware_ranks) of the components it reads, and the parts that give
// them; when solving, also the components required (present, their GPUs
// not known yet) and the requirements that give them.
type mpView struct {
	b        *builder
	p        Present
	lists    map[string][]int
	unplaced map[string]bool
	segs     map[string][]int
	roles    map[int]string
	// names are the components read, in the config's order.
	names []string
}

// mpView reads the listed components' GPUs under p (every component when
// comps is nil and the class is multi-agent); ok is false when one of their
// entries fails its own rules.
func (b *builder) mpView(p Present, comps []string) (*mpView, bool) {
	x := &mpView{b: b, p: p, lists: map[string][]int{}, unplaced: map[string]bool{}, segs: map[string][]int{}, roles: map[int]string{}}
	for ei := range b.cfg.Components {
		e := &b.cfg.Components[ei]
		if e.Invalid && !b.isRequirement(ei) || !slices.ContainsFunc(e.Names, func(n string) bool { return slices.Contains(comps, n) }) {
			continue
		}
		if _, ok := b.fs.requirement[ei]; ok {
			x.require(ei)
			continue
		}
		v, parts := b.entry(ei, p, allRules)
		if v != nil {
			return nil, false
		}
		if len(parts) == 0 {
			continue
		}
		for _, n := range e.Names {
			x.lists[n] = model.HardwareRanks(parts)
			x.names = append(x.names, n)
			for _, f := range b.fs.segment[ei] {
				if p(f) {
					x.segs[n] = append(x.segs[n], f)
				}
			}
		}
	}
	return x, true
}

// require records the components of requirement entry ei when its
// requirement is present; the facts that give them are those of its
// `with` chain.
func (x *mpView) require(ei int) {
	if !x.p(x.b.fs.requirement[ei]) {
		return
	}
	for _, n := range x.b.cfg.Components[ei].Names {
		x.unplaced[n] = true
		x.names = append(x.names, n)
		x.segs[n] = x.b.entryFacts(ei)
	}
}

// has reports whether component n is present: placed, or required.
func (x *mpView) has(n string) bool { return x.lists[n] != nil || x.unplaced[n] }

func (x *mpView) mark(n, role string) {
	for _, f := range x.segs[n] {
		x.roles[f] = role
	}
}

func (x *mpView) primary(n string) int {
	if l := x.segs[n]; len(l) > 0 {
		return l[len(l)-1]
	}
	return -1
}

func (x *mpView) size(name string) (int, int) { return x.b.setting(x.p, name) }

func last(l []int) int { return l[len(l)-1] }

// required checks the components the class asserts. A component missing
// from the config is a conflict of its own; one only deselected here just
// takes the other checks away (deselecting a fact never makes a violation).
func (x *mpView) required(names ...string) *Violation {
	for _, n := range names {
		if x.b.entryOf(n) < 0 {
			return x.b.missing(n, names)
		}
	}
	return nil
}

// missing is the violation of a component the class requires: it says
// which class, how it was chosen and where, and that --mode hybrid checks
// a run of another kind (a fix without edits, kept when checking the
// config as Hybrid leaves fewer conflicts).
func (b *builder) missing(n string, names []string) *Violation {
	cls := b.opt.Class.RLinfClass()
	how := b.opt.ClassWhy
	if how == "" {
		how = "chosen with --mode"
	}
	v := &Violation{Code: model.CodeMPMissing, Primary: -1,
		Summary: fmt.Sprintf("%s placement needs a `%s` component (class %s: %s)", b.classWord(), n, cls, how),
		Why:     fmt.Sprintf("RLinf's %s requires %s GPUs; the entry point of the run picks the class, and rlsolve infers it from the config (note RLS-N0003).", cls, joinAnd(names)),
		Fixes:   []Fix{b.classFix(model.ClassHybrid)}}
	if ei, ni := b.nearName(n); ei >= 0 {
		// An unknown name close to the missing one is a typo, not a run
		// of another class.
		e := &b.cfg.Components[ei]
		v.Summary += fmt.Sprintf("; `%s` is not a component of the run", e.Names[ni])
		v.Else, v.ElseLabel = e.NameSpans[ni], fmt.Sprintf("did you mean `%s`?", n)
		v.Fixes = append([]Fix{b.renameFix(ei, ni, n)}, v.Fixes...)
	}
	if b.opt.Solving {
		v.Why += " Solve places the components the config names, placed or required, and adds none."
	}
	if b.opt.ClassAt.Known() {
		v.Extra = []model.Label{{Span: b.opt.ClassAt, Message: "decides the class"}}
	}
	return v
}

// classFix proposes checking the config under another class: --mode.
func (b *builder) classFix(c model.PlacementClass) Fix {
	return func() (model.Fix, *Set, bool) {
		opt := b.opt
		opt.Class, opt.ClassWhy, opt.ClassAt = c, "", model.Span{}
		return model.Fix{Message: fmt.Sprintf("if this run does not use %s, check it as %s: --mode %s", b.opt.Class.RLinfClass(), c.RLinfClass(), c)},
			Build(b.cfg, b.full, opt), true
	}
}

// classWord names the class in messages.
func (b *builder) classWord() string {
	if b.evalClass() {
		return "evaluation"
	}
	return "model-parallel"
}

func contiguousGPUs(n string) func(*mpView) *Violation {
	return func(x *mpView) *Violation {
		if l := x.lists[n]; l != nil && last(l)-l[0]+1 != len(l) {
			x.mark(n, fmt.Sprintf("%s GPUs %s", n, model.RangeText(l)))
			return &Violation{Code: model.CodeMPNotContiguous, Primary: x.primary(n), Roles: x.roles,
				Summary: fmt.Sprintf("%s GPUs %s must be one contiguous range under %s placement", n, model.RangeText(l), x.b.classWord())}
		}
		return nil
	}
}

func (x *mpView) hasGPUs() *Violation {
	if x.b.cluster().NumAccelerators() > 0 {
		return nil
	}
	return &Violation{Code: model.CodeNeedsHardware, Primary: -1, Roles: x.roles,
		Summary: fmt.Sprintf("%s placement packs components onto GPUs, but the inventory has none", x.b.classWord()),
		Why:     fmt.Sprintf("RLinf's %s uses Packed strategies over the cluster's GPUs.", x.b.opt.Class.RLinfClass())}
}

// tpSize checks that a component's TP size fits its GPUs (RLinf's sanity
// check after the mode).
func tpSize(name string) func(*mpView) *Violation {
	return func(x *mpView) *Violation {
		n := x.lists[name]
		tp, f := x.size(name + "_tp")
		if n == nil || tp <= len(n) {
			return nil
		}
		x.mark(name, fmt.Sprintf("%d GPUs", len(n)))
		x.roles[f] = fmt.Sprintf("%s TP %d", name, tp)
		return &Violation{Code: model.CodeMPTPTooLarge, Primary: f, Roles: x.roles,
			Summary: fmt.Sprintf("%s TP size %d is larger than its %d GPUs", name, tp, len(n)),
			Fixes:   x.b.sizeFixes(name+"_tp", tp, len(n))}
	}
}

// inRange checks that a component's Packed range lies within the cluster's
// GPUs: these classes place it on the default group, whatever its
// node_group.
func packedInRange(n string) func(*mpView) *Violation {
	return func(x *mpView) *Violation {
		if l := x.lists[n]; l != nil {
			return x.packedRange(n, l[0], last(l))
		}
		return nil
	}
}

func (x *mpView) packedRange(n string, first, end int) *Violation {
	gpus := x.b.cluster().NumAccelerators()
	if gpus == 0 || end < gpus {
		return nil // no GPUs at all is hasGPUs's
	}
	x.mark(n, fmt.Sprintf("%s GPUs %d-%d", n, first, end))
	return &Violation{Code: model.CodeRankOutOfRange, Primary: x.primary(n), Roles: x.roles,
		Summary: fmt.Sprintf("%s is packed onto cluster GPUs %d-%d, but the cluster has %d GPUs (0-%d)", n, first, end, gpus, gpus-1),
		Why:     "Model-parallel classes place this component with Packed over the default `cluster` group, whatever its node_group."}
}

// packedSpans checks that each Packed process of a component stays on one
// node (D1).
func (x *mpView) packedSpans(name string, gpus []int, nhpp, stride int) *Violation {
	r, _ := x.b.cluster().Resolve(nil)
	if r == nil || last(gpus) >= r.Total {
		return nil
	}
	for i := 0; i < len(gpus)/nhpp; i++ {
		base := model.PackedFirst(gpus[0], nhpp, stride, i)
		if base < 0 || base+(nhpp-1)*stride >= r.Total {
			return nil // a list that is not one range (AUTO's actor and rollout overlapping): the mode rule says what is wrong
		}
		first := r.Locate(base)
		end := r.Locate(base + (nhpp-1)*stride)
		if first.Node != end.Node {
			x.mark(name, fmt.Sprintf("%s process %d gets GPUs on nodes %d and %d", name, i, first.Node, end.Node))
			pf := -1
			if l := x.segs[name]; len(l) > 0 {
				pf = l[0]
			}
			return &Violation{Code: model.CodeSpansNodes, Primary: pf, Roles: x.roles,
				Summary: fmt.Sprintf("%s process %d would span nodes %d and %d", name, i, first.Node, end.Node),
				Why: fmt.Sprintf("Each %s process takes %s from GPU %d on, and one process runs on one node; RLinf's Packed check is off by one and would accept it (D1), so the run fails only when the workers start.",
					name, gpuRun(nhpp, stride), base)}
		}
	}
	return nil
}

func overlap(a, b []int) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	set := make(map[int]bool, len(a))
	for _, v := range a {
		set[v] = true
	}
	for _, v := range b {
		if set[v] {
			return true
		}
	}
	return false
}

// gpuRun says which GPUs a packed process takes: "4 consecutive GPUs" or
// "2 GPUs, 2 apart".
func gpuRun(nhpp, stride int) string {
	if stride <= 1 {
		return fmt.Sprintf("%d consecutive GPUs", nhpp)
	}
	return fmt.Sprintf("%d GPUs, %d apart,", nhpp, stride)
}
