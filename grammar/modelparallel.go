package grammar

import (
	"github.com/rlsolve/rlsolve/model"
)

// modelParallel reads the keys ModelParallel placement uses (semantics §5.2)
// from a whole training config.
func (d *doc) modelParallel(cfg *model.Config) {
	mp := &cfg.ModelParallel
	read := func(f *model.IntFact, def int, paths ...string) {
		f.Value = def
		for _, p := range paths {
			if d.Path(p) != nil {
				d.positiveInt(f, p)
				return
			}
		}
	}
	read(&mp.ActorTP, 1, "actor.model.tensor_model_parallel_size")
	read(&mp.ActorCP, 1, "actor.model.context_parallel_size")
	read(&mp.ActorPP, 1, "actor.model.pipeline_model_parallel_size")
	read(&mp.RolloutTP, 1, "rollout.tensor_parallel_size")
	read(&mp.RolloutPP, 1, "rollout.pipeline_parallel_size")
	read(&mp.InferenceTP, mp.ActorTP.Value, "inference.model.tensor_model_parallel_size", "actor_inference.model.tensor_model_parallel_size")
	mp.Present = mp.ActorTP.Set || mp.RolloutTP.Set
	mp.RecomputeLogprobs.Value = true
	if n := d.Path("algorithm.recompute_logprobs"); n != nil {
		if b, v, ok := d.Boolean(n, "algorithm.recompute_logprobs"); ok {
			mp.RecomputeLogprobs = model.BoolFact{Value: b, Set: true, Span: v.Span}
		}
	}
}
