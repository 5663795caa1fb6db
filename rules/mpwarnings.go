package rules

import (
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
			ds.Notef(model.WarnMPWorldSize, at(cp), "", "%s: RLinf launches %d processes here, while its get_world_size reports %d", cp.Name, n/nhpp, cp.RankMapWorldSize).Why =
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

// mpSizeWarnings warn where a parallel layout leaves GPUs idle.
func mpSizeWarnings(ds *model.Diagnostics, cfg *model.Config, plan *model.Plan) {
	mp := &cfg.ModelParallel
	if actor := plan.Component("actor"); actor != nil {
		if a := mp.ActorTP.Value * mp.ActorCP.Value * mp.ActorPP.Value; a > 0 && len(actor.HardwareRanks)%a != 0 {
			ds.Warnf(model.WarnParallelDivides, cfg.Components[actor.Entry].PlacementSpan, "", "actor has %d GPUs, not a multiple of TP x CP x PP = %d", len(actor.HardwareRanks), a)
		}
	}
	rollout := plan.Component("rollout")
	if rollout == nil || plan.Mode == model.ModeCollocated {
		return
	}
	s := &rollout.Strategy
	gpus := s.End - s.Start + 1
	rtp, rpp := mp.RolloutTP.Value, mp.RolloutPP.Value
	if dp, per := model.RolloutEngines(gpus, rtp, rpp); dp > 0 && gpus%(rtp*rpp) != 0 {
		ds.Warnf(model.WarnParallelDivides, cfg.Components[rollout.Entry].PlacementSpan, "",
			"rollout has %d GPUs, not a multiple of TP x PP = %d: RLinf runs %d engine(s) of %d GPUs", gpus, rtp*rpp, dp, per)
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
