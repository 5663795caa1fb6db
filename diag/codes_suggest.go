package diag

import "github.com/rlsolve/rlsolve/model"

func init() {
	explanations = append(explanations,
		Explanation{
			Code:  model.CodeSuggestProfile,
			Title: "profile_data missing, incomplete or not seconds",
			Text: "`rlsolve suggest` ranks placements with RLinf's auto-placement cost model, which reads " +
				"measured costs from profile_data: actor_cost, rollout_cost and (when " +
				"algorithm.recompute_logprobs is true, so that the inference stage runs) inference_cost, " +
				"in seconds per step as profiled in the config's component_placement. Embodied configs " +
				"give env_profile_data and rollout_profile_data ({envs per GPU: seconds}) and actor_cost. " +
				"Costs must be non-negative numbers. Without any profile_data suggest ranks with balanced " +
				"costs and says so; --profile actor=S,rollout=S,inference=S supplies or overrides them.",
			Example: `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,reward: all
algorithm:
  recompute_logprobs: true
profile_data:
  actor_cost: 95.7
  rollout_cost: 59.9
`,
		},
		Explanation{
			Code:  model.CodeSuggestBatch,
			Title: "setting the cost model needs is missing or invalid",
			Text: "The reasoning cost model reads data.rollout_batch_size, algorithm.group_size, " +
				"algorithm.n_minibatches and rollout.max_running_requests (whole numbers of at least 1) " +
				"to price each stage; the embodied model needs data.env_num, the number of environments. " +
				"A missing reasoning setting is defaulted with a note; a missing env_num cannot be. " +
				"The model prices reasoning and embodied training: another runner.task_type is refused.",
			Example: `cluster:
  num_nodes: 1
  component_placement:
    actor,env,rollout: all
runner:
  task_type: embodied
profile_data:
  actor_cost: 100
`,
		},
		Explanation{
			Code:  model.CodeSuggestNone,
			Title: "no valid placement of the GPUs",
			Text: "No collocated or split layout of the GPUs both has a cost under the model and passes " +
				"rlsolve check. The model gives a component at most the GPUs it had in the profiled " +
				"placement and only valid data-parallel sizes; the check rejects rollout engines or " +
				"model-parallel groups across a node boundary, collocated actor TP not divisible by " +
				"rollout TP, and GPU counts not divisible by the parallel sizes. The error lists the GPU " +
				"counts each stage can take and advises the nearest GPU counts, fewer or more, that do " +
				"have a layout (each checked on its own count). Plan for one of those, profile on all the " +
				"GPUs you plan for, or change the GPUs per node or the TP sizes.",
			Example: `# rlsolve suggest train.yaml --gpus-per-node 4: 12 GPUs, and the actor's
# 8-GPU groups fit neither 12 GPUs collocated nor any split
cluster:
  num_nodes: 3
  component_placement:
    actor,rollout,reward: all
actor:
  model:
    tensor_model_parallel_size: 8
`,
		},
		Explanation{
			Code:  model.CodeSuggestProfiled,
			Title: "parallel size larger than the profiled placement",
			Text: "The cost model reads each component's model-parallel size from the profiled placement: " +
				"its GPU count divided by its data-parallel size (GPUs / (TP x CP x PP) for the actor, " +
				"GPUs / (TP x PP) for rollout and inference). A component profiled on fewer GPUs than its " +
				"parallel size has no data-parallel size at all, so its costs cannot be scaled.",
			Example: `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,reward: 0-1
actor:
  model:
    tensor_model_parallel_size: 4
profile_data:
  actor_cost: 100
  rollout_cost: 100
  inference_cost: 20
`,
		},
	)
}
