package strategies

import (
	"fmt"
	"slices"

	"github.com/rlsolve/rlsolve/model"
)

// mpComponents are the components ModelParallel placement re-places with
// Packed strategies on the default group (semantics §5.2 step 7).
var mpComponents = []string{"actor", "rollout", "inference", "actor_inference", "critic_inference", "reward", "critic"}

// mpView gives the model-parallel rules access to components by name.
type mpView struct {
	pl   *planner
	plan *model.Plan
}

func (v mpView) get(name string) *model.ComponentPlan { return v.plan.Component(name) }

func (v mpView) hw(name string) []int {
	if cp := v.get(name); cp != nil {
		return cp.HardwareRanks
	}
	return nil
}

// at is where a component's placement is written, with its name's span.
func (v mpView) at(name string) (model.Span, model.Span) {
	cp := v.get(name)
	if cp == nil {
		return v.pl.cfg.ComponentsSpan, model.Span{}
	}
	e := &v.pl.cfg.Components[cp.Entry]
	for i, n := range e.Names {
		if n == name {
			return e.PlacementSpan, e.NameSpans[i]
		}
	}
	return e.PlacementSpan, e.KeySpan
}

func contiguous(l []int) bool {
	for i := 1; i < len(l); i++ {
		if l[i] != l[i-1]+1 {
			return false
		}
	}
	return true
}

func disjoint(a, b []int) bool {
	if len(a) == 0 || len(b) == 0 {
		return true
	}
	set := make(map[int]bool, len(a))
	for _, x := range a {
		set[x] = true
	}
	for _, x := range b {
		if set[x] {
			return false
		}
	}
	return true
}

// modelParallel applies ModelParallelComponentPlacement (semantics §5.2):
// decides the mode, checks its rules, and replaces the strategies.
func (pl *planner) modelParallel(plan *model.Plan, maps []*rankMap) model.PlacementMode {
	v := mpView{pl: pl, plan: plan}
	mp := &pl.cfg.ModelParallel
	for _, name := range mpComponents {
		if pl.cfg.Broken["component:"+name] {
			return model.ModeNone // its own error is reported; the mode cannot be judged
		}
	}
	for _, name := range []string{"actor", "rollout", "reward"} {
		if v.get(name) == nil {
			d := pl.errAt(model.CodeMPMissing, pl.cfg.ComponentsSpan, "", "model-parallel placement needs a `%s` component in component_placement", name)
			d.Why = "RLinf's ModelParallelComponentPlacement (reasoning and agent entry points) requires actor, rollout and reward GPUs."
			d.Help = []model.Fix{{Message: fmt.Sprintf("add `%s: <GPUs>` (reward may share the rollout GPUs), or pass --mode hybrid for an embodied config", name)}}
		}
	}
	if pl.diags.HasErrors() {
		return model.ModeNone
	}
	inferName := "inference"
	if v.get(inferName) == nil && v.get("actor_inference") != nil {
		inferName = "actor_inference"
	}
	for _, name := range []string{"actor", "rollout", inferName, "critic_inference", "critic"} {
		if l := v.hw(name); l != nil && !contiguous(l) {
			at, nameAt := v.at(name)
			d := pl.errAt(model.CodeMPNotContiguous, at, "has a gap", "%s GPUs %s must be one contiguous range under model-parallel placement", name, model.RangeText(l))
			d.Labels = []model.Label{{Span: nameAt, Message: name}}
			d.Help = []model.Fix{{Message: fmt.Sprintf("use `%d-%d`", l[0], l[len(l)-1]), Edits: []model.Edit{{Span: at, NewText: fmt.Sprintf("%d-%d", l[0], l[len(l)-1])}}}}
		}
	}
	if pl.diags.HasErrors() {
		return model.ModeNone
	}
	actor, rollout, infer := v.hw("actor"), v.hw("rollout"), v.hw(inferName)
	critic, criticInf := v.hw("critic"), v.hw("critic_inference")
	numGPUs := pl.c.NumAccelerators()
	mode := model.ModeNone
	switch {
	case mp.AutoScheduler.Value && critic == nil:
		mode = model.ModeAuto
		ok := actor[0] == 0 && actor[len(actor)-1]+1 == rollout[0]
		if infer != nil {
			ok = ok && rollout[len(rollout)-1]+1 == infer[0] && infer[len(infer)-1] == numGPUs-1
		} else {
			ok = ok && rollout[len(rollout)-1] == numGPUs-1
		}
		if !ok {
			d := pl.errAt(model.CodeMPAutoOrder, mp.AutoScheduler.Span, "auto_scheduler is on",
				"AUTO mode needs actor, rollout and inference in that order, starting at GPU 0 and ending at the last GPU (%d)", numGPUs-1)
			for _, n := range []string{"actor", "rollout", inferName} {
				if v.get(n) != nil {
					at, _ := v.at(n)
					d.Labels = append(d.Labels, model.Label{Span: at, Message: n})
				}
			}
			return model.ModeNone
		}
	case slices.Equal(actor, rollout):
		mode = model.ModeCollocated
		for _, n := range []string{inferName, "critic_inference"} {
			if v.get(n) != nil {
				at, _ := v.at(n)
				d := pl.errAt(model.CodeMPCollocatedExtra, at, "not allowed here", "%s GPUs must not be given in collocated mode (actor and rollout share GPUs)", n)
				a, _ := v.at("actor")
				d.Labels = []model.Label{{Span: a, Message: "actor and rollout use the same GPUs: collocated"}}
			}
		}
	default:
		pairs := [][2]string{{"actor", "rollout"}, {"actor", inferName}, {"rollout", inferName}, {"critic", "actor"},
			{"critic", "rollout"}, {"critic", "critic_inference"}, {"rollout", "critic_inference"}}
		for _, p := range pairs {
			if !disjoint(v.hw(p[0]), v.hw(p[1])) {
				a, _ := v.at(p[0])
				b, _ := v.at(p[1])
				d := pl.errAt(model.CodeMPMode, b, fmt.Sprintf("%s overlaps %s", p[1], p[0]),
					"%s and %s share some GPUs but not all: the placement is neither collocated nor disaggregated", p[0], p[1])
				d.Labels = []model.Label{{Span: a, Message: p[0]}}
				d.Why = "Model-parallel placement is collocated (actor and rollout on exactly the same GPUs) or disaggregated (actor, rollout and inference on disjoint GPUs); reward may overlap anything."
				return model.ModeNone
			}
		}
		mode = model.ModeDisaggregated
		if infer != nil {
			at, _ := v.at(inferName)
			if mp.InferenceTP.Value > len(infer) {
				d := pl.errAt(model.CodeMPTPTooLarge, at, fmt.Sprintf("%d GPUs", len(infer)), "inference TP size %d is larger than its %d GPUs", mp.InferenceTP.Value, len(infer))
				if mp.InferenceTP.Span.Known() {
					d.Labels = []model.Label{{Span: mp.InferenceTP.Span, Message: "TP size"}}
				}
			}
			if !mp.RecomputeLogprobs.Value {
				d := pl.errAt(model.CodeMPRecompute, at, "inference GPUs given", "algorithm.recompute_logprobs is false, which disables inference, but inference GPUs are given")
				d.Labels = []model.Label{{Span: mp.RecomputeLogprobs.Span, Message: "set to false here"}}
				d.Help = []model.Fix{{Message: "remove the inference placement, or set algorithm.recompute_logprobs: true"}}
			}
		}
	}
	if pl.diags.HasErrors() {
		return model.ModeNone
	}
	for _, tc := range []struct {
		name string
		f    model.IntFact
		n    []int
	}{{"actor", mp.ActorTP, actor}, {"rollout", mp.RolloutTP, rollout}} {
		if tc.f.Value > len(tc.n) {
			at, _ := v.at(tc.name)
			d := pl.errAt(model.CodeMPTPTooLarge, tc.f.Span, "TP size", "%s TP size %d is larger than its %d GPUs", tc.name, tc.f.Value, len(tc.n))
			d.Labels = []model.Label{{Span: at, Message: fmt.Sprintf("%d GPUs", len(tc.n))}}
		}
	}
	if pl.diags.HasErrors() {
		return model.ModeNone
	}
	packed := func(name string, start, end, nhpp, stride int) {
		cp := v.get(name)
		if cp == nil {
			return
		}
		cp.Strategy = model.Strategy{Kind: model.StrategyPacked, Start: start, End: end, HardwarePerProcess: nhpp, Stride: stride}
		cp.NodeGroups = []string{"cluster"}
		e := &pl.cfg.Components[cp.Entry]
		if len(e.NodeGroups) > 0 && !(len(e.NodeGroups) == 1 && e.NodeGroups[0] == "cluster") {
			w := pl.warnAt(model.WarnMPNodeGroup, e.NodeGroupSpan, "ignored", "%s: model-parallel placement ignores node_group and places on the default `cluster` group", name)
			w.Why = "RLinf's ModelParallelComponentPlacement replaces the strategy with Packed over all GPUs; the resource ranks are cluster-wide GPU indices (D9)."
		}
		if n := end - start + 1; nhpp > 0 && n%(nhpp*max(stride, 1)) == 0 && n/nhpp != cp.RankMapWorldSize {
			at, _ := v.at(name)
			pl.warnAt(model.WarnMPWorldSize, at, "", "%s: RLinf launches %d processes here, while its get_world_size reports %d", name, n/nhpp, cp.RankMapWorldSize).Why =
				"Under model-parallel placement the Packed strategy decides the process count; code that trusts get_world_size sees a different number (D9)."
		}
	}
	first := func(l []int) int { return l[0] }
	last := func(l []int) int { return l[len(l)-1] }
	rtp, rpp := mp.RolloutTP.Value, mp.RolloutPP.Value
	dpNhpp := func(gpus int) (int, bool) {
		dp := gpus / (rtp * rpp)
		if dp == 0 {
			at, _ := v.at("rollout")
			d := pl.errAt(model.CodeMPSizes, at, fmt.Sprintf("%d GPUs", gpus), "rollout has %d GPUs, fewer than TP x PP = %d x %d", gpus, rtp, rpp)
			if mp.RolloutPP.Span.Known() {
				d.Labels = []model.Label{{Span: mp.RolloutPP.Span, Message: "pipeline parallel size"}}
			}
			return 0, false
		}
		if gpus%(rtp*rpp) != 0 {
			at, _ := v.at("rollout")
			pl.warnAt(model.WarnParallelDivides, at, "", "rollout has %d GPUs, not a multiple of TP x PP = %d: RLinf runs %d engine(s) of %d GPUs", gpus, rtp*rpp, dp, gpus/dp)
		}
		return gpus / dp, true
	}
	if a := mp.ActorTP.Value * mp.ActorCP.Value * mp.ActorPP.Value; len(actor)%a != 0 {
		at, _ := v.at("actor")
		pl.warnAt(model.WarnParallelDivides, at, "", "actor has %d GPUs, not a multiple of TP x CP x PP = %d", len(actor), a)
	}
	switch mode {
	case model.ModeCollocated:
		stride := 1
		if a, r := mp.ActorTP.Value, rtp; a > r {
			if a%r != 0 {
				d := pl.errAt(model.CodeMPTPDivisible, mp.RolloutTP.Span, "rollout TP", "actor TP size %d must be divisible by rollout TP size %d in collocated mode", a, r)
				d.Labels = []model.Label{{Span: mp.ActorTP.Span, Message: "actor TP"}}
				d.Why = "Collocated rollout engines interleave inside each actor TP group (stride = actor TP / rollout TP)."
				return model.ModeNone
			}
			stride = a / r
		}
		packed("actor", first(actor), last(actor), 1, 1)
		if n := len(rollout); n%(rtp*stride) != 0 {
			at, _ := v.at("rollout")
			d := pl.errAt(model.CodePackedDivisible, at, fmt.Sprintf("%d GPUs", n), "rollout's %d GPUs are not divisible by rollout TP x stride = %d x %d", n, rtp, stride)
			d.Labels = []model.Label{{Span: mp.RolloutTP.Span, Message: "rollout TP"}}
			return model.ModeNone
		}
		packed("rollout", first(rollout), last(rollout), rtp, stride)
	case model.ModeDisaggregated:
		packed("actor", first(actor), last(actor), 1, 1)
		nhpp, ok := dpNhpp(len(rollout))
		if !ok {
			return model.ModeNone
		}
		packed("rollout", first(rollout), last(rollout), nhpp, 1)
		if infer != nil {
			packed(inferName, first(infer), last(infer), 1, 1)
		}
		if criticInf != nil {
			packed("critic_inference", first(criticInf), last(criticInf), 1, 1)
		}
	case model.ModeAuto:
		packed("actor", 0, numGPUs-1, 1, 1)
		gpus := rollout
		if mp.UsePreProcessPolicy.Value {
			if (last(actor)-first(actor)+1)%rtp != 0 {
				d := pl.errAt(model.CodeMPSizes, mp.UsePreProcessPolicy.Span, "", "with use_pre_process_policy the actor's %d GPUs must be divisible by rollout TP %d", len(actor), rtp)
				at, _ := v.at("actor")
				d.Labels = []model.Label{{Span: at, Message: "actor"}}
				return model.ModeNone
			}
			gpus = make([]int, 0, last(actor)+1+len(rollout))
			for i := 0; i <= last(actor); i++ {
				gpus = append(gpus, i)
			}
			gpus = append(gpus, rollout...)
		}
		nhpp, ok := dpNhpp(len(gpus))
		if !ok {
			return model.ModeNone
		}
		packed("rollout", first(gpus), last(gpus), nhpp, 1)
		if infer != nil {
			packed(inferName, first(infer), last(infer), 1, 1)
		}
	}
	if reward := v.hw("reward"); reward != nil {
		if !contiguous(reward) {
			at, _ := v.at("reward")
			w := pl.warnAt(model.WarnMPRewardGaps, at, "", "reward GPUs %s have gaps; RLinf runs reward on every GPU from %d to %d (%d processes)",
				model.RangeText(reward), first(reward), last(reward), last(reward)-first(reward)+1)
			w.Why = "Model-parallel placement places reward with Packed(first, last), which fills the gaps (D9)."
		}
		packed("reward", first(reward), last(reward), 1, 1)
	}
	if critic != nil {
		packed("critic", first(critic), last(critic), 1, 1)
	}
	return mode
}
