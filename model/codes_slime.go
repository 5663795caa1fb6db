package model

// Codes of slime layouts (E07: slime's placement flags, its placement group
// on the inventory, and the engines' port plan).
const (
	CodeSlimeFlag          = "RLS-E0701" // the flag string is malformed or names an unknown placement flag
	CodeSlimeValue         = "RLS-E0702" // a flag's value is not a whole number in range, or is a shell expansion
	CodeSlimeMissing       = "RLS-E0703" // --rollout-num-gpus missing where the rollout is placed
	CodeSlimeModes         = "RLS-E0704" // --debug-train-only with --debug-rollout-only
	CodeSlimeFit           = "RLS-E0705" // the placement group needs more GPUs than the inventory has
	CodeSlimeEngineDivides = "RLS-E0706" // rollout_num_gpus not a multiple of the engine size
	CodeSlimeStraddle      = "RLS-E0707" // an engine crosses a node boundary without spanning whole nodes
	CodeSlimeNodeSize      = "RLS-E0708" // --num-gpus-per-node splits an engine spanning nodes otherwise than its nodes
	CodeSlimeGroups        = "RLS-E0709" // the rollout's server groups cannot be formed (prefill/decode, external engines, --sglang-config)
	CodeSlimePortRange     = "RLS-E0710" // a planned port falls in the ephemeral range
	CodeSlimePortOverlap   = "RLS-E0711" // two engines' port blocks overlap on one machine
	CodeSlimeScript        = "RLS-E0712" // the launch script cannot be evaluated in the sandbox (syntax, a limit, a refused read, no slime program run)
	CodeSlimeSGLangFile    = "RLS-E0713" // the --sglang-config YAML cannot be read, is not slime's format, or its GPUs differ from --rollout-num-gpus

	WarnSlimeRankNode     = "RLS-W0701" // slime's rank arithmetic puts an engine on another node
	WarnSlimeActorSpread  = "RLS-W0702" // actor ranks land on other nodes than actor_num_nodes x gpus says
	WarnSlimeRepeated     = "RLS-W0703" // a flag given twice: slime uses the last
	WarnSlimeUnexpanded   = "RLS-W0704" // slime's command expands a variable the script never sets, where flags may be
	WarnSlimeSplitCommand = "RLS-W0705" // a missing `\` splits slime's arguments into a separate command

	NoteSlimeIgnored      = "RLS-N0701" // arguments that do not affect placement are ignored
	NoteSlimeSGLangConfig = "RLS-N0702" // --sglang-config defines the engines: they are not planned
	NoteSlimeSGLangRead   = "RLS-N0703" // --sglang-config's engine groups were read and are planned
)
