package diag

import (
	"sort"
	"strings"
	"sync"

	"github.com/rlsolve/rlsolve/model"
)

// Explanation is the long form of a diagnostic code, shown by
// `rlsolve explain CODE`.
type Explanation struct {
	Code    string
	Title   string // a few words, also SARIF's rule shortDescription
	Text    string // what the rule is and why it exists
	Example string // a minimal config that triggers it
}

var (
	indexOnce sync.Once
	index     map[string]Explanation
)

// Explain returns the explanation of code. Codes match case-insensitively,
// with or without the RLS- prefix: "rls-e0201", "E0201".
func Explain(code string) (Explanation, bool) {
	indexOnce.Do(func() {
		index = make(map[string]Explanation, len(explanations))
		for _, e := range explanations {
			index[e.Code] = e
		}
	})
	c := strings.ToUpper(strings.TrimSpace(code))
	if !strings.HasPrefix(c, "RLS-") {
		c = "RLS-" + c
	}
	e, ok := index[c]
	return e, ok
}

// Codes returns every explanation, sorted by code.
func Codes() []Explanation {
	out := append([]Explanation(nil), explanations...)
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
}

// explanations holds one entry per code in model/codes*.go; a feature's
// codes are explained in its own diag/codes_<topic>.go, appended by init. Text says what
// RLinf does where the rule comes from RLinf (semantics §1-5) and names the
// decision (D1-D13, semantics §10) where rlsolve deliberately differs.
var explanations = []Explanation{
	// E01: input and YAML.
	{
		Code:  model.CodeYAMLSyntax,
		Title: "invalid YAML",
		Text: "The file is not valid YAML, so nothing in it can be checked. RLinf loads configs " +
			"through Hydra/OmegaConf (PyYAML), which rejects it too. Common causes are an unclosed " +
			"quote, a tab in the indentation, or a key indented inconsistently. PyYAML also refuses " +
			"what other YAML readers accept: a tab anywhere outside quotes, comments and block text " +
			"(`key:<tab>value`), and a tag it has no constructor for (`!foo`, `!!set`, `!!timestamp`). " +
			"rlsolve refuses as well a key holding an invisible character such as U+FEFF, which PyYAML " +
			"keeps in the key (a new component that looks like another), and a file that is only an " +
			"empty document (`---`, `~`, `null`), which configures nothing.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: "0-7
`,
	},
	{
		Code:  model.CodeDuplicateKey,
		Title: "duplicate mapping key",
		Text: "A key appears twice in one mapping. OmegaConf's loader rejects duplicate keys instead " +
			"of keeping the last one, so RLinf would not start. Remove one of them or merge them.",
		Example: `cluster:
  num_nodes: 1
  num_nodes: 2
  component_placement:
    actor: all
`,
	},
	{
		Code:  model.CodeWrongType,
		Title: "value of the wrong type",
		Text: "A value has a YAML type that its key does not take, such as a mapping where a list is " +
			"expected. RLinf checks shapes as it builds the cluster config: node_groups, env_configs and " +
			"env_vars are lists of mappings, hardware is a mapping, and a hardware config's node_rank is " +
			"an integer. A missing '-' before an env_configs entry is the usual cause.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: all
  node_groups:
    - label: gpu
      node_ranks: 0
      env_configs:
        node_ranks: 0
`,
	},
	{
		Code:  model.CodeMissingField,
		Title: "required key missing",
		Text: "RLinf's field check rejects a section without its required keys: num_nodes and " +
			"component_placement under cluster, label and node_ranks in a node group, node_ranks in an " +
			"env_config, type and configs under hardware, node_rank in a hardware config, and placement " +
			"in a component's mapping form.",
		Example: `cluster:
  num_nodes: 1
`,
	},
	{
		Code:  model.CodeUnknownField,
		Title: "unknown key where RLinf rejects it",
		Text: "In node_groups entries, env_configs, hardware and hardware configs RLinf rejects keys it " +
			"does not know (\"Unknown fields ... detected\"), so the job would fail at start. Unknown keys " +
			"directly under cluster: are different: RLinf ignores them and rlsolve only warns (RLS-W0101).",
		Example: `cluster:
  num_nodes: 2
  component_placement:
    actor: all
  node_groups:
    - label: gpu
      nodes: 0-1
      node_ranks: 0-1
`,
	},
	{
		Code:  model.CodeYAML11,
		Title: "unquoted scalar that YAML 1.1 reads as a number",
		Text: "RLinf reads YAML with PyYAML, which follows YAML 1.1: an unquoted 1:0 is the sexagesimal " +
			"integer 60, 010 is octal 8, 1_0 is 10, 0x10 is 16, and yes/no/on/off are booleans. RLinf " +
			"silently uses the number, so `actor: 1:0` means resource rank 60, not resource 1 with process 0. " +
			"rlsolve rejects such values (decision D3). The fix keeps what was meant and passes check: a string " +
			"such as a placement or a label is quoted (\"1:0\"), or written as the number RLinf reads where its own " +
			"int() would not take the quoted text (1_0 becomes \"10\"); a number or a switch is written as the value " +
			"RLinf reads (num_nodes: 0x2 becomes 2, ignore_hardware: on becomes true). Values given as command-line " +
			"overrides are typed by Hydra's grammar instead, where 0x2 and 1:0 are strings.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: 1:0
`,
	},
	{
		Code:  model.CodeLimit,
		Title: "input limit exceeded",
		Text: "rlsolve bounds the size of what it reads (file size, nesting depth, a file's YAML tokens " +
			"and values, the configs a Hydra defaults tree composes, how many ranks a range " +
			"expands to, and the like) so that a mistaken or hostile config cannot make a check run for " +
			"minutes or exhaust memory. RLinf has no such limits, but a config this large is almost " +
			"certainly a typo, such as extra digits in a rank range.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: "0:0-999999999999"
`,
	},
	{
		Code:  model.CodeProcessLimit,
		Title: "too many processes",
		Text: "rlsolve refuses to expand a config that places more than 1,048,576 processes in one component " +
			"or 2,097,152 in all, before expanding anything, so that a typo in a process range cannot exhaust " +
			"memory. RLinf would try to start them all.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    agent:
      node_group: node
      placement: "0:0-2000000"
`,
	},
	{
		Code:  model.CodeSolverBudget,
		Title: "solver budget exceeded",
		Text: "The SAT solver stopped at its time budget (10 s by default, --solver-budget) before it had " +
			"judged the whole config. The diagnostics before this one are right, but the list may be " +
			"incomplete and the config was not expanded. Raise the budget, or check a smaller part of the config.",
		Example: `# rlsolve check --solver-budget 1ns train.yaml
cluster:
  num_nodes: 1
  component_placement:
    actor: "0-8"
`,
	},
	{
		Code:  model.CodeInternal,
		Title: "internal error",
		Text: "rlsolve found itself in a state its own invariants rule out: a bug in rlsolve, not in the " +
			"config. The command exits with status 3. Please report it with the config that triggered it.",
		Example: `# No config triggers it by design; this one is valid.
cluster:
  num_nodes: 1
  component_placement:
    actor: all
`,
	},
	{
		Code:  model.CodePolicy,
		Title: "malformed rlsolve setting",
		Text: "A comment that starts with `rlsolve:` (anywhere in the config file named on the command line), " +
			"or a key of the .rlsolve.yaml nearest the config, does not say what rlsolve can apply: an unknown " +
			"setting or key, an unknown diagnostic code, a code both allowed and denied, or an error code " +
			"allowed. The settings are `# rlsolve: allow CODE...`, `# rlsolve: deny CODE...` and " +
			"`# rlsolve: strict` (text after ` -- ` is a reason rlsolve does not read), and in .rlsolve.yaml " +
			"`allow:` and `deny:` (a code or a list), `strict: true|false` and `inventory: FILE`. Codes are written as " +
			"`rlsolve explain` takes them (RLS-W0105, w0105). Only warnings and notes can be allowed: an " +
			"error means RLinf refuses the config or its run would fail. A mistyped setting would otherwise " +
			"silently not apply, so it fails the check.\n\n" +
			"Where settings disagree, the first source that names a code decides: the command line " +
			"(--allow, --deny), then .rlsolve.yaml, then the config's comments. --strict (or `strict`) " +
			"denies every warning no source names, so a config can still allow one warning by name.",
		Example: `# rlsolve: alow RLS-W0104 -- typo: "alow"
cluster:
  num_nodes: 1
  component_placement:
    actor: "0-7:1-8"
`,
	},
	{
		Code:  model.CodeInvalidValue,
		Title: "value RLinf does not accept",
		Text: "A value has the right type but lies outside what RLinf accepts. For example num_nodes must " +
			"be a positive integer (RLinf checks `type(x) is int and x > 0`, so 0, -1, true and \"2\" fail), " +
			"a Franka robot_ip must be a valid IP address, a GimArm arm_variant is gim_arm or gim_arm_xl, " +
			"and a profiling backend is nsight or rocprof_sys.",
		Example: `cluster:
  num_nodes: 0
  component_placement:
    actor: all
`,
	},
	{
		Code:  model.CodeUnresolvedInterp,
		Title: "unresolvable ${...} interpolation",
		Text: "OmegaConf resolves ${...} references when RLinf reads the config, e.g. ${runner.nodes}, " +
			"${oc.env:VAR} or ${subtract:${a}, ${b}}. rlsolve resolves references to keys of the composed " +
			"config and evaluates RLinf's resolvers (multiply, int_div, subtract, not) and OmegaConf's oc.env, " +
			"oc.select and oc.decode; when a reference points at a key the config lacks, a relative key, an " +
			"unset environment variable or another resolver, the value is unknown where placement needs it. " +
			"Write the value itself, or point the reference at a key in the config.",
		Example: `cluster:
  num_nodes: ${runner.nodes}
  component_placement:
    actor: all
`,
	},
	{
		Code:  model.CodeFileRead,
		Title: "file cannot be read",
		Text: "A config or inventory file named on the command line does not exist or cannot be read, so " +
			"there is nothing to check. Check the path and its permissions.",
		Example: `# rlsolve check train.yaml --inventory missing-inventory.yaml
cluster:
  num_nodes: 1
  component_placement:
    actor: all
`,
	},

	// E02: rank specs and placement strings.
	{
		Code:  model.CodeRankSyntax,
		Title: "malformed rank spec or placement part",
		Text: "A rank spec is `all` or comma-separated items `a` or `a-b`, and a placement part is " +
			"`resources[:processes]` with at most one colon; a comma always starts a new part. RLinf raises " +
			"\"Invalid rank format\" or \"Invalid rank map string\" for anything else, such as a-b, -1, 0--1 " +
			"or 0:1:2. rlsolve's grammar takes decimal digits only, where Python's int() would also take +3 or 1_0.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: "0:1:2"
`,
	},
	{
		Code:  model.CodeRankReversed,
		Title: "range end below its start",
		Text: "In a range a-b RLinf requires b >= a (\"Start rank must be less than or equal to end rank\"). " +
			"Write the smaller rank first.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: "3-0"
`,
	},
	{
		Code:  model.CodeRankOutOfRange,
		Title: "rank outside the available ranks",
		Text: "Placement resource ranks are checked against the hardware of the selected node groups (every " +
			"GPU of the cluster when no node_group is given). RLinf compares each range's ends with the " +
			"smallest and largest available rank; a rank outside them names a device that does not exist. " +
			"(Node ranks of groups and env_configs are RLS-E0212.)",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: "0-8"
`,
	},
	{
		Code:  model.CodeNodeRanksRange,
		Title: "node_ranks outside the available nodes",
		Text: "A node group's node_ranks must lie in range(num_nodes), and an env_config's node_ranks among " +
			"its group's nodes. RLinf's ClusterConfig checks this when it reads the config: a rank outside " +
			"names a node that the cluster (or the group) does not have.",
		Example: `cluster:
  num_nodes: 2
  node_groups:
    - label: a800
      node_ranks: 0-3
  component_placement:
    actor: all
`,
	},
	{
		Code:  model.CodeDuplicateResource,
		Title: "two placement parts name the same resource",
		Text: "Each part of a placement string must use resources that no earlier part used (\"Duplicate " +
			"resource ranks found\"). To run several processes on one device, give one part more processes " +
			"than resources, as in 0-1:0-3.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: "0-1,1-2"
`,
	},
	{
		Code:  model.CodeResourceOrder,
		Title: "resource ranks not ascending",
		Text: "RLinf requires each part of a placement string to start after the last resource of the part " +
			"before it (\"Resource ranks must be in ascending order\"). Reorder the parts.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: "2-3,0-1"
`,
	},
	{
		Code:  model.CodeProcessOrder,
		Title: "process ranks not ascending and continuous",
		Text: "Explicit process ranks must start right after the previous part's last process rank, so that " +
			"the worker ranks form one run without gaps or reordering (\"Process ranks must be in ascending " +
			"order and continuous\").",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: "0:0,1:2"
`,
	},
	{
		Code:  model.CodeDuplicateProcess,
		Title: "two parts name the same process rank",
		Text: "A process rank may appear in only one part of a placement string, since a process runs on " +
			"the resources of exactly one part (\"Duplicate process ranks found\").",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: "0:0-1,1:1-2"
`,
	},
	{
		Code:  model.CodeNotDivisible,
		Title: "processes and resources do not divide",
		Text: "In a part R:P RLinf splits the resources evenly among the processes, or the processes evenly " +
			"among the resources, so one count must divide the other. 0-2:0-1 (3 GPUs, 2 processes) has no " +
			"even split.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: "0-2:0-1"
`,
	},
	{
		Code:  model.CodeEmptyRanks,
		Title: "part with no resources or no processes",
		Text: "Every placement part needs at least one resource and one process. \":0-3\", \"0-3:\", and " +
			"`all` on a group without hardware give RLinf's \"No valid resource ranks found\" or \"No valid " +
			"process ranks found\".",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: ":0-3"
`,
	},
	{
		Code:  model.CodeProcessAll,
		Title: "`all` used as process ranks",
		Text: "`all` means every available resource; there is no set of available processes for it to mean. " +
			"RLinf rejects 0-3:all (\"the process ranks cannot be 'all'\"). Write the process range, e.g. 0-3:0-7.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: "0-3:all"
`,
	},
	{
		Code:  model.CodeDuplicateComponent,
		Title: "component placed twice",
		Text: "A component_placement key may name several components separated by commas, which then share " +
			"one placement, but each component may appear under only one key (\"Component has multiple " +
			"placements defined\").",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout: all
    actor: "0-3"
`,
	},
	{
		Code:  model.CodeNeededMisspelled,
		Title: "a component the run needs is misspelled",
		Text: "Each entry point asks for the components its run starts by name: embodied training for actor, " +
			"rollout and env, embodied evaluation for rollout and env, SFT for the actor. RLinf accepts a " +
			"component_placement without one of them and fails when the run asks for it (\"Component ... not " +
			"found\"). When such a name is missing and the config places an unknown name close to it, the " +
			"name is a typo: the fix renames it. (The model-parallel classes say the same in RLS-E0501.)",
		Example: `runner:
  task_type: embodied
cluster:
  num_nodes: 1
  component_placement:
    actor: 0-3
    rolout: 4-7
    env: 4-7
`,
	},

	// E03: node groups, env_configs and hardware.
	{
		Code:  model.CodeUnknownGroup,
		Title: "node group label not defined",
		Text: "A component's node_group names a label no node group defines. Besides the configured groups " +
			"RLinf knows only `cluster` (all nodes with their accelerators) and `node` (all nodes as CPU-only " +
			"resources). Labels are case-sensitive. RLinf fails with \"Node group not found\".",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor:
      node_group: A800
      placement: all
  node_groups:
    - label: a800
      node_ranks: 0
`,
	},
	{
		Code:  model.CodeDuplicateLabel,
		Title: "two node groups share a label",
		Text: "Labels identify node groups, so they must be unique. RLinf's config check does not notice " +
			"a duplicate; the job fails only when the cluster starts (\"Node group labels must be unique\"). " +
			"rlsolve reports it at check time (decision D6).",
		Example: `cluster:
  num_nodes: 2
  component_placement:
    actor: all
  node_groups:
    - label: gpu
      node_ranks: 0
    - label: gpu
      node_ranks: 1
`,
	},
	{
		Code:  model.CodeReservedLabel,
		Title: "reserved node group label",
		Text: "RLinf always builds two groups of its own, `cluster` (all nodes with their accelerators) and " +
			"`node` (all nodes, hardware ignored), so a configured group may not take either label (\"Node " +
			"group label is reserved by the scheduler\"). Only the exact lowercase names are reserved.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: all
  node_groups:
    - label: node
      node_ranks: 0
`,
	},
	{
		Code:  model.CodeEnvRanksNotSubset,
		Title: "env_config node_ranks outside its group",
		Text: "An env_config's node_ranks are cluster node ranks that must all belong to the group it sits " +
			"in: RLinf parses them against the group's nodes and requires a subset (\"node_ranks in env_config " +
			"must be a subset of node_ranks in node group\"). RLinf's range check uses only the group's lowest and " +
			"highest node, so a rank outside that span is RLS-E0203 and one inside it but not in the group is this " +
			"error.",
		Example: `cluster:
  num_nodes: 4
  component_placement:
    actor: all
  node_groups:
    - label: a800
      node_ranks: "0,2"
      env_configs:
        - node_ranks: 0-1
          env_vars:
            - NCCL_SOCKET_IFNAME: ib0
`,
	},
	{
		Code:  model.CodeEnvNodeDuplicated,
		Title: "node in two env_configs of a group",
		Text: "Within one node group each node may be covered by at most one env_config (\"Node rank in " +
			"env_config is duplicated\"), so that a node's variables and interpreter come from one place.",
		Example: `cluster:
  num_nodes: 2
  component_placement:
    actor: all
  node_groups:
    - label: a800
      node_ranks: 0-1
      env_configs:
        - node_ranks: 0-1
          env_vars:
            - OMP_NUM_THREADS: "8"
        - node_ranks: 1
          python_interpreter_path: /opt/venv/bin/python
`,
	},
	{
		Code:  model.CodeEnvVarDuplicated,
		Title: "env var set twice in one group",
		Text: "RLinf allows each environment variable only once across all env_configs of a node group, even " +
			"when they cover different nodes (\"Environment variable in env_config is duplicated in node " +
			"group\"). Its docs say the rule is per node; the code applies it per group, and rlsolve follows " +
			"the code (decision D11). To give nodes different values, put them in different node groups.",
		Example: `cluster:
  num_nodes: 2
  component_placement:
    actor: all
  node_groups:
    - label: a800
      node_ranks: 0-1
      env_configs:
        - node_ranks: 0
          env_vars:
            - NCCL_SOCKET_IFNAME: eth0
        - node_ranks: 1
          env_vars:
            - NCCL_SOCKET_IFNAME: ib0
`,
	},
	{
		Code:  model.CodeHardwareNodeOutside,
		Title: "hardware config node_rank outside its group",
		Text: "Each hardware config names the node its robot is attached to, and that node must be one of " +
			"its group's node_ranks (\"node_rank in hardware config must be within node_ranks\").",
		Example: `cluster:
  num_nodes: 2
  component_placement:
    actor: 0
  node_groups:
    - label: franka
      node_ranks: 1
      hardware:
        type: Franka
        configs:
          - node_rank: 0
            robot_ip: 10.0.0.2
`,
	},
	{
		Code:  model.CodeHardwareConflict,
		Title: "same robot type on one node in two groups",
		Text: "A (node, hardware type) pair may belong to only one node group: RLinf rejects two groups that " +
			"both configure, say, Franka robots on node 1 (\"Cannot have multiple hardware configs of the same " +
			"type for the same node_rank in different node groups\"). Several robots of one type on one node in " +
			"the same group are fine.",
		Example: `cluster:
  num_nodes: 2
  component_placement:
    actor: 0
  node_groups:
    - label: arm_a
      node_ranks: 1
      hardware:
        type: Franka
        configs:
          - node_rank: 1
            robot_ip: 10.0.0.2
    - label: arm_b
      node_ranks: 1
      hardware:
        type: Franka
        configs:
          - node_rank: 1
            robot_ip: 10.0.0.3
`,
	},
	{
		Code:  model.CodeHardwareDuplicate,
		Title: "identical hardware configs",
		Text: "RLinf compares a group's hardware configs with their keys sorted and rejects any two that are " +
			"identical (\"Duplicate hardware configs found\"): they would describe the same robot twice.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: 0
  node_groups:
    - label: franka
      node_ranks: 0
      hardware:
        type: Franka
        configs:
          - node_rank: 0
            robot_ip: 10.0.0.2
          - node_rank: 0
            robot_ip: 10.0.0.2
`,
	},
	{
		Code:  model.CodeHardwareExclusive,
		Title: "hardware combined with hardware_type or ignore_hardware",
		Text: "A node group's hardware section sets its hardware type, so RLinf rejects an explicit " +
			"hardware_type beside it (\"hardware_type should not be specified.\"), and ignore_hardware: true, " +
			"which makes the group CPU-only, contradicts it (\"Cannot specify hardware when ignore_hardware " +
			"is set to True.\").",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: 0
  node_groups:
    - label: franka
      node_ranks: 0
      ignore_hardware: true
      hardware:
        type: Franka
        configs:
          - node_rank: 0
`,
	},
	{
		Code:  model.CodeUnsupportedHardware,
		Title: "unknown hardware type",
		Text: "hardware.type must be one of the robot types RLinf registers: DOSW1, DualFranka, Franka, " +
			"GimArm and Turtle2. The lookup is case-sensitive, although a code comment says otherwise, so " +
			"`franka` fails with \"Unsupported hardware type\".",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: 0
  node_groups:
    - label: arm
      node_ranks: 0
      hardware:
        type: franka
        configs: []
`,
	},

	// E04: feasibility of a placement on the inventory.
	{
		Code:  model.CodeSpansNodes,
		Title: "process hardware spans nodes",
		Text: "A process runs on one node, so all of its hardware must be on one node. RLinf checks this for " +
			"Flexible placements only at launch (\"must be on the same node\"), and its Packed strategy has an " +
			"off-by-one that accepts a process whose last device is on the next node, handing it a GPU index " +
			"its node does not have. rlsolve rejects both at check time and shows which devices are on which " +
			"node (decisions D5 for the launch-time check, D1 for Packed's off-by-one).",
		Example: `cluster:
  num_nodes: 2
  component_placement:
    actor: "6-9:0"
`,
	},
	{
		Code:  model.CodeMixedHardware,
		Title: "process mixes hardware types",
		Text: "All hardware of one process must be of one type, all GPUs or all robots of one kind. With " +
			"several groups in node_group, ranks run across the groups' hardware in label order, so a range " +
			"can straddle GPUs and robots. RLinf fails only at launch (\"must use the same hardware type\"); " +
			"rlsolve at check time (decision D5).",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    env:
      node_group: gpu,franka
      placement: "7-8:0"
  node_groups:
    - label: gpu
      node_ranks: 0
    - label: franka
      node_ranks: 0
      hardware:
        type: Franka
        configs:
          - node_rank: 0
`,
	},
	{
		Code:  model.CodeNodeOrder,
		Title: "placements not sorted by node",
		Text: "Worker ranks must follow node order: RLinf's Flexible and Node strategies assert \"Placements " +
			"must be sorted by node_id.\" at launch. It happens when node_group lists groups whose nodes come " +
			"in descending order, e.g. b,a where b holds node 1 and a node 0. List the groups in node order; " +
			"rlsolve reports it at check time (decision D5).",
		Example: `cluster:
  num_nodes: 2
  component_placement:
    actor:
      node_group: b,a
      placement: "0-15"
  node_groups:
    - label: a
      node_ranks: 0
    - label: b
      node_ranks: 1
`,
	},
	{
		Code:  model.CodeGroupsOverlap,
		Title: "node placement over overlapping groups",
		Text: "When a component is placed on whole nodes (groups without a hardware type) through several " +
			"groups, the groups' nodes must be disjoint (\"Node groups have overlapping nodes\"). RLinf checks " +
			"this only at launch; rlsolve at check time (decision D5).",
		Example: `cluster:
  num_nodes: 2
  component_placement:
    env:
      node_group: cpu_a,cpu_b
      placement: "0-2"
  node_groups:
    - label: cpu_a
      node_ranks: 0-1
      ignore_hardware: true
    - label: cpu_b
      node_ranks: 1
      ignore_hardware: true
`,
	},
	{
		Code:  model.CodeNeedsHardware,
		Title: "strategy needs hardware the group lacks",
		Text: "A placement that hands out devices (Packed or Flexible) needs groups with a hardware type. " +
			"RLinf's Packed strategy rejects a group without one (\"Packed placement requires hardware " +
			"resources\") and its Flexible strategy crashes on one with an AttributeError. rlsolve reports a " +
			"clear error (decision D7). In model-parallel mode actor, rollout and reward are always Packed over " +
			"the default group, so they need GPUs.",
		Example: `# a model-parallel (reasoning) config on CPU-only nodes
cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,reward: 0
inventory:
  nodes:
    - ranks: 0
      accelerators: {count: 0}
`,
	},
	{
		Code:  model.CodeNoHardware,
		Title: "no hardware in the selected groups",
		Text: "The groups a component is placed on have no devices of their type at all: a GPU group on " +
			"nodes without GPUs, or a robot group with no robots configured or detected. RLinf fails with " +
			"\"No available hardware resources found in the selected node groups\" or an IndexError.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    env:
      node_group: franka
      placement: 0
  node_groups:
    - label: franka
      node_ranks: 0
      hardware:
        type: Franka
        configs: []
`,
	},
	{
		Code:  model.CodeProcessHardwareDup,
		Title: "process given one device twice",
		Text: "The hardware of one process must be distinct (\"All hardware ranks for a process must be " +
			"unique\"). A placement part cannot repeat a rank, but two groups that share a node number its " +
			"devices twice (g1,g2 on one 8-GPU node gives ranks 0-15 for GPUs 0-7 and 0-7 again), so one " +
			"process can end up with the same device twice. RLinf checks only that the rank numbers differ and " +
			"hands the worker the same GPU twice; rlsolve refuses it.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor:
      node_group: g1,g2
      placement: "0-15:0"
  node_groups:
    - label: g1
      node_ranks: 0
    - label: g2
      node_ranks: 0
`,
	},
	{
		Code:  model.CodePackedDivisible,
		Title: "packed range not divisible by devices per process times stride",
		Text: "A Packed strategy cuts its hardware range into processes of num_hardware_per_process devices " +
			"interleaved by stride, so the range's size must be a multiple of their product (\"The number of " +
			"hardware must be divisible by num_hardware_per_process * stride\"). In model-parallel collocated " +
			"mode the rollout is Packed with the rollout TP and stride actor TP / rollout TP, so actor TP 4 " +
			"with rollout TP 2 on 6 GPUs fails.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,reward: 0-5
actor:
  model:
    tensor_model_parallel_size: 4
rollout:
  tensor_parallel_size: 2
`,
	},
	{
		Code:  model.CodeMixedTypedUntyped,
		Title: "typed and untyped groups mixed",
		Text: "node_group lists a group with a hardware type (GPUs or robots) together with one without " +
			"(`node`, a CPU-only or ignore_hardware group). RLinf then makes a Node placement but numbers the " +
			"resources as the typed groups' devices plus the untyped groups' nodes, which fails at launch with " +
			"an overlap error or an IndexError. rlsolve rejects the mix at check time (decision D5); place the " +
			"two parts as separate components.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    env:
      node_group: a800,node
      placement: 0
  node_groups:
    - label: a800
      node_ranks: 0
`,
	},
	{
		Code:  model.CodeOneProcessOneNode,
		Title: "node placement process on several nodes",
		Text: "In a Node placement (groups without a hardware type) the resources are whole nodes, and a " +
			"process cannot run across nodes, so each process gets exactly one. 0-1:0 gives one process two " +
			"nodes, which RLinf rejects (\"one process cannot run across multiple nodes\").",
		Example: `cluster:
  num_nodes: 2
  component_placement:
    env:
      node_group: node
      placement: "0-1:0"
`,
	},
	{
		Code:  model.CodeEmptyGroup,
		Title: "component on a group without nodes",
		Text: "A node group with no nodes (node_ranks: \"\") is dropped by RLinf when the cluster starts, so a " +
			"component that names it fails later with \"Node group not found\". rlsolve reports the component " +
			"at check time.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor:
      node_group: spare
      placement: 0
  node_groups:
    - label: spare
      node_ranks: ""
`,
	},

	// E05: model-parallel rules.
	{
		Code:  model.CodeMPMissing,
		Title: "actor, rollout or reward missing",
		Text: "RLinf's reasoning and agent entry points use ModelParallelComponentPlacement, which requires " +
			"placements for actor, rollout and reward (\"Reward GPUs must be specified in the " +
			"component_placement config.\"). Reward is mandatory even where it shares the rollout's GPUs. " +
			"RLinf picks the class in each entry point; rlsolve infers it from the config (runner.task_type, " +
			"else TP sizes: note RLS-N0003), and the message says which class and why. When the config is not " +
			"for a reasoning or agent run (embodied training, SFT, evaluation of other kinds), check it with " +
			"--mode hybrid, HybridComponentPlacement, which has no required components.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout: all
runner:
  task_type: reasoning
`,
	},
	{
		Code:  model.CodeMPNotContiguous,
		Title: "model-parallel GPUs not contiguous",
		Text: "In model-parallel mode RLinf requires the GPUs of actor, rollout, inference, critic_inference " +
			"and critic each to form one contiguous run (\"Actor GPUs must be continuous.\"), because they are " +
			"re-placed with Packed(first, last). Reward is not checked.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,reward: "0-1,4-5"
`,
	},
	{
		Code:  model.CodeMPMode,
		Title: "neither collocated nor disaggregated",
		Text: "RLinf's model-parallel placement accepts two layouts: collocated, where actor and rollout use " +
			"exactly the same GPUs, and disaggregated, where actor, rollout, inference and critic use pairwise " +
			"disjoint GPUs (reward may overlap anything). A partial overlap is neither and fails with \"The " +
			"specified placement does not match either the collocated mode or the disaggregated mode\".",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: "0-3"
    rollout: "2-7"
    reward: "0-7"
`,
	},
	{
		Code:  model.CodeMPCollocatedExtra,
		Title: "inference given in collocated mode",
		Text: "In collocated mode (actor and rollout on the same GPUs) the actor recomputes log-probabilities " +
			"itself, so RLinf forbids a separate inference or critic_inference component (\"Inference GPUs " +
			"must not be specified in collocated mode.\").",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,reward: "0-3"
    inference: "4-7"
`,
	},
	{
		Code:  model.CodeMPTPDivisible,
		Title: "actor TP not divisible by rollout TP",
		Text: "In collocated mode RLinf interleaves rollout engines inside each actor tensor-parallel group: " +
			"when actor TP A exceeds rollout TP R, A must be a multiple of R (\"Actor TP size must be divisible " +
			"by Rollout TP size\"), and each actor TP group holds A/R rollout engines.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,reward: all
actor:
  model:
    tensor_model_parallel_size: 4
rollout:
  tensor_parallel_size: 3
`,
	},
	{
		Code:  model.CodeMPTPTooLarge,
		Title: "TP larger than the world size",
		Text: "A component's tensor-parallel size cannot exceed the number of GPUs it is placed on: RLinf " +
			"asserts \"Actor TP size must be less than or equal to Actor world size\", and the same for rollout " +
			"and inference.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,reward: "0-1"
actor:
  model:
    tensor_model_parallel_size: 4
`,
	},
	{
		Code:  model.CodeMPRecompute,
		Title: "inference with recompute_logprobs false",
		Text: "A separate inference component exists to recompute log-probabilities. With " +
			"algorithm.recompute_logprobs: false it would never run, and RLinf rejects the config " +
			"(\"algorithm.recompute_logprobs has been set to false, which disables inference\").",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: "0-1"
    rollout: "2-5"
    inference: "6-7"
    reward: "2-5"
algorithm:
  recompute_logprobs: false
`,
	},
	{
		Code:  model.CodeMPAutoOrder,
		Title: "AUTO mode needs actor, rollout, inference in order",
		Text: "With cluster.auto_scheduler set and no critic, RLinf uses AUTO mode, a disaggregated layout " +
			"that must run actor -> rollout -> inference from GPU 0 to the last GPU without gaps: actor starts " +
			"at 0 and ends right before rollout, rollout ends right before inference (or at the last GPU), and " +
			"inference ends at the last GPU (\"AUTO mode requires components to be placed in the order of actor " +
			"-> rollout -> inference.\").",
		Example: `cluster:
  num_nodes: 1
  auto_scheduler: true
  component_placement:
    actor: "4-7"
    rollout: "0-3"
    reward: "0-3"
`,
	},
	{
		Code:  model.CodeMPSizes,
		Title: "parallel sizes do not fit the GPUs",
		Text: "Where RLinf derives processes from the parallel sizes, the GPUs must hold them: a disaggregated " +
			"rollout needs at least TP*PP GPUs (one engine), and with use_pre_process_policy the actor's GPUs " +
			"must divide by the rollout's TP size. (A size that is not a positive integer is RLS-E0108.)",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: 0-3
    rollout: 4-5
    reward: 4-5
rollout:
  tensor_parallel_size: 2
  pipeline_parallel_size: 2
`,
	},

	{
		Code:  model.CodeMAActorReward,
		Title: "multi-agent actor and reward apart",
		Text: "The multi-agent runs (wideseek; RLinf's MultiAgentModelParallelComponentPlacement) are always " +
			"collocated: actor and reward must be placed on the same GPUs (\"Actor and reward must be placed on " +
			"the same GPUs during multi-agent scenario\").",
		Example: `runner:
  task_type: reasoning
agentloop:
  workflow: mas
cluster:
  num_nodes: 1
  component_placement:
    actor: all
    reward: 0-3
    rollout: all
`,
	},
	{
		Code:  model.CodeMARolloutSubset,
		Title: "multi-agent rollout outside the actor",
		Text: "In a multi-agent run every rollout component (rollout, rollout_judge, ...) runs on some of the " +
			"actor's GPUs, whose weights it shares; RLinf asserts that each one's GPUs are a subset of the actor's.",
		Example: `runner:
  task_type: reasoning
agentloop:
  workflow: mas
cluster:
  num_nodes: 1
  component_placement:
    actor,reward: 0-3
    rollout: 4-7
`,
	},
	{
		Code:  model.CodeMAExclusive,
		Title: "multi-agent exclusive components share GPUs",
		Text: "Components other than actor, rollout, reward and inference (extra engines such as rollout_judge) " +
			"must not share GPUs with each other in a multi-agent run; RLinf raises \"Resource Conflict: Component " +
			"... is already occupied by another exclusive component\".",
		Example: `runner:
  task_type: reasoning
cluster:
  num_nodes: 1
  component_placement:
    actor,reward: all
    rollout: 0-3
    rollout_judge: 4-7
    rollout_fixed_worker: 6-7
rollout_judge:
  tensor_parallel_size: 1
rollout_fixed_worker:
  tensor_parallel_size: 1
`,
	},
	{
		Code:  model.CodeMAExtraEngine,
		Title: "extra engine without its section, or sizes that do not divide",
		Text: "The multi-agent entry points launch an extra rollout engine (rollout_judge, ...) from the config " +
			"section named after it, as Packed(first, last) of its GPUs shaped like the rollout's: the section must " +
			"exist, and the engine's GPU count must be divisible by the tensor_parallel_size, pipeline_parallel_size " +
			"and dp_size given there. RLinf fails when it launches the engine.",
		Example: `runner:
  task_type: reasoning
cluster:
  num_nodes: 1
  component_placement:
    actor,reward: all
    rollout: 0-3
    rollout_judge: 4-6
rollout_judge:
  dp_size: 2
`,
	},
	{
		Code:  model.CodeActorParallel,
		Title: "actor GPUs not a multiple of TP x PP x CP",
		Text: "A Megatron actor (any actor whose tensor_model_parallel_size, pipeline_model_parallel_size or " +
			"context_parallel_size is set: the model-parallel classes, and Hybrid runs of Megatron SFT) needs a " +
			"world size that is a multiple of TP x PP x CP: Megatron-LM's parallel state asserts it when the actor " +
			"starts. RLinf accepts the placement, so the run fails minutes in (D21). The world size is the actor's " +
			"GPUs under the model-parallel classes (one process per GPU) and its processes otherwise. The fixes " +
			"give the actor's placement the nearest sizes that divide, fewer GPUs and then more, each kept only " +
			"when checking the edited config shows it valid.",
		Example: `runner:
  task_type: sft
cluster:
  num_nodes: 1
  component_placement:
    actor: 0-5
actor:
  model:
    tensor_model_parallel_size: 4
`,
	},
	// E06: inventory.
	{
		Code:  model.CodeInventoryNodes,
		Title: "inventory has fewer nodes than num_nodes",
		Text: "num_nodes is how many nodes the job uses, and RLinf waits until that many Ray nodes are alive. " +
			"An inventory that describes fewer nodes cannot host the config: the nodes past its end are unknown.",
		Example: `cluster:
  num_nodes: 2
  component_placement:
    actor: all
inventory:
  nodes:
    - ranks: 0
      accelerators: {count: 8}
`,
	},
	{
		Code:  model.CodeInventoryInvalid,
		Title: "inventory ranks missing or malformed",
		Text: "An inventory's node ranks must cover 0..n-1, each once, as RLINF_NODE_RANK must (RLinf requires " +
			"the ranks to be \"unique and continuous from 0\"). A gap leaves a node rank without hardware; a " +
			"rank given twice is RLS-E0603.",
		Example: `cluster:
  num_nodes: 2
  component_placement:
    actor: all
inventory:
  nodes:
    - ranks: 0
      accelerators: {count: 8}
    - ranks: 2
      accelerators: {count: 8}
`,
	},

	// Warnings.
	{
		Code:  model.WarnUnknownKey,
		Title: "unknown key under cluster:",
		Text: "RLinf silently ignores keys under cluster: that it does not know (besides those other code " +
			"reads, such as auto_scheduler, use_pre_process_policy, net_emulation and tracer). A misspelling " +
			"such as node_group: for node_groups: therefore has no effect. rlsolve accepts it and warns, " +
			"suggesting the nearest known key (decision D10).",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: all
  node_group:
    - label: gpu
      node_ranks: 0
`,
	},
	{
		Code:  model.WarnEmptyGroup,
		Title: "empty node group",
		Text: "node_ranks: \"\" parses to no nodes. RLinf accepts it, then drops the group when the cluster " +
			"starts, so anything that names the group fails later. rlsolve accepts it and warns (decision D10).",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: all
  node_groups:
    - label: spare
      node_ranks: ""
`,
	},
	{
		Code:  model.WarnNodeGroupList,
		Title: "node_group written as a YAML list",
		Text: "RLinf's docs show node_group: [a800, 4090], but OmegaConf hands RLinf a ListConfig, which it " +
			"turns into the single label \"['a800', '4090']\" and fails with \"Node group not found\". rlsolve " +
			"reads the list as \"a800,4090\" and warns: write the comma-separated string so that RLinf accepts " +
			"the config too (decision D2).",
		Example: `cluster:
  num_nodes: 2
  component_placement:
    actor:
      node_group: [a800, "4090"]
      placement: all
  node_groups:
    - label: a800
      node_ranks: 0
    - label: "4090"
      node_ranks: 1
`,
	},
	{
		Code:  model.WarnProcessOffset,
		Title: "process ranks do not start at 0",
		Text: "RLinf's docs say process ranks start at 0, but its code accepts 0-3:4-7 and renumbers the " +
			"processes as worker ranks 0-3. rlsolve accepts it and warns with the renumbering, since an offset " +
			"usually means the author expected ranks 4-7 to exist (decision D4).",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: "0-3:4-7"
`,
	},
	{
		Code:  model.WarnEnvNotApplied,
		Title: "env_configs a worker will not get",
		Text: "RLinf applies a group's env_configs (variables and python_interpreter_path) only to workers " +
			"placed through that group's label. A component placed through `cluster`, `node` or another group " +
			"lands on the same node without them. rlsolve accepts it and warns, naming the variables the " +
			"worker will not get (decision D8).",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: all
  node_groups:
    - label: a800
      node_ranks: 0
      env_configs:
        - node_ranks: 0
          env_vars:
            - NCCL_SOCKET_IFNAME: ib0
`,
	},
	{
		Code:  model.WarnMPNodeGroup,
		Title: "model-parallel placement ignores node_group",
		Text: "In model-parallel mode RLinf replaces the strategies of actor, rollout, inference, reward and " +
			"critic with Packed placements over the default `cluster` group, so a node_group given for them has " +
			"no effect and their ranks count over every GPU of the cluster. rlsolve plans what RLinf launches " +
			"and warns (decision D9).",
		Example: `cluster:
  num_nodes: 2
  component_placement:
    actor,rollout,reward:
      node_group: b
      placement: all
  node_groups:
    - label: b
      node_ranks: 1
`,
	},
	{
		Code:  model.WarnMPRewardGaps,
		Title: "reward placement fills gaps",
		Text: "In model-parallel mode RLinf places reward with Packed(first, last), so reward: \"0,2\" runs 3 " +
			"processes on GPUs 0, 1 and 2 while get_world_size(\"reward\") reports 2. rlsolve plans the " +
			"processes RLinf launches and warns (decision D9).",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout: all
    reward: "0,2"
`,
	},
	{
		Code:  model.NoteMPWorldSize,
		Title: "launched processes differ from get_world_size",
		Text: "RLinf's get_world_size counts the processes of the placement string, but in model-parallel mode " +
			"the Packed strategies may launch a different number: a collocated rollout with TP 2 on 8 GPUs " +
			"reports 8 and launches 4, and an AUTO actor runs on every GPU. Code that sizes groups by " +
			"get_world_size then disagrees with the workers that exist (decision D9).",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,reward: all
rollout:
  tensor_parallel_size: 2
`,
	},
	{
		Code:  model.WarnEmptyComponent,
		Title: "trailing comma names an empty component",
		Text: "RLinf splits a component_placement key on commas, so actor,rollout, also defines a component " +
			"named \"\" that nothing uses. It is harmless to RLinf but usually a typo.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor,rollout,: all
`,
	},
	{
		Code:  model.NoteInventoryExtra,
		Title: "inventory has more nodes than num_nodes",
		Text: "Only nodes 0..num_nodes-1 are used; RLinf keeps the first num_nodes nodes and warns about the " +
			"rest. Either num_nodes is too small or the inventory describes more than this job uses.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: all
inventory:
  nodes:
    - ranks: 0-1
      accelerators: {count: 8}
`,
	},
	{
		Code:  model.WarnRobotCount,
		Title: "hardware configs and inventory disagree on robots",
		Text: "Robot counts come from a node group's hardware.configs when present, else from the inventory " +
			"(RLinf itself creates robots from variables such as ROBOT_IP when no configs are given). When both " +
			"describe a node and the numbers differ, placements over robot ranks may not match the machines.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: 0
  node_groups:
    - label: franka
      node_ranks: 0
      hardware:
        type: Franka
        configs:
          - node_rank: 0
inventory:
  nodes:
    - ranks: 0
      accelerators: {count: 8}
      hardware: {Franka: 2}
`,
	},
	{
		Code:  model.WarnParallelDivides,
		Title: "rollout GPUs not a multiple of TP x PP: GPUs left idle",
		Text: "A disaggregated (or AUTO) rollout is split into dp = GPUs // (TP x PP) engines of GPUs // dp GPUs " +
			"each, and each engine's inference server uses TP x PP of its GPUs: when the GPUs are not a multiple " +
			"of TP x PP, the rest are placed and do no work. The warning names them; the fix gives the rollout a " +
			"multiple of TP x PP (kept only when checking the edited config shows it valid). The actor's sizes " +
			"are an error instead (RLS-E0514): Megatron refuses to start (D21).",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    actor: 0-1
    rollout,reward: 2-7
actor:
  model:
    tensor_model_parallel_size: 1
rollout:
  tensor_parallel_size: 4
`,
	},

	// Notes.
	{
		Code:  model.NoteAssumedInventory,
		Title: "no inventory: 8 GPUs per node assumed",
		Text: "Without --inventory, an inventory: key, --gpus-per-node or discovery, rlsolve does not know the " +
			"hardware and assumes num_nodes nodes with 8 GPUs each. Conclusions about device ranges hold only " +
			"if the real nodes match.",
		Example: `cluster:
  num_nodes: 2
  component_placement:
    actor: all
`,
	},
	{
		Code:  model.NoteClass,
		Title: "placement class inferred",
		Text: "RLinf picks the class that reads component_placement in each entry point: reasoning and agent " +
			"training use ModelParallelComponentPlacement, reasoning evaluation ModelParallelEvalComponentPlacement, " +
			"the multi-agent (wideseek) runs MultiAgentModelParallel[Eval]ComponentPlacement, embodied, SFT, " +
			"reward and offline-RL runs HybridComponentPlacement, data collection the base ComponentPlacement. " +
			"rlsolve infers it from what the config says of its run (runner.task_type, agentloop.workflow, extra " +
			"rollout engines such as rollout_judge, runner.num_data_episodes; without a task type, TP sizes mean " +
			"model-parallel) and names it in this note; --mode overrides it.",
		Example: `runner:
  task_type: sft
actor:
  model:
    tensor_model_parallel_size: 2
cluster:
  num_nodes: 1
  component_placement:
    actor: all
`,
	},
	{
		Code:  model.NoteConflictsCut,
		Title: "more conflicts than shown",
		Text: "The solver explains at most --max-conflicts independent conflicts (20 by default), each as a " +
			"minimal set of facts. When the input has more, this note says how many there are; fix the shown " +
			"ones, or raise --max-conflicts to see them all.",
		Example: `cluster:
  num_nodes: 1
  component_placement:
    c0: "8"
    c1: "8"
    c2: "8"
    c3: "8"
    c4: "8"
    c5: "8"
    c6: "8"
    c7: "8"
    c8: "8"
    c9: "8"
    c10: "8"
    c11: "8"
    c12: "8"
    c13: "8"
    c14: "8"
    c15: "8"
    c16: "8"
    c17: "8"
    c18: "8"
    c19: "8"
    c20: "8"
`,
	},
}
