package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// ruleMP is ModelParallel placement's validity (semantics §5.2): required
// components, contiguity, collocated or disaggregated, TP sizes, and the
// Packed layouts it launches (D1), over the placements and sizes involved.
var ruleMP = &Rule{Name: "model-parallel placement", Codes: []string{model.CodeMPMissing, model.CodeMPNotContiguous,
	model.CodeNeedsHardware, model.CodeMPAutoOrder, model.CodeMPSizes, model.CodeMPCollocatedExtra, model.CodeMPTPDivisible,
	model.CodePackedDivisible, model.CodeMPMode, model.CodeMPTPTooLarge, model.CodeMPRecompute, model.CodeSpansNodes}}

// mpRule adds the model-parallel rule of the class: the components it
// re-places and the sizes it reads (the multi-agent class reads every
// component and the extra engines' sections too).
func (b *builder) mpRule() {
	var reads []int
	multi := b.opt.Class == model.ClassMultiAgent || b.opt.Class == model.ClassMultiAgentEval
	for ei := range b.cfg.Components {
		e := &b.cfg.Components[ei]
		if multi || slices.ContainsFunc(e.Names, func(n string) bool { return slices.Contains(model.MPComponents, n) }) {
			reads = append(reads, b.fs.segment[ei]...)
		}
	}
	for k, f := range b.fs.setting {
		if slices.Contains([]string{"actor_tp", "rollout_tp", "rollout_pp", "inference_tp", "auto_scheduler", "recompute_logprobs"}, k) || multi && strings.Contains(k, ".") {
			reads = append(reads, f)
		}
	}
	slices.Sort(reads)
	r, check := ruleMP, b.mp
	if b.opt.Class == model.ClassModelParallelEval || b.opt.Class == model.ClassMultiAgentEval {
		r, check = ruleEval, b.eval
	}
	b.set.Rules = append(b.set.Rules, &Instance{Rule: r, Name: r.Name, Reads: reads, Check: check})
}

func (b *builder) entryOf(name string) int {
	for ei := range b.cfg.Components {
		for _, n := range b.cfg.Components[ei].Names {
			if n == name && !b.cfg.Components[ei].Invalid {
				return ei
			}
		}
	}
	return -1
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
	val := map[string]model.IntFact{"actor_tp": mp.ActorTP, "rollout_tp": mp.RolloutTP, "rollout_pp": mp.RolloutPP, "inference_tp": mp.InferenceTP}
	return val[name].Value, f
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

// mpView is one evaluation of the model-parallel rule: each component's
// GPUs (RLinf's get_hardware_ranks) and the parts that give them.
type mpView struct {
	b     *builder
	p     Present
	lists map[string][]int
	segs  map[string][]int
	roles map[int]string
	infer string // "inference", or "actor_inference" when only that exists
	// names are the components in the config's order.
	names []string
}

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

// mpLists reads the GPUs (get_hardware_ranks) under p of the components
// the class re-places (every component for the multi-agent classes); ok is
// false when one of their entries fails its own rules (they report it).
func (b *builder) mpLists(p Present) (*mpView, bool) {
	x := &mpView{b: b, p: p, lists: map[string][]int{}, segs: map[string][]int{}, roles: map[int]string{}}
	multi := b.opt.Class == model.ClassMultiAgent || b.opt.Class == model.ClassMultiAgentEval
	for ei := range b.cfg.Components {
		e := &b.cfg.Components[ei]
		if e.Invalid || !multi && !slices.ContainsFunc(e.Names, func(n string) bool { return slices.Contains(model.MPComponents, n) }) {
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

func (b *builder) mp(p Present) *Violation {
	x, ok := b.mpLists(p)
	if !ok {
		return nil
	}
	if v := x.required(); v != nil {
		return v
	}
	actor, rollout := x.lists["actor"], x.lists["rollout"]
	if actor == nil || rollout == nil {
		return nil
	}
	if b.cluster().NumAccelerators() == 0 {
		return &Violation{Code: model.CodeNeedsHardware, Primary: -1, Roles: x.roles,
			Summary: "model-parallel placement packs components onto GPUs, but the inventory has none",
			Why:     "RLinf's ModelParallel placement uses Packed strategies over the cluster's GPUs."}
	}
	auto, _ := b.setting(p, "auto_scheduler")
	mode := model.DecideMPMode(auto == 1, x.lists["critic"] != nil, actor, rollout)
	if b.opt.Class == model.ClassMultiAgent && mode != model.ModeAuto {
		mode = model.ModeCollocated // the multi-agent class is always collocated
	}
	var v *Violation
	switch mode {
	case model.ModeAuto:
		v = x.auto()
	case model.ModeCollocated:
		if v = x.collocated(); v == nil && b.opt.Class == model.ClassMultiAgent {
			v = x.multiAgent()
		}
	default:
		v = x.disaggregated()
	}
	if v != nil {
		return v
	}
	// Packed over the default group: the ranges must be cluster GPUs.
	for _, n := range model.MPComponents {
		if l := x.lists[n]; l != nil && !(mode == model.ModeAuto && n == "critic_inference") {
			if v := x.packedRange(n, l[0], last(l)); v != nil {
				return v
			}
		}
	}
	return nil
}

// required checks the components RLinf asserts and their contiguity. A
// component missing from the config is a conflict of its own; one only
// deselected here just takes its checks away (deselecting a fact never
// makes a violation, so that cores stay meaningful).
func (x *mpView) required() *Violation {
	for _, n := range []string{"actor", "rollout", "reward"} {
		if x.b.entryOf(n) < 0 {
			return &Violation{Code: model.CodeMPMissing, Primary: -1, Roles: x.roles,
				Summary: fmt.Sprintf("model-parallel placement needs a `%s` component", n),
				Why:     "RLinf's ModelParallelComponentPlacement requires actor, rollout and reward GPUs."}
		}
	}
	x.infer = "inference"
	if x.lists[x.infer] == nil && x.lists["actor_inference"] != nil {
		x.infer = "actor_inference"
	}
	for _, n := range []string{"actor", "rollout", x.infer, "critic_inference", "critic"} {
		if l := x.lists[n]; l != nil && l[len(l)-1]-l[0]+1 != len(l) {
			x.mark(n, fmt.Sprintf("%s GPUs %s", n, model.RangeText(l)))
			return &Violation{Code: model.CodeMPNotContiguous, Primary: x.primary(n), Roles: x.roles,
				Summary: fmt.Sprintf("%s GPUs %s must be one contiguous range under model-parallel placement", n, model.RangeText(l))}
		}
	}
	return nil
}

func last(l []int) int { return l[len(l)-1] }

func (x *mpView) auto() *Violation {
	actor, rollout, inf := x.lists["actor"], x.lists["rollout"], x.lists[x.infer]
	numGPUs := x.b.cluster().NumAccelerators()
	ok := actor[0] == 0 && last(actor)+1 == rollout[0]
	if inf != nil {
		ok = ok && last(rollout)+1 == inf[0] && last(inf) == numGPUs-1
	} else {
		ok = ok && last(rollout) == numGPUs-1
	}
	if !ok {
		_, autoF := x.b.setting(x.p, "auto_scheduler")
		x.mark("actor", "actor")
		x.mark("rollout", "rollout")
		x.mark(x.infer, "inference")
		x.roles[autoF] = "AUTO mode"
		return &Violation{Code: model.CodeMPAutoOrder, Primary: autoF, Roles: x.roles,
			Summary: fmt.Sprintf("AUTO mode needs actor, rollout and inference in that order, from GPU 0 to the last GPU (%d)", numGPUs-1)}
	}
	if v := x.tpSizes(); v != nil {
		return v
	}
	rtp, rtpF := x.b.setting(x.p, "rollout_tp")
	preProcess := x.b.cfg.ModelParallel.UsePreProcessPolicy.Value
	if preProcess && (last(actor)-actor[0]+1)%rtp != 0 {
		// The rollout also takes the actor's GPUs before it (semantics §5.2).
		x.mark("actor", fmt.Sprintf("%d GPUs", len(actor)))
		x.roles[rtpF] = fmt.Sprintf("rollout TP %d", rtp)
		return &Violation{Code: model.CodeMPSizes, Primary: x.primary("actor"), Roles: x.roles,
			Summary: fmt.Sprintf("with use_pre_process_policy the actor's %d GPUs must be divisible by rollout TP %d", len(actor), rtp)}
	}
	return x.rolloutEngines(model.AutoRolloutGPUs(actor, rollout, preProcess))
}

func (x *mpView) collocated() *Violation {
	for _, n := range []string{x.infer, "critic_inference"} {
		if x.lists[n] != nil {
			x.mark(n, n+" GPUs")
			x.mark("actor", "actor and rollout share these GPUs: collocated")
			return &Violation{Code: model.CodeMPCollocatedExtra, Primary: x.primary(n), Roles: x.roles,
				Summary: fmt.Sprintf("%s GPUs must not be given in collocated mode", n)}
		}
	}
	if v := x.tpSizes(); v != nil {
		return v
	}
	atp, atpF := x.b.setting(x.p, "actor_tp")
	rtp, rtpF := x.b.setting(x.p, "rollout_tp")
	if atp > rtp && atp%rtp != 0 {
		x.roles[atpF], x.roles[rtpF] = fmt.Sprintf("actor TP %d", atp), fmt.Sprintf("rollout TP %d", rtp)
		primary := rtpF
		if primary < 0 {
			primary = atpF
		}
		return &Violation{Code: model.CodeMPTPDivisible, Primary: primary, Roles: x.roles,
			Summary: fmt.Sprintf("actor TP size %d must be divisible by rollout TP size %d in collocated mode", atp, rtp),
			Why:     "Collocated rollout engines interleave inside each actor TP group (stride = actor TP / rollout TP).",
			Fixes:   x.b.tpFixes(atp, rtp)}
	}
	stride := model.CollocatedStride(atp, rtp)
	rollout := x.lists["rollout"]
	if len(rollout)%(rtp*stride) != 0 {
		x.mark("rollout", fmt.Sprintf("%d GPUs", len(rollout)))
		x.roles[rtpF] = fmt.Sprintf("rollout TP %d", rtp)
		if stride > 1 {
			x.roles[atpF] = fmt.Sprintf("actor TP %d (stride %d)", atp, stride)
		}
		return &Violation{Code: model.CodePackedDivisible, Primary: x.primary("rollout"), Roles: x.roles,
			Summary: fmt.Sprintf("rollout's %d GPUs are not divisible by rollout TP x stride = %d x %d", len(rollout), rtp, stride)}
	}
	return x.packedSpans("rollout", rollout, rtp, stride)
}

func (x *mpView) disaggregated() *Violation {
	inf := x.lists[x.infer]
	pairs := [][2]string{{"actor", "rollout"}, {"actor", x.infer}, {"rollout", x.infer}, {"critic", "actor"},
		{"critic", "rollout"}, {"critic", "critic_inference"}, {"rollout", "critic_inference"}}
	for _, pr := range pairs {
		if overlap(x.lists[pr[0]], x.lists[pr[1]]) {
			x.mark(pr[0], pr[0])
			x.mark(pr[1], fmt.Sprintf("%s overlaps %s", pr[1], pr[0]))
			return &Violation{Code: model.CodeMPMode, Primary: x.primary(pr[1]), Roles: x.roles,
				Summary: fmt.Sprintf("%s and %s share some GPUs but not all: neither collocated nor disaggregated", pr[0], pr[1]),
				Why:     "Model-parallel placement is collocated (actor and rollout on exactly the same GPUs) or disaggregated (disjoint GPUs); reward may overlap anything.",
				Fixes:   []Fix{x.b.moveAfterFix(pr[1], x.lists[pr[0]], x.lists[pr[1]], x.b.cluster().NumAccelerators())}}
		}
	}
	if inf != nil {
		itp, itpF := x.b.setting(x.p, "inference_tp")
		if itp > len(inf) {
			x.mark(x.infer, fmt.Sprintf("%d GPUs", len(inf)))
			x.roles[itpF] = fmt.Sprintf("inference TP %d", itp)
			return &Violation{Code: model.CodeMPTPTooLarge, Primary: x.primary(x.infer), Roles: x.roles,
				Summary: fmt.Sprintf("inference TP size %d is larger than its %d GPUs", itp, len(inf))}
		}
		if rc, rcF := x.b.setting(x.p, "recompute_logprobs"); rc == 0 {
			x.mark(x.infer, "inference GPUs")
			x.roles[rcF] = "disables inference"
			return &Violation{Code: model.CodeMPRecompute, Primary: x.primary(x.infer), Roles: x.roles,
				Summary: "algorithm.recompute_logprobs is false, which disables inference, but inference GPUs are given"}
		}
	}
	if v := x.tpSizes(); v != nil {
		return v
	}
	return x.rolloutEngines(x.lists["rollout"])
}

// rolloutEngines checks the disaggregated (and AUTO) rollout: engines of
// len/dp GPUs, dp = len / (TP*PP), each on one node.
func (x *mpView) rolloutEngines(gpus []int) *Violation {
	rtp, rtpF := x.b.setting(x.p, "rollout_tp")
	rpp, rppF := x.b.setting(x.p, "rollout_pp")
	dp, nhpp := model.RolloutEngines(len(gpus), rtp, rpp)
	if dp == 0 {
		x.mark("rollout", fmt.Sprintf("%d GPUs", len(gpus)))
		x.roles[rtpF], x.roles[rppF] = fmt.Sprintf("TP %d", rtp), fmt.Sprintf("PP %d", rpp)
		return &Violation{Code: model.CodeMPSizes, Primary: x.primary("rollout"), Roles: x.roles,
			Summary: fmt.Sprintf("rollout has %d GPUs, fewer than TP x PP = %d", len(gpus), rtp*rpp)}
	}
	if len(gpus)%nhpp != 0 {
		x.mark("rollout", fmt.Sprintf("%d GPUs", len(gpus)))
		x.roles[rtpF] = fmt.Sprintf("TP %d", rtp)
		return &Violation{Code: model.CodePackedDivisible, Primary: x.primary("rollout"), Roles: x.roles,
			Summary: fmt.Sprintf("rollout's %d GPUs make %d engines of %d GPUs with some left over", len(gpus), dp, nhpp)}
	}
	return x.packedSpans("rollout", gpus, nhpp, 1)
}

// tpSizes checks that the actor's and the rollout's TP sizes fit their GPUs.
func (x *mpView) tpSizes() *Violation {
	for _, name := range []string{"actor", "rollout"} {
		tp, f := x.b.setting(x.p, name+"_tp")
		n := x.lists[name]
		if tp > len(n) {
			x.mark(name, fmt.Sprintf("%d GPUs", len(n)))
			x.roles[f] = fmt.Sprintf("%s TP %d", name, tp)
			return &Violation{Code: model.CodeMPTPTooLarge, Primary: f, Roles: x.roles,
				Summary: fmt.Sprintf("%s TP size %d is larger than its %d GPUs", name, tp, len(n))}
		}
	}
	return nil
}

// packedSpans checks that each Packed process of a model-parallel component
// stays on one node (D1).
func (x *mpView) packedSpans(name string, gpus []int, nhpp, stride int) *Violation {
	r, _ := x.b.cluster().Resolve(nil)
	if r == nil || last(gpus) >= r.Total {
		return nil
	}
	for i := 0; i < len(gpus)/nhpp; i++ {
		base := model.PackedFirst(gpus[0], nhpp, stride, i)
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
				Why:     "RLinf's Packed check is off by one and would accept it (D1); a process runs on one node."}
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
