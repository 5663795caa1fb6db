package strategies

import (
	"fmt"

	"github.com/rlsolve/rlsolve/model"
)

// modelParallel applies ModelParallelComponentPlacement (semantics §5.2) to
// a plan of base strategies: it decides the mode and replaces the
// model-parallel components' strategies with Packed ones on the default
// group. The rules have judged the layout; a broken invariant is an error.
func modelParallel(cfg *model.Config, c *Cluster, plan *model.Plan, class model.PlacementClass) (model.PlacementMode, error) {
	hw := func(name string) []int {
		if cp := plan.Component(name); cp != nil {
			return cp.HardwareRanks
		}
		return nil
	}
	actor, rollout := hw("actor"), hw("rollout")
	if len(actor) == 0 || len(rollout) == 0 {
		return model.ModeNone, fmt.Errorf("model-parallel placement without actor or rollout GPUs")
	}
	inferName := "inference"
	if hw(inferName) == nil && hw("actor_inference") != nil {
		inferName = "actor_inference"
	}
	mp := &cfg.ModelParallel
	rtp, rpp := mp.RolloutTP.Value, mp.RolloutPP.Value
	packed := func(name string, gpus []int, nhpp, stride int) {
		if cp := plan.Component(name); cp != nil && len(gpus) > 0 {
			setPacked(cp, gpus, nhpp, stride)
		}
	}
	engines := func(gpus []int) error {
		dp, nhpp := model.RolloutEngines(len(gpus), rtp, rpp)
		if dp == 0 {
			return fmt.Errorf("rollout has %d GPUs, fewer than TP x PP = %d", len(gpus), rtp*rpp)
		}
		packed("rollout", gpus, nhpp, 1)
		return nil
	}
	mode := model.DecideMPMode(mp.AutoScheduler.Value, hw("critic") != nil, actor, rollout)
	if class == model.ClassMultiAgent && mode != model.ModeAuto {
		mode = model.ModeCollocated // always collocated
	}
	switch mode {
	case model.ModeCollocated:
		stride := model.CollocatedStride(mp.ActorTP.Value, rtp)
		packed("actor", actor, 1, 1)
		packed("rollout", rollout, rtp, stride)
		if class == model.ClassMultiAgent {
			extraEngines(plan, rtp, stride)
		}
	case model.ModeDisaggregated:
		packed("actor", actor, 1, 1)
		if err := engines(rollout); err != nil {
			return mode, err
		}
		packed(inferName, hw(inferName), 1, 1)
		packed("critic_inference", hw("critic_inference"), 1, 1)
	case model.ModeAuto:
		packed("actor", model.AutoActorGPUs(c.NumAccelerators()), 1, 1)
		if err := engines(model.AutoRolloutGPUs(actor, rollout, mp.UsePreProcessPolicy.Value)); err != nil {
			return mode, err
		}
		packed(inferName, hw(inferName), 1, 1)
	}
	// Reward and critic are Packed(first, last): gaps are filled (D9).
	packed("reward", hw("reward"), 1, 1)
	packed("critic", hw("critic"), 1, 1)
	return mode, nil
}

// evaluation applies ModelParallelEvalComponentPlacement (and its
// multi-agent variant): always collocated, the rollout Packed in engines of
// its TP size, reward Packed(first, last); the other components keep their
// base strategies, but for the multi-agent variant's extra engines.
func evaluation(cfg *model.Config, plan *model.Plan, class model.PlacementClass) (model.PlacementMode, error) {
	rtp := cfg.ModelParallel.RolloutTP.Value
	for _, name := range []string{"rollout", "reward"} {
		cp := plan.Component(name)
		if cp == nil || len(cp.HardwareRanks) == 0 {
			return model.ModeNone, fmt.Errorf("evaluation placement without %s GPUs", name)
		}
		nhpp := 1
		if name == "rollout" {
			nhpp = rtp
		}
		setPacked(cp, cp.HardwareRanks, nhpp, 1)
	}
	if class == model.ClassMultiAgentEval {
		extraEngines(plan, rtp, 1)
	}
	return model.ModeCollocated, nil
}

// extraEngines re-places a multi-agent run's extra engines (rollout_judge,
// ...) as the entry points launch them: Packed(first, last) of their GPUs
// with the rollout's devices per process and stride.
func extraEngines(plan *model.Plan, nhpp, stride int) {
	for i := range plan.Components {
		if cp := &plan.Components[i]; model.ExtraEngine(cp.Name) && len(cp.HardwareRanks) > 0 {
			setPacked(cp, cp.HardwareRanks, nhpp, stride)
		}
	}
}

// setPacked gives a component Packed(first, last) of its GPUs on the
// default group.
func setPacked(cp *model.ComponentPlan, gpus []int, nhpp, stride int) {
	cp.Strategy = model.Strategy{Kind: model.StrategyPacked, Start: gpus[0], End: gpus[len(gpus)-1], HardwarePerProcess: nhpp, Stride: stride}
	cp.NodeGroups = []string{"cluster"}
}
