package strategies

import (
	"fmt"

	"github.com/rlsolve/rlsolve/model"
)

// modelParallel applies ModelParallelComponentPlacement (semantics §5.2) to
// a plan of base strategies: it decides the mode and replaces the
// model-parallel components' strategies with Packed ones on the default
// group. The rules have judged the layout; a broken invariant is an error.
func modelParallel(cfg *model.Config, c *Cluster, plan *model.Plan) (model.PlacementMode, error) {
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
			cp.Strategy = model.Strategy{Kind: model.StrategyPacked, Start: gpus[0], End: gpus[len(gpus)-1], HardwarePerProcess: nhpp, Stride: stride}
			cp.NodeGroups = []string{"cluster"}
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
	switch mode {
	case model.ModeCollocated:
		packed("actor", actor, 1, 1)
		packed("rollout", rollout, rtp, model.CollocatedStride(mp.ActorTP.Value, rtp))
	case model.ModeDisaggregated:
		packed("actor", actor, 1, 1)
		if err := engines(rollout); err != nil {
			return mode, err
		}
		packed(inferName, hw(inferName), 1, 1)
		packed("critic_inference", hw("critic_inference"), 1, 1)
	case model.ModeAuto:
		all := make([]int, c.NumAccelerators())
		for i := range all {
			all[i] = i
		}
		packed("actor", all, 1, 1)
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
