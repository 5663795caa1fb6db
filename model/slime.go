package model

// slime is the second framework rlsolve reads (../shared/spec/slime.md): a
// Megatron training group ("actor") and SGLang rollout engines placed on the
// GPUs of one Ray placement group, configured by command-line flags.

// SlimeKey names one of slime's placement flags.
type SlimeKey int

// The placement flags, in the order slime documents them.
const (
	SlimeActorNumNodes SlimeKey = iota
	SlimeActorGPUsPerNode
	SlimeRolloutNumGPUs
	SlimeRolloutGPUsPerEngine
	SlimeNumGPUsPerNode
	SlimeDPSize
	SlimeColocate
	SlimeTrainOnly
	SlimeRolloutOnly
	SlimePrefillServers
	SlimeRolloutExternal
	SlimeLoadDebugRollout
	SlimeSGLangConfig
	SlimeNumKeys
)

// SlimeKeyInfo describes a flag: its command-line and YAML spellings, what
// it takes, and its default (HasDefault is false for --rollout-num-gpus
// and --prefill-num-servers, which have none).
type SlimeKeyInfo struct {
	Flag string
	Key  string
	// Bool: a switch. Text: takes a path or address, only its presence
	// matters for placement; Many: one or more of them.
	Bool, Text, Many bool
	// Zero: 0 is a valid count.
	Zero       bool
	Default    int
	HasDefault bool
	// Aliases are other spellings of the flag; a switch alias of a Text
	// flag turns it on without a value.
	Aliases []SlimeAlias
}

// SlimeAlias is another spelling of a flag.
type SlimeAlias struct {
	Flag, Key string
	Switch    bool
}

// SlimeKeys describes every placement flag, indexed by SlimeKey.
var SlimeKeys = [SlimeNumKeys]SlimeKeyInfo{
	SlimeActorNumNodes:        {Flag: "--actor-num-nodes", Key: "actor_num_nodes", Default: 1, HasDefault: true},
	SlimeActorGPUsPerNode:     {Flag: "--actor-num-gpus-per-node", Key: "actor_num_gpus_per_node", Default: 8, HasDefault: true},
	SlimeRolloutNumGPUs:       {Flag: "--rollout-num-gpus", Key: "rollout_num_gpus", Zero: true},
	SlimeRolloutGPUsPerEngine: {Flag: "--rollout-num-gpus-per-engine", Key: "rollout_num_gpus_per_engine", Default: 1, HasDefault: true},
	SlimeNumGPUsPerNode:       {Flag: "--num-gpus-per-node", Key: "num_gpus_per_node", Default: 8, HasDefault: true},
	SlimeDPSize: {Flag: "--sglang-dp-size", Key: "sglang_dp_size", Default: 1, HasDefault: true,
		Aliases: []SlimeAlias{{Flag: "--sglang-data-parallel-size", Key: "sglang_data_parallel_size"}}},
	SlimeColocate:       {Flag: "--colocate", Key: "colocate", Bool: true, HasDefault: true},
	SlimeTrainOnly:      {Flag: "--debug-train-only", Key: "debug_train_only", Bool: true, HasDefault: true},
	SlimeRolloutOnly:    {Flag: "--debug-rollout-only", Key: "debug_rollout_only", Bool: true, HasDefault: true},
	SlimePrefillServers: {Flag: "--prefill-num-servers", Key: "prefill_num_servers"},
	SlimeRolloutExternal: {Flag: "--rollout-external-engine-addrs", Key: "rollout_external_engine_addrs", Text: true, Many: true, HasDefault: true,
		Aliases: []SlimeAlias{{Flag: "--rollout-external", Key: "rollout_external", Switch: true}}},
	SlimeLoadDebugRollout: {Flag: "--load-debug-rollout-data", Key: "load_debug_rollout_data", Text: true, HasDefault: true},
	SlimeSGLangConfig:     {Flag: "--sglang-config", Key: "sglang_config", Text: true, HasDefault: true},
}

// SlimeKeyByFlag finds a flag by any of its command-line spellings;
// asSwitch is set for a switch alias of a Text flag.
func SlimeKeyByFlag(flag string) (k SlimeKey, asSwitch, ok bool) {
	return slimeKeyBy(func(f, _ string) bool { return f == flag })
}

// SlimeKeyByYAML finds a flag by any of its YAML key spellings.
func SlimeKeyByYAML(key string) (k SlimeKey, asSwitch, ok bool) {
	return slimeKeyBy(func(_, y string) bool { return y == key })
}

func slimeKeyBy(match func(flag, key string) bool) (SlimeKey, bool, bool) {
	for k, info := range SlimeKeys {
		if match(info.Flag, info.Key) {
			return SlimeKey(k), false, true
		}
		for _, a := range info.Aliases {
			if match(a.Flag, a.Key) {
				return SlimeKey(k), a.Switch, true
			}
		}
	}
	return 0, false, false
}

// Info returns the flag's description.
func (k SlimeKey) Info() SlimeKeyInfo { return SlimeKeys[k] }

// SlimeValue is one flag as the input gives it.
type SlimeValue struct {
	Set bool
	// Value is the integer, or 0/1 for a boolean flag.
	Value int
	// Span covers the whole setting (`--flag value`, `key: value`);
	// ValueSpan the value alone (the flag itself for a boolean flag).
	Span      Span
	ValueSpan Span
	// Text is the setting as written, for messages: `--rollout-num-gpus 12`.
	Text string
	// Arg is a Text flag's value (its values joined by spaces; "" for a
	// switch alias).
	Arg string
}

// SlimeConfig is a slime layout: the placement flags, from a --slime string,
// a YAML file's `slime:` key, or both (the flags win).
type SlimeConfig struct {
	// Source names the input: "--slime" or the YAML file.
	Source string
	Values [SlimeNumKeys]SlimeValue
	// Span covers the whole input (the flag string, or the `slime:` key);
	// diagnostics that no single flag causes point at it.
	Span Span
	// End is where a flag can be appended (a flag string only).
	End Span
	// Appendable is true when End can take an inserted flag.
	Appendable bool
	// Inventory is the YAML file's `inventory:`, if any.
	Inventory *Inventory
	// Unexpanded are the pasted command's words left for the shell to
	// expand that may hold flags (`${SGLANG_ARGS[@]}`).
	Unexpanded []string
	// Flags holds every flag given, placement flags included, by name
	// without the leading dashes (`sglang-mem-fraction-static`; a YAML
	// key with its underscores as dashes): what GPU memory reads. A switch
	// has Text ""; the last repetition wins, as in slime's argparse. A
	// flag whose value the shell would expand is left out.
	Flags map[string]FlagValue
}

// SetFlag records a flag as given (name without the leading dashes).
func (c *SlimeConfig) SetFlag(name, text string, at Span) {
	if c.Flags == nil {
		c.Flags = map[string]FlagValue{}
	}
	c.Flags[name] = FlagValue{Text: text, Span: at}
}

// Overlay sets every value that o sets (flags given on the command line
// win over a file's keys); the appending point moves to o's.
func (c *SlimeConfig) Overlay(o *SlimeConfig) {
	for k := range o.Values {
		if o.Values[k].Set {
			c.Values[k] = o.Values[k]
		}
	}
	c.Span, c.End, c.Appendable = o.Span, o.End, o.Appendable
	if o.Inventory != nil {
		c.Inventory = o.Inventory
	}
	c.Unexpanded = append(c.Unexpanded, o.Unexpanded...)
	for name, v := range o.Flags {
		c.SetFlag(name, v.Text, v.Span)
	}
}

// Settings are a layout's effective values: the given flags, the others at
// their defaults. present says which given flags count (the solver removes
// some to find minimal conflicts); nil means all of them.
func (c *SlimeConfig) Settings(present func(SlimeKey) bool) SlimeSettings {
	var v [SlimeNumKeys]int
	var set [SlimeNumKeys]bool
	for k := SlimeKey(0); k < SlimeNumKeys; k++ {
		v[k] = SlimeKeys[k].Default
		if c.Values[k].Set && (present == nil || present(k)) {
			v[k], set[k] = c.Values[k].Value, true
		}
	}
	return SlimeSettings{
		ActorNodes: v[SlimeActorNumNodes], ActorGPUsPerNode: v[SlimeActorGPUsPerNode],
		RolloutGPUs: v[SlimeRolloutNumGPUs], RolloutSet: set[SlimeRolloutNumGPUs],
		GPUsPerEngine: v[SlimeRolloutGPUsPerEngine], NumGPUsPerNode: v[SlimeNumGPUsPerNode], DPSize: v[SlimeDPSize],
		PrefillServers: v[SlimePrefillServers], PrefillSet: set[SlimePrefillServers],
		Colocate: v[SlimeColocate] != 0, TrainOnly: v[SlimeTrainOnly] != 0 || v[SlimeLoadDebugRollout] != 0,
		RolloutOnly: v[SlimeRolloutOnly] != 0, External: v[SlimeRolloutExternal] != 0, SGLangConfig: v[SlimeSGLangConfig] != 0,
	}
}

// SlimeMode is how slime lays out the placement group.
type SlimeMode string

const (
	SlimeColocateMode      SlimeMode = "colocate"
	SlimeDisaggregatedMode SlimeMode = "disaggregated"
	SlimeTrainOnlyMode     SlimeMode = "train-only"
	SlimeRolloutOnlyMode   SlimeMode = "rollout-only"
	// SlimeExternalMode: the engines run outside Ray
	// (--rollout-external-engine-addrs); the group holds the actor's
	// bundles only.
	SlimeExternalMode SlimeMode = "external"
)

// Plan modes and the strategy kind of slime plans.
const (
	ModeTrainOnly   PlacementMode = "TRAIN_ONLY"
	ModeRolloutOnly PlacementMode = "ROLLOUT_ONLY"
	StrategySlime   StrategyKind  = "slime"
)

// PlacementMode is the plan document's name of the mode.
func (m SlimeMode) PlacementMode() PlacementMode {
	switch m {
	case SlimeColocateMode:
		return ModeCollocated
	case SlimeTrainOnlyMode:
		return ModeTrainOnly
	case SlimeRolloutOnlyMode:
		return ModeRolloutOnly
	}
	return ModeDisaggregated
}

// Fractional GPU requests of slime's Ray actors: bookkeeping that lets an
// actor and an engine share a bundle in colocate mode, never a memory budget.
const (
	SlimeActorGPUFraction        = 0.8
	SlimeRolloutGPUFraction      = 0.2
	SlimePortStart               = 15000
	SlimeEphemeralFirst          = 32768
	SlimeEphemeralLast           = 65535
	SlimeDistInitBlockBase       = 30
	SlimePortsPerEngineFixedPart = 2 // HTTP and NCCL
)

// SlimeSettings are effective flag values.
type SlimeSettings struct {
	ActorNodes, ActorGPUsPerNode int
	// RolloutGPUs is --rollout-num-gpus as given (0 when not given).
	RolloutGPUs    int
	RolloutSet     bool
	GPUsPerEngine  int
	NumGPUsPerNode int
	DPSize         int
	// PrefillServers is --prefill-num-servers (0 when not given).
	PrefillServers int
	PrefillSet     bool
	Colocate       bool
	// TrainOnly is --debug-train-only, or --load-debug-rollout-data,
	// which implies it.
	TrainOnly   bool
	RolloutOnly bool
	// External: --rollout-external-engine-addrs; SGLangConfig:
	// --sglang-config (the engine groups come from a file rlsolve does not
	// read).
	External, SGLangConfig bool
}

// Mode applies slime's precedence (_get_placement_group_layout):
// train-only, then external engines, then rollout-only, then colocate,
// else disaggregated.
func (s SlimeSettings) Mode() SlimeMode {
	switch {
	case s.TrainOnly:
		return SlimeTrainOnlyMode
	case s.External:
		return SlimeExternalMode
	case s.RolloutOnly:
		return SlimeRolloutOnlyMode
	case s.Colocate:
		return SlimeColocateMode
	}
	return SlimeDisaggregatedMode
}

// ActorGPUs is actor_num_nodes * actor_num_gpus_per_node.
func (s SlimeSettings) ActorGPUs() int { return s.ActorNodes * s.ActorGPUsPerNode }

// HasActor reports whether the actor is placed.
func (s SlimeSettings) HasActor() bool {
	return s.Mode() != SlimeRolloutOnlyMode && !(s.Mode() == SlimeExternalMode && s.RolloutOnly)
}

// Rollout is the GPU count of the local engines: --rollout-num-gpus, which
// --colocate defaults to the actor's GPUs (also with
// --debug-rollout-only); 0 when no local engine is placed.
func (s SlimeSettings) Rollout() int {
	switch s.Mode() {
	case SlimeTrainOnlyMode, SlimeExternalMode:
		return 0
	case SlimeColocateMode, SlimeRolloutOnlyMode:
		if !s.RolloutSet && s.Colocate {
			return s.ActorGPUs()
		}
	}
	return s.RolloutGPUs
}

// RolloutMissing reports that the mode places a rollout but
// --rollout-num-gpus is not given (and --colocate does not default it).
func (s SlimeSettings) RolloutMissing() bool {
	m := s.Mode()
	return !s.RolloutSet && (m == SlimeDisaggregatedMode || m == SlimeRolloutOnlyMode && !s.Colocate)
}

// Bundles is the placement group's size and the rollout's first bundle
// (slime's _get_placement_group_layout).
func (s SlimeSettings) Bundles() (total, offset int) {
	a := s.ActorGPUs()
	switch s.Mode() {
	case SlimeTrainOnlyMode:
		return a, 0
	case SlimeExternalMode:
		if s.RolloutOnly {
			return a, 0
		}
		return a, a
	case SlimeRolloutOnlyMode:
		return s.Rollout(), 0
	case SlimeColocateMode:
		return max(a, s.Rollout()), 0
	}
	return a + s.Rollout(), a
}

// Engines is how many engines the rollout starts (none when the engine
// groups come from --sglang-config).
func (s SlimeSettings) Engines() int {
	if s.GPUsPerEngine <= 0 || s.SGLangConfig {
		return 0
	}
	return s.Rollout() / s.GPUsPerEngine
}

// EnginesDivide reports whether the local rollout's GPUs are a multiple of
// the engine size (vacuous when --sglang-config sizes the engines).
func (s SlimeSettings) EnginesDivide() bool {
	r, g := s.Rollout(), s.GPUsPerEngine
	return r <= 0 || g <= 0 || s.SGLangConfig || r%g == 0
}

// SourcesConflict finds two ways of defining the rollout's engines that
// slime refuses together (sglang_utils.arguments.validate_args): external
// engines with --prefill-num-servers or --sglang-config, and
// --sglang-config with --prefill-num-servers.
func (s SlimeSettings) SourcesConflict() (a, b SlimeKey, ok bool) {
	switch {
	case s.External && s.PrefillSet:
		return SlimeRolloutExternal, SlimePrefillServers, true
	case s.External && s.SGLangConfig:
		return SlimeRolloutExternal, SlimeSGLangConfig, true
	case s.SGLangConfig && s.PrefillSet:
		return SlimePrefillServers, SlimeSGLangConfig, true
	}
	return 0, 0, false
}
