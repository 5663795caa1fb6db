package model

// Diagnostic codes. They are stable: scripts and `rlsolve explain` rely on
// them. Ranges: E01 input and YAML, E02 rank specs and placement strings,
// E03 node groups, env_configs and hardware, E04 feasibility of a placement on
// the inventory, E05 model-parallel rules, E06 inventory; W.. warnings, N.. notes.
const (
	CodeYAMLSyntax       = "RLS-E0101" // the file is not valid YAML
	CodeDuplicateKey     = "RLS-E0102" // a mapping key appears twice
	CodeWrongType        = "RLS-E0103" // a value has the wrong YAML type
	CodeMissingField     = "RLS-E0104" // a required key is missing
	CodeUnknownField     = "RLS-E0105" // RLinf rejects unknown keys here
	CodeYAML11           = "RLS-E0106" // unquoted scalar that YAML 1.1 reads differently (D3)
	CodeLimit            = "RLS-E0107" // an input limit is exceeded
	CodeInvalidValue     = "RLS-E0108" // a value outside what RLinf accepts
	CodeUnresolvedInterp = "RLS-E0109" // a ${...} interpolation rlsolve cannot resolve
	CodeFileRead         = "RLS-E0110" // the file cannot be read
	CodeProcessLimit     = "RLS-E0111" // more processes than rlsolve expands
	CodeSolverBudget     = "RLS-E0112" // the solver ran out of its time budget
	CodeInternal         = "RLS-E0113" // an internal error: a bug in rlsolve
	CodePolicy           = "RLS-E0114" // a `# rlsolve:` comment or .rlsolve.yaml setting is malformed

	CodeRankSyntax         = "RLS-E0201" // a rank spec or placement part is malformed
	CodeRankReversed       = "RLS-E0202" // a range's end is below its start
	CodeRankOutOfRange     = "RLS-E0203" // a rank is outside the available ranks
	CodeDuplicateResource  = "RLS-E0204" // two parts name the same resource
	CodeResourceOrder      = "RLS-E0205" // resource ranks not ascending
	CodeProcessOrder       = "RLS-E0206" // process ranks not ascending and continuous
	CodeDuplicateProcess   = "RLS-E0207" // two parts name the same process rank
	CodeNotDivisible       = "RLS-E0208" // processes and resources do not divide
	CodeEmptyRanks         = "RLS-E0209" // a part has no resource or no process ranks
	CodeProcessAll         = "RLS-E0210" // `all` used as process ranks
	CodeDuplicateComponent = "RLS-E0211" // a component has two placements
	CodeNodeRanksRange     = "RLS-E0212" // node_ranks outside the nodes a group or env_config may use
	CodeNeededMisspelled   = "RLS-E0213" // a component the run needs is missing, and an unknown name is close to it

	CodeUnknownGroup        = "RLS-E0301" // node_group label not defined
	CodeDuplicateLabel      = "RLS-E0302" // two node groups share a label (D6)
	CodeReservedLabel       = "RLS-E0303" // label cluster/node is reserved
	CodeEnvRanksNotSubset   = "RLS-E0304" // env_config node_ranks outside its group
	CodeEnvNodeDuplicated   = "RLS-E0305" // a node in two env_configs of a group
	CodeEnvVarDuplicated    = "RLS-E0306" // an env var key twice in a group (D11)
	CodeHardwareNodeOutside = "RLS-E0307" // hardware config node_rank outside its group
	CodeHardwareConflict    = "RLS-E0308" // same robot type, same node, two groups
	CodeHardwareDuplicate   = "RLS-E0309" // identical hardware configs
	CodeHardwareExclusive   = "RLS-E0310" // hardware with hardware_type or ignore_hardware
	CodeUnsupportedHardware = "RLS-E0311" // hardware type not registered

	CodeSpansNodes    = "RLS-E0401" // a process's hardware spans nodes (D1)
	CodeMixedHardware = "RLS-E0402" // a process mixes hardware types
	CodeNodeOrder     = "RLS-E0403" // placements not sorted by node (group order)
	CodeGroupsOverlap = "RLS-E0404" // node placement over overlapping groups
	// RLS-E0405 and RLS-E0406 are retired: configs get RLS-E0411 and
	// RLS-E0203 first, and direct strategy calls return errors.
	CodeNeedsHardware      = "RLS-E0407" // strategy needs hardware the group lacks (D7)
	CodeNoHardware         = "RLS-E0408" // the groups have no hardware at all
	CodeProcessHardwareDup = "RLS-E0409" // a process lists a hardware rank twice
	CodePackedDivisible    = "RLS-E0410" // packed range not divisible by nhpp*stride
	CodeMixedTypedUntyped  = "RLS-E0411" // typed and untyped groups mixed (D5)
	CodeOneProcessOneNode  = "RLS-E0412" // node placement process on several nodes
	CodeEmptyGroup         = "RLS-E0413" // a component uses a group without nodes

	CodeMPMissing         = "RLS-E0501" // actor, rollout or reward missing
	CodeMPNotContiguous   = "RLS-E0502" // a model-parallel component's GPUs not contiguous
	CodeMPMode            = "RLS-E0503" // neither collocated nor disaggregated
	CodeMPCollocatedExtra = "RLS-E0504" // inference given in collocated mode
	CodeMPTPDivisible     = "RLS-E0505" // actor TP not divisible by rollout TP
	CodeMPTPTooLarge      = "RLS-E0506" // TP larger than the world size
	CodeMPRecompute       = "RLS-E0507" // inference with recompute_logprobs false
	CodeMPAutoOrder       = "RLS-E0508" // AUTO mode order actor -> rollout -> inference
	CodeMPSizes           = "RLS-E0509" // parallel sizes do not fit the GPUs
	CodeMAActorReward     = "RLS-E0510" // multi-agent: actor and reward on different GPUs
	CodeMARolloutSubset   = "RLS-E0511" // multi-agent: a rollout component outside the actor's GPUs
	CodeMAExclusive       = "RLS-E0512" // multi-agent: exclusive components share GPUs
	CodeMAExtraEngine     = "RLS-E0513" // multi-agent: an extra engine's section missing or its sizes do not divide
	CodeActorParallel     = "RLS-E0514" // the actor's GPUs not a multiple of TP x PP x CP (Megatron refuses, D21)

	CodeInventoryNodes   = "RLS-E0601" // inventory has fewer nodes than num_nodes
	CodeInventoryInvalid = "RLS-E0602" // inventory ranks missing or malformed (a rank given twice: E0603)

	WarnUnknownKey      = "RLS-W0101" // unknown key under cluster: (D10)
	WarnEmptyGroup      = "RLS-W0102" // node_ranks "" makes an empty group (D10)
	WarnNodeGroupList   = "RLS-W0103" // node_group as a YAML list (D2)
	WarnProcessOffset   = "RLS-W0104" // process ranks do not start at 0 (D4)
	WarnEnvNotApplied   = "RLS-W0105" // env_configs that a worker will not get (D8)
	WarnMPNodeGroup     = "RLS-W0106" // model-parallel ignores node_group (D9)
	WarnMPRewardGaps    = "RLS-W0107" // reward Packed(first,last) fills gaps (D9)
	NoteMPWorldSize     = "RLS-N0108" // launched processes differ from get_world_size (D9); a note: information, not a mistake
	WarnEmptyComponent  = "RLS-W0109" // a trailing comma names an empty component
	NoteInventoryExtra  = "RLS-N0110" // inventory has more nodes than num_nodes (a note: the first num_nodes are used)
	WarnRobotCount      = "RLS-W0111" // hardware configs and inventory disagree on robots
	WarnParallelDivides = "RLS-W0112" // a rollout's GPUs not a multiple of TP*PP: GPUs left idle (D21)

	NoteAssumedInventory = "RLS-N0001" // no inventory given: 8 GPUs per node assumed
	NoteConflictsCut     = "RLS-N0002" // more conflicts than --max-conflicts shows
	NoteClass            = "RLS-N0003" // the placement class inferred from the config
)

// ChangesLayout reports whether a warning means the real layout differs
// from the plan, or may: RLinf places elsewhere than written (node_group
// ignored, reward's gaps filled, idle GPUs in engines, another node
// order), slime's actor ranks land on other nodes, or slime's
// command may hold placement flags rlsolve cannot read (a never-set
// variable, arguments cut off by a missing `\`). plan prints these in full
// rather than counting them: they change the answer it shows.
func ChangesLayout(code string) bool {
	switch code {
	case WarnMPNodeGroup, WarnMPRewardGaps, WarnParallelDivides, WarnNodeOrderRLinf,
		WarnSlimeActorSpread, WarnSlimeUnexpanded, WarnSlimeSplitCommand:
		return true
	}
	return false
}
