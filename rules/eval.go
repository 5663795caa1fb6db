package rules

import (
	"fmt"

	"github.com/rlsolve/rlsolve/model"
)

// ruleEval is the validity of the evaluation classes (RLinf's
// ModelParallelEvalComponentPlacement and its multi-agent variant, used by
// the reasoning and agent evaluation entry points): rollout and reward
// required, the rollout contiguous and Packed in engines of its TP size,
// reward Packed(first, last), always collocated; the multi-agent variant
// also launches its extra engines like the rollout.
var ruleEval = &Rule{Name: "evaluation placement", Codes: []string{model.CodeMPMissing, model.CodeMPNotContiguous,
	model.CodeNeedsHardware, model.CodeMPTPTooLarge, model.CodePackedDivisible, model.CodeRankOutOfRange, model.CodeSpansNodes,
	model.CodeMAExtraEngine}}

func (b *builder) eval(p Present) *Violation {
	x, ok := b.mpLists(p)
	if !ok {
		return nil
	}
	for _, n := range []string{"rollout", "reward"} {
		if b.entryOf(n) < 0 {
			return &Violation{Code: model.CodeMPMissing, Primary: -1, Roles: x.roles,
				Summary: fmt.Sprintf("evaluation placement needs a `%s` component", n),
				Why:     fmt.Sprintf("RLinf's %s requires rollout and reward GPUs.", b.opt.Class.RLinfClass())}
		}
	}
	rollout, reward := x.lists["rollout"], x.lists["reward"]
	if rollout == nil || reward == nil {
		return nil
	}
	if last(rollout)-rollout[0]+1 != len(rollout) {
		x.mark("rollout", "rollout GPUs "+model.RangeText(rollout))
		return &Violation{Code: model.CodeMPNotContiguous, Primary: x.primary("rollout"), Roles: x.roles,
			Summary: fmt.Sprintf("rollout GPUs %s must be one contiguous range under evaluation placement", model.RangeText(rollout))}
	}
	if b.cluster().NumAccelerators() == 0 {
		return &Violation{Code: model.CodeNeedsHardware, Primary: -1, Roles: x.roles,
			Summary: "evaluation placement packs rollout and reward onto GPUs, but the inventory has none"}
	}
	rtp, rtpF := b.setting(p, "rollout_tp")
	if rtp > len(rollout) {
		x.mark("rollout", fmt.Sprintf("%d GPUs", len(rollout)))
		x.roles[rtpF] = fmt.Sprintf("rollout TP %d", rtp)
		return &Violation{Code: model.CodeMPTPTooLarge, Primary: rtpF, Roles: x.roles,
			Summary: fmt.Sprintf("rollout TP size %d is larger than its %d GPUs", rtp, len(rollout))}
	}
	if len(rollout)%rtp != 0 {
		x.mark("rollout", fmt.Sprintf("%d GPUs", len(rollout)))
		x.roles[rtpF] = fmt.Sprintf("rollout TP %d", rtp)
		return &Violation{Code: model.CodePackedDivisible, Primary: x.primary("rollout"), Roles: x.roles,
			Summary: fmt.Sprintf("rollout's %d GPUs are not divisible into engines of TP %d", len(rollout), rtp)}
	}
	for _, n := range []string{"rollout", "reward"} {
		if v := x.packedRange(n, x.lists[n][0], last(x.lists[n])); v != nil {
			return v
		}
	}
	if v := x.packedSpans("rollout", rollout, rtp, 1); v != nil {
		return v
	}
	if b.opt.Class == model.ClassMultiAgentEval {
		return x.extras(1)
	}
	return nil
}
