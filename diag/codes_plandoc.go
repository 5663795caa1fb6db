package diag

import "github.com/rlsolve/rlsolve/model"

func init() {
	explanations = append(explanations, Explanation{
		Code:  model.CodePlanDocument,
		Title: "unreadable plan document",
		Text: "A plan document given to `rlsolve plan --diff` (or `solve --from`) is read back strictly: it must be " +
			"the JSON that `rlsolve plan --output json` writes, with format_version \"1\", every component named " +
			"in component_order, and each component's placements listed by rank from 0 with world_size records. " +
			"Invalid JSON, a value of the wrong type, another format_version (a newer rlsolve's document, or " +
			"`check --output json`'s report) or records edited out of order are reported at their file, line and " +
			"column. Write the document again with `rlsolve plan CONFIG --output json > plan.json`.",
		Example: `# rlsolve plan --diff old.json train.yaml, where old.json holds {"format_version": "2", ...}
cluster:
  num_nodes: 1
  component_placement:
    actor,rollout: all
`,
	})
}
