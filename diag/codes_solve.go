package diag

import "github.com/rlsolve/rlsolve/model"

// Requirements and `rlsolve solve` (E11, N11).
func init() {
	explanations = append(explanations, solveExplanations...)
}

var solveExplanations = []Explanation{
	{
		Code:  model.CodeNeedsSolve,
		Title: "a requirement where a placement is needed",
		Text: "A component states what it needs (gpus:, processes:, nodes:, with:, apart_from:) instead of a placement " +
			"string. RLinf reads only placement strings, so check and plan refuse the file; `rlsolve solve FILE` chooses " +
			"the devices and writes the placement strings in (--write edits the file), after which check accepts it.",
		Example: `cluster:
  num_nodes: 2
  component_placement:
    actor: {gpus: 8}
    rollout: 8-15
`,
	},
	{
		Code:  model.CodeRequirementInvalid,
		Title: "a requirement that cannot be read",
		Text: "A requirement mapping's own keys cannot be read together: `with:` naming more than one component, " +
			"an empty component name, no name at all. A placement may stand beside the requirement keys (solve " +
			"writes it there, RLinf ignores the other keys): check and plan judge the placement, solve places the " +
			"component again from its requirement.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: {gpus: 4}
    reward: {with: "actor,rollout"}
    rollout: {gpus: 4}
`,
	},
	{
		Code:  model.CodeRequirementConflict,
		Title: "requirements that contradict each other",
		Text: "Requirements contradict each other or name what does not exist: gpus that do not make whole processes " +
			"of gpus_per_process, both nodes and gpus, a component both with and apart from another, `with` going round " +
			"in a circle, a component named in with:/apart_from: that is not in component_placement (with a did-you-mean), " +
			"node groups of different hardware; or no component states a requirement at all. Solve places nothing until " +
			"they agree.",
		Example: `# rlsolve solve example.yaml --gpus-per-node 8
cluster:
  num_nodes: 1
  component_placement:
    actor: {gpus: 4}
    reward: {with: actr}
`,
	},
	{
		Code:  model.CodeUnplaceable,
		Title: "requirements that cannot hold together",
		Text: "No choice of devices satisfies these requirements and cluster facts together. The diagnostic lists a " +
			"minimal set: without any one of its facts, a placement exists. Where counting shows it (components that " +
			"keep their own devices need more than their node groups have free) the numbers are given. Each fix " +
			"offered (a smaller count, another node group) was confirmed by solving again. Independent conflicts are " +
			"reported separately.",
		Example: `# rlsolve solve example.yaml
cluster:
  num_nodes: 2
  node_groups:
    - {label: a800, node_ranks: 0}
  component_placement:
    actor: {gpus: 8, node_group: a800}
    inference: {gpus: 4, node_group: a800}
`,
	},
	{
		Code:  model.CodeSolvedRefused,
		Title: "check refuses the solved file",
		Text: "Solve found devices for every requirement, but check refuses the file with the placements written in. " +
			"Some of RLinf's rules can only be judged once every component has its devices (the components a " +
			"model-parallel run needs, its collocated or disaggregated mode); check's errors on the solved file come " +
			"with this one, located in the solved text. Nothing is printed or written. If a placement that check " +
			"accepts exists, it is a bug in rlsolve: please report it with the input.",
		Example: `# rlsolve solve example.yaml --gpus-per-node 8
cluster:
  num_nodes: 2
  component_placement:
    actor: {gpus: 8}
    rollout: {gpus: 8}
runner: {task_type: reasoning}
`,
	},
	{
		Code:  model.CodeUnknownNode,
		Title: "an excluded node the cluster does not have",
		Text: "--without-node names a node rank outside the cluster (num_nodes, or the inventory's nodes). A mistyped " +
			"rank would leave the node meant in the placement, so solve places nothing; node ranks count from 0.",
		Example: `# rlsolve solve example.yaml --gpus-per-node 8 --without-node 2
cluster:
  num_nodes: 2
  component_placement:
    actor: {gpus: 8}
`,
	},
	{
		Code:  model.CodeWriteBackLayout,
		Title: "a requirement solve cannot replace where it is written",
		Text: "Solve writes each placement beside its requirement, keeping every other byte. It refuses layouts " +
			"where that cannot be done safely: a requirement from a composed file or the command line (state it in " +
			"the file solve writes), one mapping shared by two components through a YAML alias, a placed requirement " +
			"moved to a node group its mapping does not name, a file with lone CR line endings.",
		Example: `# rlsolve solve example.yaml --gpus-per-node 8
cluster:
  num_nodes: 1
  component_placement:
    actor: &a {gpus: 4}
    critic: *a
`,
	},
	{
		Code:  model.NoteSolveBound,
		Title: "a placement not proven optimal",
		Text: "The solver's time budget ended the search for a better placement. The placement written is valid " +
			"(check accepts it), but one with a better objective value may exist. Raise --solver-budget to search longer.",
		Example: `# rlsolve solve example.yaml --gpus-per-node 8 --solver-budget 1ms
cluster:
  num_nodes: 128
  component_placement:
    actor: {gpus: 512}
    rollout: {gpus: 384, gpus_per_process: 2}
`,
	},
}
