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
		Text: "A requirement's keys contradict each other (a placement and requirement keys, gpus that do not make " +
			"whole processes, both nodes and gpus, a component both with and apart from another) or name what does not " +
			"exist (with: or apart_from: a component that is not in component_placement), or are written where solve " +
			"cannot put the placement in their place (two requirement keys on one line of a mapping written over " +
			"several lines, one mapping shared by two components through a YAML alias). Solve places nothing until " +
			"every requirement can be read.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: {placement: 0-3, gpus: 4}
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
