package model

// Config is the placement-relevant part of an RLinf training config: the
// `cluster:` section plus the few model-parallel keys placement reads.
type Config struct {
	File     string
	NumNodes int
	// NumNodesSpan is the value's position (or the cluster key's when absent).
	NumNodesSpan Span
	ClusterSpan  Span
	NodeGroups   []NodeGroup
	Components   []ComponentEntry
	// ComponentsSpan is the position of the component_placement key.
	ComponentsSpan Span
	ModelParallel  ModelParallelConfig
	// Run is what the config says of its run (which entry point reads it).
	Run RunConfig
	// Sections holds the parallel sizes of the top-level section named
	// after each component that has one (e.g. `rollout_judge:`), for the
	// extra rollout engines of the multi-agent classes.
	Sections map[string]SectionSizes
	// Memory holds the settings GPU memory depends on (whole configs only).
	Memory *MemorySettings
	// Inventory is set when the config file carries a top-level `inventory:`.
	Inventory *Inventory
	// Broken names the node groups, components and inventory whose entries
	// had errors: later stages skip what refers to them instead of
	// reporting follow-on errors.
	Broken map[Broken]bool
}

// Broken names a part of the config that could not be read.
type Broken struct {
	Kind BrokenKind
	Name string
}

// BrokenKind says what kind of part is broken.
type BrokenKind int

const (
	BrokenGroup     BrokenKind = iota // a node group, by label
	BrokenComponent                   // a component, by name
	BrokenInventory                   // the config's inventory: key
)

// MarkBroken records that the part of kind k named name could not be read.
func (c *Config) MarkBroken(k BrokenKind, name string) {
	if c.Broken == nil {
		c.Broken = map[Broken]bool{}
	}
	c.Broken[Broken{k, name}] = true
}

// IsBroken reports whether the part of kind k named name could not be read.
func (c *Config) IsBroken(k BrokenKind, name string) bool { return c.Broken[Broken{k, name}] }

// NodeGroup is one `cluster.node_groups[i]` entry after RLinf's checks.
type NodeGroup struct {
	Label     string
	LabelSpan Span
	// NodeRanks is the expanded, sorted node_ranks.
	NodeRanks []int
	RanksSpan Span
	// HardwareType is "" when the YAML sets none; it is then decided from the
	// inventory (Accelerator when a node has GPUs), as RLinf does.
	HardwareType     string
	HardwareTypeSpan Span
	IgnoreHardware   bool
	Hardware         *HardwareConfig
	EnvConfigs       []EnvConfig
	Span             Span
}

// HardwareConfig is a group's `hardware: {type, configs}`.
type HardwareConfig struct {
	Type     string
	TypeSpan Span
	Configs  []RobotConfig
}

// RobotConfig is one robot of a hardware config, with RLinf's defaults filled.
type RobotConfig struct {
	NodeRank     int
	NodeRankSpan Span
	// Fields holds every field of the robot type, defaults included, in the
	// type's declared order (FieldOrder).
	Fields     map[string]any
	FieldOrder []string
	Span       Span
}

// EnvConfig is one `env_configs[j]` entry of a node group.
type EnvConfig struct {
	NodeRanks       []int
	RanksSpan       Span
	EnvVars         []EnvVar
	HasEnvVars      bool
	Interpreter     string
	HasInterpreter  bool
	InterpreterSpan Span
	Span            Span
}

// EnvVar is one `- KEY: value` of env_vars.
type EnvVar struct {
	Key       string
	Value     string
	KeySpan   Span
	ValueSpan Span
	// ItemSpan is the item's whole line, its line ending included, when
	// the line holds the item alone (deleting it removes the item); zero
	// otherwise.
	ItemSpan Span
}

// ComponentEntry is one key of component_placement: one or more component
// names sharing one placement.
type ComponentEntry struct {
	Names     []string
	KeySpan   Span
	NameSpans []Span
	// NodeGroups are the labels of the mapping form; empty means the default
	// group "cluster".
	NodeGroups     []string
	NodeGroupSpans []Span
	// NodeGroupSpan covers the whole node_group value.
	NodeGroupSpan Span
	Placement     string
	PlacementSpan Span
	Segments      []Segment
	// Invalid is true when the placement itself could not be read; the
	// entry is kept so that its node_group is still checked.
	Invalid bool
	// Requirement, when set, is what the component needs instead of a
	// placement (Invalid is then true: there is nothing to check until
	// solve places it).
	Requirement *Requirement
	// Kept is a requirement written beside the placement (solve --write
	// keeps it, and RLinf ignores the extra keys): check and plan judge
	// the placement; solve places the entry again from it, so that the
	// file can be replanned after a node fails (issue 25 item 7).
	Kept *Requirement
}

// Replan makes every kept requirement the entry's requirement again, its
// placement set aside (its span stays, where solve writes the new one).
func (c *Config) Replan() {
	for i := range c.Components {
		if e := &c.Components[i]; e.Kept != nil {
			e.Requirement, e.Kept, e.Invalid, e.Segments = e.Kept, nil, true, nil
		}
	}
}

// Segment is one comma-separated part of a placement string: a contiguous
// resource range and a contiguous process range. Every part of RLinf's
// grammar is contiguous (a comma always starts a new part).
type Segment struct {
	// AllResources is true for `all`; ResStart/ResEnd are then resolved
	// against the node groups' resource count.
	AllResources bool
	ResStart     int
	ResEnd       int
	// HasProcesses is false when the part has no ":processes"; the process
	// range is then implicit (one process per resource, continuing on).
	HasProcesses bool
	ProcStart    int
	ProcEnd      int
	Span         Span
	ResSpan      Span
	ProcSpan     Span
}

// ModelParallelConfig holds the keys ModelParallel placement reads.
type ModelParallelConfig struct {
	// Present is true when the file has any model-parallel key, which makes
	// model-parallel the default mode.
	Present             bool
	ActorTP             IntFact
	ActorPP             IntFact
	ActorCP             IntFact
	RolloutTP           IntFact
	RolloutPP           IntFact
	InferenceTP         IntFact
	RecomputeLogprobs   BoolFact
	AutoScheduler       BoolFact
	UsePreProcessPolicy BoolFact
}

// RunConfig is what a config says of its run, from which the placement
// class is inferred (semantics §10).
type RunConfig struct {
	// TaskType is runner.task_type ("reasoning", "embodied", "sft", ...).
	TaskType StringFact
	// Workflow is agentloop.workflow, set by the multi-agent (wideseek)
	// configs.
	Workflow StringFact
	// DataType is data.type, the dataset: "wideseek_r1" is read only by
	// wideseek's own (multi-agent) entry points.
	DataType StringFact
	// DataEpisodes is runner.num_data_episodes, set by data-collection runs.
	DataEpisodes IntFact
}

// SectionSizes are a component section's parallel sizes.
type SectionSizes struct {
	Span                                           Span
	TensorParallel, PipelineParallel, DataParallel IntFact
}

// IntFact is an integer setting with its position; Set is false when the
// key is absent and Value holds the default.
type IntFact struct {
	Value int
	Set   bool
	Span  Span
	// Key names the setting (`actor.model.tensor_model_parallel_size`,
	// `--micro-batch-size`) where messages name it; "" when unnamed.
	Key string
}

// BoolFact is a boolean setting with its position.
type BoolFact struct {
	Value bool
	Set   bool
	Span  Span
	Key   string
}

// Group returns the configured group with that label, or nil.
func (c *Config) Group(label string) *NodeGroup {
	for i := range c.NodeGroups {
		if c.NodeGroups[i].Label == label {
			return &c.NodeGroups[i]
		}
	}
	return nil
}

// FloatFact is a number setting with its position.
type FloatFact struct {
	Value float64
	Set   bool
	Span  Span
	Key   string
}

// StringFact is a string setting with its position.
type StringFact struct {
	Value string
	Set   bool
	Span  Span
	Key   string
}
