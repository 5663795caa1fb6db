package rules

import (
	"fmt"
	"slices"

	"github.com/rlsolve/rlsolve/model"
)

// The checks that depend on the model-parallel mode (semantics §5.2 step
// 4): AUTO when auto_scheduler is on and there is no critic, COLLOCATED
// when actor and rollout have the same GPUs (always, for the multi-agent
// class), else DISAGGREGATED.

func (x *mpView) infer() string {
	if !x.has("inference") && x.has("actor_inference") {
		return "actor_inference"
	}
	return "inference"
}

// modeOf is the mode under p; ok is false without actor and rollout GPUs.
func (x *mpView) modeOf() (model.PlacementMode, bool) {
	actor, rollout := x.lists["actor"], x.lists["rollout"]
	if actor == nil || rollout == nil {
		return model.ModeNone, false
	}
	return x.decide(slices.Equal(actor, rollout)), true
}

// decide is the mode of actor and rollout that share their GPUs
// (collocated) or not.
func (x *mpView) decide(collocated bool) model.PlacementMode {
	auto, _ := x.size("auto_scheduler")
	m := model.MPMode(auto == 1, x.has("critic"), collocated)
	if x.b.opt.Class == model.ClassMultiAgent && m != model.ModeAuto {
		m = model.ModeCollocated
	}
	return m
}

// declaredMode is the mode as the config declares it, for the checks that
// need no GPU lists: modeOf, or, when solving with actor or rollout
// required, what their requirements say (they share devices when `with`
// gives them one owner, or owners placed on the same GPUs); ok is false
// without actor and rollout, or when that cannot be told.
func (x *mpView) declaredMode() (model.PlacementMode, bool) {
	if m, ok := x.modeOf(); ok || !x.has("actor") || !x.has("rollout") {
		return m, ok
	}
	same, known := collocated(x.b.cfg, x.b.entryOf("actor"), x.b.entryOf("rollout"), x.ownGPUs)
	if !known {
		return model.ModeNone, false // solve, or the entries' own rules, say why
	}
	return x.decide(same), true
}

// ownGPUs are the GPUs of entry ei under p: nil for a requirement, which
// solve gives devices of its own; ok is false when the entry fails its own
// rules.
func (x *mpView) ownGPUs(ei int) ([]int, bool) {
	if x.b.isRequirement(ei) {
		return nil, true
	}
	v, parts := x.b.entry(ei, x.p, allRules)
	if v != nil || len(parts) == 0 {
		return nil, false
	}
	return model.HardwareRanks(parts), true
}

// mode checks AUTO's order, or that a layout that is not collocated is
// disaggregated.
func (x *mpView) mode() *Violation {
	m, ok := x.modeOf()
	switch {
	case !ok || m == model.ModeCollocated:
		return nil
	case m == model.ModeAuto:
		return x.autoOrder()
	}
	infer := x.infer()
	pairs := [][2]string{{"actor", "rollout"}, {"actor", infer}, {"rollout", infer}, {"critic", "actor"},
		{"critic", "rollout"}, {"critic", "critic_inference"}, {"rollout", "critic_inference"}}
	for _, pr := range pairs {
		if overlap(x.lists[pr[0]], x.lists[pr[1]]) {
			x.mark(pr[0], pr[0])
			x.mark(pr[1], fmt.Sprintf("%s overlaps %s", pr[1], pr[0]))
			v := &Violation{Code: model.CodeMPMode, Primary: x.primary(pr[1]), Roles: x.roles,
				Summary: fmt.Sprintf("%s and %s share some GPUs but not all: neither collocated nor disaggregated", pr[0], pr[1]),
				Why:     "Model-parallel placement is collocated (actor and rollout on exactly the same GPUs) or disaggregated (disjoint GPUs); reward may overlap anything.",
				Fixes:   []Fix{x.b.moveAfterFix(pr[1], x.lists[pr[0]], x.lists[pr[1]], x.b.cluster().NumAccelerators())}}
			if fix, ok := x.b.trimFix(pr[1], x.lists[pr[0]], x.lists[pr[1]]); ok {
				v.Fixes = append(v.Fixes, fix)
			}
			return v
		}
	}
	return nil
}

func (x *mpView) autoOrder() *Violation {
	actor, rollout, inf := x.lists["actor"], x.lists["rollout"], x.lists[x.infer()]
	numGPUs := x.b.cluster().NumAccelerators()
	ok := actor[0] == 0 && last(actor)+1 == rollout[0]
	if inf != nil {
		ok = ok && last(rollout)+1 == inf[0] && last(inf) == numGPUs-1
	} else {
		ok = ok && last(rollout) == numGPUs-1
	}
	if ok {
		return nil
	}
	_, autoF := x.size("auto_scheduler")
	x.mark("actor", "actor")
	x.mark("rollout", "rollout")
	x.mark(x.infer(), "inference")
	x.roles[autoF] = "AUTO mode"
	return &Violation{Code: model.CodeMPAutoOrder, Primary: autoF, Roles: x.roles,
		Summary: fmt.Sprintf("AUTO mode needs actor, rollout and inference in that order, from GPU 0 to the last GPU (%d)", numGPUs-1)}
}

// collocatedExtra refuses inference GPUs in collocated mode.
func (x *mpView) collocatedExtra() *Violation {
	if m, ok := x.declaredMode(); !ok || m != model.ModeCollocated {
		return nil
	}
	for _, n := range []string{x.infer(), "critic_inference"} {
		if x.has(n) {
			x.mark(n, n+" GPUs")
			x.mark("actor", "actor and rollout share these GPUs: collocated")
			return &Violation{Code: model.CodeMPCollocatedExtra, Primary: x.primary(n), Roles: x.roles,
				Summary: fmt.Sprintf("%s GPUs must not be given in collocated mode", n),
				Why:     "In collocated mode actor and rollout take turns on the same GPUs; RLinf asserts that no " + n + " GPUs are given."}
		}
	}
	return nil
}

// collocatedRollout checks the collocated rollout's strided engines: actor
// TP a multiple of rollout TP, whole engines, each on one node.
func (x *mpView) collocatedRollout() *Violation {
	if m, ok := x.modeOf(); !ok || m != model.ModeCollocated {
		return nil
	}
	atp, atpF := x.size("actor_tp")
	rtp, rtpF := x.size("rollout_tp")
	rollout := x.lists["rollout"]
	if rtp > len(rollout) || atp > len(x.lists["actor"]) {
		return nil // tpSize says so
	}
	if atp > rtp && atp%rtp != 0 {
		x.roles[atpF], x.roles[rtpF] = fmt.Sprintf("actor TP %d", atp), fmt.Sprintf("rollout TP %d", rtp)
		primary := rtpF
		if primary < 0 {
			primary = atpF
		}
		// The conflict's smallest set may drop the actor's TP (without it a
		// different rule fails), yet the message names it: point at it.
		var extra []model.Label
		if atpF >= 0 && primary != atpF {
			extra = []model.Label{{Span: x.b.set.Facts[atpF].Span, Message: fmt.Sprintf("actor TP %d", atp)}}
		}
		return &Violation{Code: model.CodeMPTPDivisible, Primary: primary, Roles: x.roles, Extra: extra,
			Summary: fmt.Sprintf("actor TP size %d must be divisible by rollout TP size %d in collocated mode", atp, rtp),
			Why:     "Collocated rollout engines interleave inside each actor TP group (stride = actor TP / rollout TP).",
			Fixes:   append(x.b.tpFixes(atp, rtp), x.b.actorTPFixes(atp, rtp, len(x.lists["actor"]))...)}
	}
	stride := model.CollocatedStride(atp, rtp)
	if len(rollout)%(rtp*stride) != 0 {
		x.mark("rollout", fmt.Sprintf("%d GPUs", len(rollout)))
		x.roles[rtpF] = fmt.Sprintf("rollout TP %d", rtp)
		if stride > 1 {
			x.roles[atpF] = fmt.Sprintf("actor TP %d (stride %d)", atp, stride)
		}
		return &Violation{Code: model.CodePackedDivisible, Primary: x.primary("rollout"), Roles: x.roles,
			Summary: fmt.Sprintf("rollout's %d GPUs are not divisible by rollout TP x stride = %d x %d", len(rollout), rtp, stride),
			Why:     fmt.Sprintf("RLinf interleaves collocated rollout engines of %d GPUs, %d apart, inside each actor TP group of %d GPUs (stride = actor TP / rollout TP); GPUs that do not make whole groups are rejected when the placement is built.", rtp, stride, rtp*stride),
			Fixes:   x.b.sizeFixes("rollout_tp", rtp, len(rollout))}
	}
	return x.packedSpans("rollout", rollout, rtp, stride)
}

// inference checks the inference component RLinf's disaggregated branch
// checks: its TP size, and that recompute_logprobs does not disable it.
func (x *mpView) inference() *Violation {
	m, ok := x.declaredMode()
	infer := x.infer()
	inf := x.lists[infer]
	if !ok || m != model.ModeDisaggregated || !x.has(infer) {
		return nil
	}
	if itp, itpF := x.size("inference_tp"); inf != nil && itp > len(inf) {
		x.markDisaggregated()
		x.mark(infer, fmt.Sprintf("%d GPUs", len(inf)))
		x.roles[itpF] = fmt.Sprintf("inference TP %d", itp)
		return &Violation{Code: model.CodeMPTPTooLarge, Primary: x.primary(infer), Roles: x.roles,
			Summary: fmt.Sprintf("inference TP size %d is larger than its %d GPUs", itp, len(inf)),
			Why:     "RLinf checks the inference TP size in disaggregated mode, which actor and rollout on different GPUs make.",
			Fixes:   x.b.sizeFixes("inference_tp", itp, len(inf))}
	}
	if rc, rcF := x.size("recompute_logprobs"); rc == 0 {
		x.markDisaggregated()
		x.mark(infer, "inference GPUs")
		x.roles[rcF] = "disables inference"
		return &Violation{Code: model.CodeMPRecompute, Primary: x.primary(infer), Roles: x.roles,
			Summary: "algorithm.recompute_logprobs is false, which disables inference, but inference GPUs are given",
			Fixes:   []Fix{x.b.recomputeFix()}}
	}
	return nil
}

// markDisaggregated labels the actor and rollout parts with what they
// contribute to a check of the disaggregated mode: the mode itself.
func (x *mpView) markDisaggregated() {
	x.mark("actor", "actor apart from the rollout: disaggregated")
	x.mark("rollout", "rollout apart from the actor: disaggregated")
}

// engines checks the disaggregated and AUTO rollout: engines of len/dp
// GPUs, dp = len / (TP*PP), each on one node; under AUTO with
// use_pre_process_policy the rollout also takes the actor's GPUs.
func (x *mpView) engines() *Violation {
	m, ok := x.modeOf()
	if !ok {
		m, ok = x.declaredMode() // solving: a placed rollout beside a required actor
	}
	if !ok || m == model.ModeCollocated {
		return nil
	}
	actor, rollout := x.lists["actor"], x.lists["rollout"]
	if rollout == nil {
		return nil // required: solve gives it whole engines
	}
	if rtp, _ := x.size("rollout_tp"); rtp > len(rollout) {
		return nil // tpSize says so
	}
	gpus := rollout
	if m == model.ModeAuto {
		preProcess := x.b.cfg.ModelParallel.UsePreProcessPolicy.Value
		if preProcess && actor == nil {
			return nil // the actor's GPUs join the rollout's: judged once they are known
		}
		rtp, rtpF := x.size("rollout_tp")
		if preProcess && (last(actor)-actor[0]+1)%rtp != 0 {
			x.mark("actor", fmt.Sprintf("%d GPUs", len(actor)))
			x.roles[rtpF] = fmt.Sprintf("rollout TP %d", rtp)
			return &Violation{Code: model.CodeMPSizes, Primary: x.primary("actor"), Roles: x.roles,
				Summary: fmt.Sprintf("with use_pre_process_policy the actor's %d GPUs must be divisible by rollout TP %d", len(actor), rtp)}
		}
		gpus = model.AutoRolloutGPUs(actor, rollout, preProcess)
	}
	return x.rolloutEngines(gpus)
}

func (x *mpView) rolloutEngines(gpus []int) *Violation {
	rtp, rtpF := x.size("rollout_tp")
	rpp, rppF := x.size("rollout_pp")
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
			Summary: fmt.Sprintf("rollout's %d GPUs make %d engines of %d GPUs with some left over", len(gpus), dp, nhpp),
			Why:     fmt.Sprintf("RLinf packs the rollout into engines of TP x PP = %d GPUs; the GPUs left over make no engine, and RLinf rejects the placement.", nhpp),
			Fixes:   rolloutTPFixes(x, rtp, rpp, len(gpus))}
	}
	return x.packedSpans("rollout", gpus, nhpp, 1)
}

// evalEngines checks the evaluation classes' rollout: Packed in engines of
// its TP size, each on one node.
func (x *mpView) evalEngines() *Violation {
	rollout := x.lists["rollout"]
	rtp, rtpF := x.size("rollout_tp")
	if rollout == nil || rtp > len(rollout) {
		return nil
	}
	if len(rollout)%rtp != 0 {
		x.mark("rollout", fmt.Sprintf("%d GPUs", len(rollout)))
		x.roles[rtpF] = fmt.Sprintf("rollout TP %d", rtp)
		return &Violation{Code: model.CodePackedDivisible, Primary: x.primary("rollout"), Roles: x.roles,
			Summary: fmt.Sprintf("rollout's %d GPUs are not divisible into engines of TP %d", len(rollout), rtp),
			Why:     fmt.Sprintf("The evaluation classes pack the rollout into engines of TP %d GPUs; the GPUs left over make no engine, and RLinf rejects the placement.", rtp),
			Fixes:   x.b.sizeFixes("rollout_tp", rtp, len(rollout))}
	}
	return x.packedSpans("rollout", rollout, rtp, 1)
}

// rolloutTPFixes are rollout TP sizes whose engines (TP x PP) fill n GPUs;
// only a TP the config writes can be changed, and only without PP, whose
// product with TP is what must divide.
func rolloutTPFixes(x *mpView, rtp, rpp, n int) []Fix {
	if rpp != 1 {
		return nil
	}
	return x.b.sizeFixes("rollout_tp", rtp, n)
}
