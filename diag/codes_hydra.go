package diag

import "github.com/rlsolve/rlsolve/model"

// Hydra composition, command-line overrides, mandatory values and
// placeholders (E012x, W012x, N012x). An example whose first line is
// `# rlsolve check example.yaml ARGS` is checked with those arguments.
func init() {
	explanations = append(explanations, hydraExplanations...)
}

var hydraExplanations = []Explanation{
	{
		Code:  model.CodeDefaultsEntry,
		Title: "malformed defaults list entry",
		Text: "RLinf's entry points compose a config with Hydra: its `defaults:` list names other configs " +
			"(`- base`, `- env/maniskill@env.train`) and config groups (`- model: pi0`, `- optional group: x`, " +
			"`- override group: y`), and `_self_` says where the file's own keys go. Hydra refuses a list that is " +
			"not a list, an entry with two keys, an unknown keyword, `_self_` twice, an `override` before " +
			"entries that are not overrides, and an option chosen by interpolation that rlsolve does not compose.",
		Example: `defaults:
  - optionl model: pi0
cluster:
  num_nodes: 1
  component_placement:
    actor: all
`,
	},
	{
		Code:  model.CodeDefaultsNotFound,
		Title: "config named in the defaults list not found",
		Text: "Hydra looks each config of a defaults list up in the config's own folder (RLinf's run scripts " +
			"pass it as --config-path), then in the folders of hydra.searchpath; a group's option is the file " +
			"GROUP/OPTION.yaml. When no folder holds it, Hydra stops before RLinf starts. Fix the name, add " +
			"the file, or write `optional` before the group when the config may be absent.",
		Example: `defaults:
  - env/maniskil@env.train
cluster:
  num_nodes: 1
  component_placement:
    actor,env,rollout: all
`,
	},
	{
		Code:  model.CodeDefaultsConflict,
		Title: "defaults list cannot be composed",
		Text: "Hydra refuses a defaults list that chooses one config group twice with different options (use " +
			"`override group: option` to change an earlier choice), an `override` entry with no earlier entry " +
			"for its group, a group chosen twice in the composed list, and lists that name each other forever.",
		Example: `defaults:
  - override model: pi0
cluster:
  num_nodes: 1
  component_placement:
    actor: all
`,
	},
	{
		Code:  model.CodeOverride,
		Title: "command-line override cannot be applied",
		Text: "Overrides after the config file are Hydra's: `key=value` changes a key the composed config has, " +
			"`+key=value` adds one it lacks, `++key=value` adds or changes, `~key` deletes, and `group=option` " +
			"chooses a config group's option. Hydra refuses to change a key that does not exist (add it with +), " +
			"to add one that does (drop the +, or use ++), to delete a key that is absent, and to choose a " +
			"group the defaults list does not have. The message points at the override on the command line.",
		Example: `# rlsolve check example.yaml cluster.num_node=2
cluster:
  num_nodes: 1
  component_placement:
    actor: all
`,
	},
	{
		Code:  model.CodeMandatoryMissing,
		Title: "mandatory value `???` never given",
		Text: "OmegaConf reads `???` as a value that must be given before it is used, on the command line " +
			"(`key=value`) or by a config composed later; a config group left at `???` must be chosen " +
			"(`group=option`). RLinf fails when it reads one. rlsolve reports it where placement reads the " +
			"key, and ignores `???` in keys placement does not read, as RLinf does until it reads them.",
		Example: `cluster:
  num_nodes: ???
  component_placement:
    actor: all
`,
	},
	{
		Code:  model.WarnPlaceholder,
		Title: "placeholder value left in the config",
		Text: "RLinf's example configs mark what each user must fill in with placeholders: " +
			"`python_interpreter_path: /path/to/python`, `model_path: /path/to/model/...`. RLinf reads them " +
			"as they are and fails when a worker starts (the interpreter does not exist) or loads the model, " +
			"minutes into a run. Replace the placeholder with the real path. (A placeholder robot IP such " +
			"as ROBOT_IP is an error, RLS-E0108: RLinf refuses it when it reads the cluster section.)",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: all
  node_groups:
    - label: gpu
      node_ranks: 0
      env_configs:
        - node_ranks: 0
          python_interpreter_path: /path/to/python
`,
	},
	{
		Code:  model.NoteSearchPath,
		Title: "hydra.searchpath names an unset variable",
		Text: "RLinf's configs extend Hydra's search path with folders such as " +
			"`file://${oc.env:EMBODIED_PATH}/config/`, and its run scripts export the variable. When it is not " +
			"set, rlsolve takes the nearest folder above the config that holds the rest of the path (for " +
			"EMBODIED_PATH/config, the folder holding config/) and says which it used. Set the variable to " +
			"choose the folder yourself.",
		Example: `# beside examples/embodiment/config, with EMBODIED_PATH unset
defaults:
  - env/maniskill_pick_cube@env.train
hydra:
  searchpath:
    - file://${oc.env:EMBODIED_PATH}/config/
cluster:
  num_nodes: 1
  component_placement:
    actor,env,rollout: all
`,
	},
}
