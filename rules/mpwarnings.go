package rules

import (
	"fmt"

	"github.com/rlsolve/rlsolve/model"
)

// mpWarnings say where model-parallel placement launches something other
// than the config reads (D9): node_group ignored, reward gaps filled,
// process counts that differ from get_world_size, sizes that leave GPUs
// idle.
func mpWarnings(ds *model.Diagnostics, cfg *model.Config, plan *model.Plan) {
	at := func(cp *model.ComponentPlan) model.Span { return cfg.Components[cp.Entry].PlacementSpan }
	for i := range plan.Components {
		cp := &plan.Components[i]
		s := &cp.Strategy
		if s.Kind != model.StrategyPacked {
			continue
		}
		e := &cfg.Components[cp.Entry]
		if len(e.NodeGroups) > 0 && !(len(e.NodeGroups) == 1 && e.NodeGroups[0] == "cluster") {
			ds.Warnf(model.WarnMPNodeGroup, e.NodeGroupSpan, "ignored", "%s: model-parallel placement ignores node_group and places on the default `cluster` group", cp.Name).Why =
				"RLinf's ModelParallelComponentPlacement replaces the strategy with Packed over all GPUs; the resource ranks are cluster-wide GPU indices (D9)."
		}
		nhpp, stride := max(s.HardwarePerProcess, 1), max(s.Stride, 1)
		if n := s.End - s.Start + 1; n%(nhpp*stride) == 0 && n/nhpp != cp.RankMapWorldSize {
			// Information, not a mistake: collocated rollouts with TP > 1
			// always launch fewer processes than their GPUs.
			ds.Notef(model.NoteMPWorldSize, at(cp), "", "%s: RLinf launches %d processes here, while its get_world_size reports %d", cp.Name, n/nhpp, cp.RankMapWorldSize).Why =
				"Under model-parallel placement the Packed strategy decides the process count; code that trusts get_world_size sees a different number (D9)."
		}
		if cp.Name == "reward" && !contiguous(cp.HardwareRanks) {
			hw := cp.HardwareRanks
			ds.Warnf(model.WarnMPRewardGaps, at(cp), "", "reward GPUs %s have gaps; RLinf runs reward on every GPU from %d to %d (%d processes)",
				model.RangeText(hw), hw[0], last(hw), last(hw)-hw[0]+1).Why = "Model-parallel placement places reward with Packed(first, last), which fills the gaps (D9)."
		}
	}
	mpSizeWarnings(ds, cfg, plan)
}

// mpSizeWarnings warn where a rollout's GPUs are not a multiple of its TP
// x PP (D21): RLinf makes dp = GPUs / (TP x PP) engines of GPUs / dp GPUs
// each, and each engine's SGLang or vLLM uses the first TP x PP of them.
// (The actor's sizes are a rule: Megatron refuses what does not divide.)
func mpSizeWarnings(ds *model.Diagnostics, cfg *model.Config, plan *model.Plan) {
	mp := &cfg.ModelParallel
	rollout := plan.Component("rollout")
	if rollout == nil || plan.Mode == model.ModeCollocated {
		return
	}
	s := &rollout.Strategy
	gpus := s.End - s.Start + 1
	rtp, rpp := mp.RolloutTP.Value, mp.RolloutPP.Value
	dp, per := model.RolloutEngines(gpus, rtp, rpp)
	if dp == 0 || gpus%(rtp*rpp) == 0 {
		return
	}
	var idle []int
	for i := 0; i < dp; i++ {
		for g := s.Start + i*per + rtp*rpp; g < s.Start+(i+1)*per; g++ {
			idle = append(idle, g)
		}
	}
	e := &cfg.Components[rollout.Entry]
	w := ds.Warnf(model.WarnParallelDivides, e.PlacementSpan, fmt.Sprintf("%d GPUs", gpus),
		"rollout has %d GPUs, not a multiple of TP x PP = %d: RLinf runs %d engine(s) of %d GPUs, each using %d, and leaves GPU(s) %s idle",
		gpus, rtp*rpp, dp, per, rtp*rpp, model.CompactRanks(idle, ","))
	w.Why = "Each engine holds GPUs / dp GPUs but its inference server uses TP x PP of them; the rest are placed and do no work (D21)."
	if mp.RolloutTP.Set {
		w.Labels = []model.Label{{Span: mp.RolloutTP.Span, Message: fmt.Sprintf("TP %d", rtp)}}
	}
	if len(e.Segments) == 1 && !e.Segments[0].HasProcesses && len(e.Names) == 1 {
		end := s.Start + dp*rtp*rpp - 1
		w.Help = []model.Fix{{Message: fmt.Sprintf("give the rollout %d GPUs (a multiple of %d)", dp*rtp*rpp, rtp*rpp),
			Edits: []model.Edit{{Span: e.Segments[0].ResSpan, NewText: rangeStr(s.Start, end)}}}}
	}
}

func contiguous(l []int) bool {
	for i := 1; i < len(l); i++ {
		if l[i] != l[i-1]+1 {
			return false
		}
	}
	return true
}
