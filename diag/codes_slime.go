package diag

import "github.com/rlsolve/rlsolve/model"

// slime layouts (E07, W07, N07): `rlsolve check --slime FLAGS` or a YAML
// file with a `slime:` key. The examples are such files; slime has no
// RLinf `cluster:` section, which their first line says.
func init() {
	explanations = append(explanations, slimeExplanations...)
}

var slimeExplanations = []Explanation{
	{
		Code:  model.CodeSlimeFlag,
		Title: "malformed slime flags",
		Text: "The --slime string (or a `slime:` key) cannot be read as slime's placement flags: an unterminated " +
			"quote, a flag without its value, a value given to a switch (--colocate, --debug-train-only, " +
			"--debug-rollout-only take none), or a misspelt placement flag. slime's parser accepts no " +
			"abbreviations, and a misspelt flag would leave its default in force, so rlsolve refuses it; " +
			"flags that do not affect placement are ignored with a note.",
		Example: `# slime flags take the place of RLinf's cluster: section
slime: "--actor-num-node 2 --rollout-num-gpus 8"
`,
	},
	{
		Code:  model.CodeSlimeValue,
		Title: "slime flag value not a whole number",
		Text: "GPU counts, node counts, the engine size, the SGLang dp size and the prefill server count are whole " +
			"numbers of at least 1 (--rollout-num-gpus may be 0: routers without local engines), written in decimal " +
			"digits. A value left to the shell (`${NUM_GPUS}`, `$(nproc)`) is refused, naming the variable: rlsolve " +
			"never runs the script that sets it. Paste the command as bash ran it (the `+ ray job submit ...` line that `set -x` prints) " +
			"or write the number. rlsolve also refuses 1_0, which Python's int() would read as 10.",
		Example: `# slime flags take the place of RLinf's cluster: section
slime:
  actor_num_nodes: 0
  rollout_num_gpus: 8
`,
	},
	{
		Code:  model.CodeSlimeMissing,
		Title: "rollout GPU count missing",
		Text: "In disaggregated and rollout-only layouts slime needs --rollout-num-gpus: it has no default " +
			"unless actor and rollout are colocated, where it is the actor's GPU count.",
		Example: `# slime flags take the place of RLinf's cluster: section
slime:
  actor_num_nodes: 1
`,
	},
	{
		Code:  model.CodeSlimeModes,
		Title: "both debug modes",
		Text: "--debug-train-only places only the actor and --debug-rollout-only only the rollout. slime " +
			"checks --debug-train-only first, so with both the rollout is silently never placed.",
		Example: `# slime flags take the place of RLinf's cluster: section
slime:
  debug_train_only: true
  debug_rollout_only: true
  rollout_num_gpus: 8
`,
	},
	{
		Code:  model.CodeSlimeFit,
		Title: "slime layout larger than the inventory",
		Text: "slime reserves one placement-group bundle {GPU: 1, CPU: 1} per GPU of the layout: the actor's " +
			"actor_num_nodes x actor_num_gpus_per_node, plus rollout_num_gpus when disaggregated. Ray never " +
			"schedules a placement group larger than the cluster, so slime would wait forever. The conflict " +
			"names the flags that make the layout too large.",
		Example: `# slime flags take the place of RLinf's cluster: section
slime:
  actor_num_nodes: 2
  rollout_num_gpus: 8
inventory:
  nodes:
    - ranks: 0-1
      accelerators: {count: 8}
`,
	},
	{
		Code:  model.CodeSlimeEngineDivides,
		Title: "rollout GPUs not a multiple of the engine size",
		Text: "slime starts rollout_num_gpus // rollout_num_gpus_per_engine SGLang engines; the remaining GPUs " +
			"would get no engine (newer slime versions assert). Make the rollout's GPU count a multiple of " +
			"the engine size.",
		Example: `# slime flags take the place of RLinf's cluster: section
slime:
  rollout_num_gpus: 6
  rollout_num_gpus_per_engine: 4
`,
	},
	{
		Code:  model.CodeSlimeStraddle,
		Title: "engine straddles nodes",
		Text: "An SGLang engine's tensor-parallel group runs on one node, or on whole nodes: an engine larger " +
			"than a node spans gpus_per_engine / num_gpus_per_node nodes that share the first node's " +
			"dist_init_addr. An engine that takes part of one node and part of the next (because the rollout " +
			"starts mid-node, or the engine size does not divide the node) cannot be started. rlsolve finds " +
			"the engine's GPUs from the stable bundle order, not from rank arithmetic.",
		Example: `# slime flags take the place of RLinf's cluster: section
slime:
  actor_num_gpus_per_node: 4
  rollout_num_gpus: 8
  rollout_num_gpus_per_engine: 8
`,
	},
	{
		Code:  model.CodeSlimeNodeSize,
		Title: "engine split into nodes wrongly",
		Text: "slime starts an engine as max(1, gpus_per_engine // num_gpus_per_node) SGLang nodes of " +
			"min(gpus_per_engine, num_gpus_per_node) GPUs, from --num-gpus-per-node (8 by default). An engine " +
			"spanning nodes runs only when that split is its nodes: on 4-GPU GB200 nodes an 8-GPU engine with " +
			"the default 8 is started as one node it does not fit on. Engines within one node do not depend on " +
			"--num-gpus-per-node. Set it to the rollout nodes' GPU count.",
		Example: `# slime flags take the place of RLinf's cluster: section
slime:
  rollout_num_gpus: 8
  rollout_num_gpus_per_engine: 8
  debug_rollout_only: true
inventory:
  nodes:
    - ranks: 0-1
      accelerators: {model: GB200, count: 4}
`,
	},
	{
		Code:  model.CodeSlimeGroups,
		Title: "rollout server groups cannot be formed",
		Text: "The rollout's engines come from one place: external engines (--rollout-external-engine-addrs), a " +
			"--sglang-config file, or the flags, where --prefill-num-servers splits them into a prefill group of " +
			"prefill_num_servers x rollout_num_gpus_per_engine GPUs and a decode group of the rest. slime asserts " +
			"that only one source is given and that decode GPUs remain.",
		Example: `# slime flags take the place of RLinf's cluster: section
slime:
  rollout_num_gpus: 8
  rollout_num_gpus_per_engine: 4
  prefill_num_servers: 2
  debug_rollout_only: true
`,
	},
	{
		Code:  model.CodeSlimePortRange,
		Title: "rollout ports in the ephemeral range",
		Text: "slime allocates each node's ports from 15000 up: first an HTTP and an NCCL port (and a prefill " +
			"engine's bootstrap port) for every engine it serves there, counted from the flags " +
			"(num_gpus_per_node // gpus_per_engine per node), then a block of 30 + dp_size ports per engine for " +
			"dist_init_addr; a decode group starts where the prefill group ended. Ports in the ephemeral range " +
			"32768-65535 are handed to outgoing connections at any time, so a server port there can be taken " +
			"before the engine binds it. Use fewer engines per node or a smaller --sglang-dp-size.",
		Example: `# slime flags take the place of RLinf's cluster: section
slime:
  debug_rollout_only: true
  rollout_num_gpus: 8
  rollout_num_gpus_per_engine: 4
  sglang_dp_size: 9000
`,
	},
	{
		Code:  model.CodeSlimePortOverlap,
		Title: "overlapping port blocks",
		Text: "Ports are planned per node from a cursor at 15000. Two inventory nodes with the same address are " +
			"one machine, so the engines placed on both plan the same ports. Give each inventory node its own " +
			"address.",
		Example: `# slime flags take the place of RLinf's cluster: section
slime:
  debug_rollout_only: true
  rollout_num_gpus: 16
  rollout_num_gpus_per_engine: 8
inventory:
  nodes:
    - {rank: 0, ip: 10.0.0.1, accelerators: 8}
    - {rank: 1, ip: 10.0.0.1, accelerators: 8}
`,
	},
	{
		Code:  model.WarnSlimeRankNode,
		Title: "slime's rank arithmetic picks another node",
		Text: "slime groups each server group's workers by rank (rank // engines_per_node, from " +
			"--num-gpus-per-node) and probes every member's host, ports and dist_init_addr on the node of the " +
			"group's first worker. When engines do not start on a node's first GPU (the actor's GPU count is not " +
			"a multiple of the node size, a decode group starts mid-node, or --num-gpus-per-node is not the " +
			"nodes' GPU count), a worker's group leader can be on another node. rlsolve's plan derives every " +
			"engine's node from the stable bundle order and plans its ports there.",
		Example: `# slime flags take the place of RLinf's cluster: section
slime:
  actor_num_gpus_per_node: 2
  rollout_num_gpus: 6
  rollout_num_gpus_per_engine: 2
  num_gpus_per_node: 4
inventory:
  nodes:
    - ranks: 0-1
      accelerators: {count: 4}
`,
	},
	{
		Code:  model.WarnSlimeActorSpread,
		Title: "actor ranks not on actor_num_nodes nodes",
		Text: "slime's placement group packs {GPU: 1} bundles in stable order: actor_num_nodes x " +
			"actor_num_gpus_per_node sets how many GPUs the actor gets, not how they spread. On nodes with " +
			"another GPU count the actor's ranks land on more or fewer nodes than asked.",
		Example: `# slime flags take the place of RLinf's cluster: section
slime:
  actor_num_nodes: 2
  actor_num_gpus_per_node: 4
  debug_train_only: true
`,
	},
	{
		Code:  model.WarnSlimeRepeated,
		Title: "slime flag given twice",
		Text:  "slime's argparse keeps the last value of a repeated flag; the earlier one has no effect.",
		Example: `# slime flags take the place of RLinf's cluster: section
slime: "--rollout-num-gpus 8 --rollout-num-gpus 4"
`,
	},
	{
		Code:  model.WarnSlimeUnexpanded,
		Title: "slime's command expands a variable the script never sets",
		Text: "rlsolve evaluates the launch script in a sandbox, without the environment it would run in. A word " +
			"of slime's command such as `${SGLANG_ARGS[@]}` or `$EXTRA_ARGS` whose variable the script never sets " +
			"expands to nothing here; in the real run it may hold placement flags (--rollout-num-gpus-per-engine " +
			"often sits in an array), and slime's layout would differ from the plan. Give its value with " +
			"`--env NAME=VALUE`, or set it in the script.",
		Example: `# slime flags take the place of RLinf's cluster: section
slime: "python3 train.py --colocate $SGLANG_ARGS"
`,
	},
	{
		Code:  model.WarnSlimeSplitCommand,
		Title: "pasted command split by a missing line continuation",
		Text: "A newline ends a shell command unless the line ends with `\\`. When the line after the launch " +
			"command starts with a flag or with `${ARRAY[@]}`, a `\\` is most likely missing: the shell runs " +
			"that line as a command of its own, and slime never receives those arguments. rlsolve plans what " +
			"slime receives; add the `\\` if the arguments are meant for slime.",
		Example: `# slime flags take the place of RLinf's cluster: section
slime: "python3 train.py --colocate\n  --actor-num-nodes 2"
`,
	},
	{
		Code:  model.NoteSlimeIgnored,
		Title: "arguments that do not affect placement",
		Text: "rlsolve reads slime's placement flags only. In a pasted launch command it reads the arguments after " +
			"the Python program (`ray job submit ... -- python3 train.py ARGS`, `python -m MODULE ARGS`, " +
			"`torchrun ... train_async.py ARGS`); the wrapper's own flags and slime's other arguments " +
			"(--hf-checkpoint, ...) are ignored, with their values.",
		Example: `# slime flags take the place of RLinf's cluster: section
slime: "python train.py --hf-checkpoint /models/x --rollout-num-gpus 8"
`,
	},
	{
		Code:  model.CodeSlimeScript,
		Title: "launch script not evaluated",
		Text: "A --slime text (a flag string, a pasted command or a whole launch script) is evaluated in a sandbox: " +
			"no command runs (each is a stub with no output, except nproc, nvidia-smi -L, hostname, date and mktemp, " +
			"which answer from the inventory or fixed values), files are written in memory, and only the script's " +
			"folder and the slime checkout it lies in are read. It is refused when it cannot be parsed, when it " +
			"exceeds a bound (steps, call depth, output, size, nesting, time), when it reads another file, or when " +
			"it never runs slime's program (it exits first: give the variables it needs with --env NAME=VALUE).",
		Example: `# slime flags take the place of RLinf's cluster: section
slime: "--rollout-num-gpus '8"
`,
	},
	{
		Code:  model.CodeSlimeSGLangFile,
		Title: "--sglang-config not readable",
		Text: "The engine groups of --sglang-config are read from the file the script wrote (in the sandbox's " +
			"memory) or from disk beside the script. The file must exist, be slime's YAML format (a top-level " +
			"`sglang:` list of models with server_groups), and its groups' GPUs must add up to --rollout-num-gpus, " +
			"as slime asserts.",
		Example: `# slime flags take the place of RLinf's cluster: section
slime: |
  F=$(mktemp)
  cat > $F <<EOF
  sglang:
    - name: actor
      server_groups:
        - {worker_type: regular, num_gpus: 4, num_gpus_per_engine: 2}
  EOF
  python3 train.py --colocate --rollout-num-gpus 8 --sglang-config $F
`,
	},
	{
		Code:  model.NoteSlimeSGLangRead,
		Title: "engine groups read from --sglang-config",
		Text: "When every server group of --sglang-config has engines of one size (prefill groups first), the " +
			"engines are planned as --rollout-num-gpus-per-engine of that size and --prefill-num-servers of the " +
			"prefill engines, with their ports.",
		Example: `# slime flags take the place of RLinf's cluster: section
slime: |
  F=$(mktemp)
  cat > $F <<EOF
  sglang:
    - name: actor
      server_groups:
        - {worker_type: regular, num_gpus: 8, num_gpus_per_engine: 2}
  EOF
  python3 train.py --colocate --rollout-num-gpus 8 --sglang-config $F
`,
	},
	{
		Code:  model.NoteSlimeSGLangConfig,
		Title: "engines defined by --sglang-config",
		Text: "With --sglang-config the rollout's server groups (their GPUs, engine sizes and dp sizes) come from " +
			"a YAML file rlsolve does not read. The placement group's bundles and the actor are planned; the " +
			"rollout's GPUs are reserved without engines or ports.",
		Example: `# slime flags take the place of RLinf's cluster: section
slime: "--colocate --sglang-config /tmp/sglang.yaml"
`,
	},
}
