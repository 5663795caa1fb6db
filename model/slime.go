package model

import (
	"slices"
	"sort"
)

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
	SlimeNumKeys
)

// SlimeKeyInfo describes a flag: its command-line and YAML spellings, and
// its default (HasDefault is false for --rollout-num-gpus, which has none).
type SlimeKeyInfo struct {
	Flag       string
	Key        string
	Bool       bool
	Default    int
	HasDefault bool
}

// SlimeKeys describes every placement flag, indexed by SlimeKey.
var SlimeKeys = [SlimeNumKeys]SlimeKeyInfo{
	SlimeActorNumNodes:        {Flag: "--actor-num-nodes", Key: "actor_num_nodes", Default: 1, HasDefault: true},
	SlimeActorGPUsPerNode:     {Flag: "--actor-num-gpus-per-node", Key: "actor_num_gpus_per_node", Default: 8, HasDefault: true},
	SlimeRolloutNumGPUs:       {Flag: "--rollout-num-gpus", Key: "rollout_num_gpus"},
	SlimeRolloutGPUsPerEngine: {Flag: "--rollout-num-gpus-per-engine", Key: "rollout_num_gpus_per_engine", Default: 1, HasDefault: true},
	SlimeNumGPUsPerNode:       {Flag: "--num-gpus-per-node", Key: "num_gpus_per_node", Default: 8, HasDefault: true},
	SlimeDPSize:               {Flag: "--sglang-dp-size", Key: "sglang_dp_size", Default: 1, HasDefault: true},
	SlimeColocate:             {Flag: "--colocate", Key: "colocate", Bool: true, HasDefault: true},
	SlimeTrainOnly:            {Flag: "--debug-train-only", Key: "debug_train_only", Bool: true, HasDefault: true},
	SlimeRolloutOnly:          {Flag: "--debug-rollout-only", Key: "debug_rollout_only", Bool: true, HasDefault: true},
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
		Colocate: v[SlimeColocate] != 0, TrainOnly: v[SlimeTrainOnly] != 0, RolloutOnly: v[SlimeRolloutOnly] != 0,
	}
}

// SlimeMode is how slime lays out the placement group.
type SlimeMode string

const (
	SlimeColocateMode      SlimeMode = "colocate"
	SlimeDisaggregatedMode SlimeMode = "disaggregated"
	SlimeTrainOnlyMode     SlimeMode = "train-only"
	SlimeRolloutOnlyMode   SlimeMode = "rollout-only"
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
	SlimeActorGPUFractionNewer   = 0.4
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
	Colocate       bool
	TrainOnly      bool
	RolloutOnly    bool
}

// Mode applies slime's precedence: train-only, then rollout-only, then
// colocate, else disaggregated.
func (s SlimeSettings) Mode() SlimeMode {
	switch {
	case s.TrainOnly:
		return SlimeTrainOnlyMode
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
func (s SlimeSettings) HasActor() bool { return s.Mode() != SlimeRolloutOnlyMode }

// Rollout is the rollout's GPU count: --rollout-num-gpus, which colocate
// mode defaults to the actor's GPUs; 0 when the rollout is not placed.
func (s SlimeSettings) Rollout() int {
	switch s.Mode() {
	case SlimeTrainOnlyMode:
		return 0
	case SlimeColocateMode:
		if !s.RolloutSet {
			return s.ActorGPUs()
		}
	}
	return s.RolloutGPUs
}

// RolloutMissing reports that the mode places a rollout but
// --rollout-num-gpus is not given.
func (s SlimeSettings) RolloutMissing() bool {
	m := s.Mode()
	return !s.RolloutSet && (m == SlimeDisaggregatedMode || m == SlimeRolloutOnlyMode)
}

// Bundles is the placement group's size and the rollout's first bundle.
func (s SlimeSettings) Bundles() (total, offset int) {
	switch s.Mode() {
	case SlimeTrainOnlyMode, SlimeColocateMode:
		return s.ActorGPUs(), 0
	case SlimeRolloutOnlyMode:
		return s.Rollout(), 0
	}
	return s.ActorGPUs() + s.Rollout(), s.ActorGPUs()
}

// Engines is how many engines the rollout starts.
func (s SlimeSettings) Engines() int {
	if s.GPUsPerEngine <= 0 {
		return 0
	}
	return s.Rollout() / s.GPUsPerEngine
}

// PortsPerEngine is what one engine takes from its first node's cursor:
// HTTP, NCCL and the dist_init_addr block of 30 + dp_size.
func (s SlimeSettings) PortsPerEngine() int {
	return SlimePortsPerEngineFixedPart + SlimeDistInitBlockBase + s.DPSize
}

// SlimeTopology is an inventory's GPUs in slime's stable order: nodes in the
// given order (numeric IPv4, else host name, else characters; see
// topology.Order), GPUs of a node by id. Stable bundle b is the b-th GPU.
type SlimeTopology struct {
	Nodes []Node
	// Span is the inventory's position (its `nodes:` key), when from a file.
	Span Span
	// Order holds indices into Nodes in stable order.
	Order []int
	// prefix[i] is the GPU count of Order[:i].
	prefix []int
}

// NewSlimeTopology builds the stable order; order nil means the
// inventory's order. Invalid or repeated indices are dropped.
func NewSlimeTopology(nodes []Node, order []int) *SlimeTopology {
	t := &SlimeTopology{Nodes: nodes}
	seen := make([]bool, len(nodes))
	if order == nil {
		order = make([]int, len(nodes))
		for i := range order {
			order[i] = i
		}
	}
	for _, i := range order {
		if i >= 0 && i < len(nodes) && !seen[i] {
			seen[i] = true
			t.Order = append(t.Order, i)
		}
	}
	t.prefix = make([]int, len(t.Order)+1)
	for p, i := range t.Order {
		t.prefix[p+1] = t.prefix[p] + max(nodes[i].AccelCount, 0)
	}
	return t
}

// NumGPUs is the inventory's GPU count.
func (t *SlimeTopology) NumGPUs() int { return t.prefix[len(t.Order)] }

// Locate returns the stable position of the node holding bundle b
// (0 <= b < NumGPUs) and the bundle's index among the node's GPUs.
func (t *SlimeTopology) Locate(b int) (pos, local int) {
	pos = sort.SearchInts(t.prefix, b+1) - 1
	return pos, b - t.prefix[pos]
}

// NodeRange is the bundles [start, end) of the node at stable position pos.
func (t *SlimeTopology) NodeRange(pos int) (start, end int) { return t.prefix[pos], t.prefix[pos+1] }

// Boundary reports whether bundle b starts a node (or is the end).
func (t *SlimeTopology) Boundary(b int) bool {
	i := sort.SearchInts(t.prefix, b)
	return i < len(t.prefix) && t.prefix[i] == b
}

// Node is the node at stable position pos.
func (t *SlimeTopology) Node(pos int) *Node { return &t.Nodes[t.Order[pos]] }

// GPUID is the device id of the node's local-th GPU: the inventory's device
// indices in ascending order when it lists every device, else local.
func (t *SlimeTopology) GPUID(pos, local int) int {
	n := t.Node(pos)
	if len(n.Devices) == n.AccelCount && local < len(n.Devices) {
		ids := make([]int, len(n.Devices))
		for i, d := range n.Devices {
			ids[i] = d.Index
		}
		slices.Sort(ids)
		return ids[local]
	}
	return local
}

// Address is how slime names a node: its IP, else its host name ("" when
// the inventory knows neither).
func (n *Node) Address() string {
	if n.IP != "" {
		return n.IP
	}
	return n.Hostname
}

// Positions calls f for each stable node position whose GPUs meet the
// bundles [from, to), with the overlap [a, b).
func (t *SlimeTopology) Positions(from, to int, f func(pos, a, b int) bool) {
	if from >= to {
		return
	}
	p, _ := t.Locate(from)
	for ; p < len(t.Order) && t.prefix[p] < to; p++ {
		a, b := max(t.prefix[p], from), min(t.prefix[p+1], to)
		if a < b && !f(p, a, b) {
			return
		}
	}
}

// SlimeStraddle is an engine whose GPUs cross a node boundary without
// covering whole nodes.
type SlimeStraddle struct {
	Engine     int
	Start, End int // bundles [Start, End)
}

// Straddler finds the first engine of s that straddles nodes, in
// O(nodes log nodes); ok is false when none does. The layout must fit.
func (t *SlimeTopology) Straddler(s SlimeSettings) (SlimeStraddle, bool) {
	total, off := s.Bundles()
	r, g := s.Rollout(), s.GPUsPerEngine
	if r <= 0 || g <= 0 || total > t.NumGPUs() {
		return SlimeStraddle{}, false
	}
	end := off + s.Engines()*g
	for p := range t.Order {
		b := t.prefix[p]
		if b <= off || b >= end || (b-off)%g == 0 {
			continue
		}
		e := (b - off) / g
		st := off + e*g
		if !t.Boundary(st) || !t.Boundary(st+g) {
			return SlimeStraddle{Engine: e, Start: st, End: st + g}, true
		}
	}
	return SlimeStraddle{}, false
}

// WrongNodeSize finds the first node holding rollout GPUs whose GPU count is
// not --num-gpus-per-node; ok is false when all match. The layout must fit.
func (t *SlimeTopology) WrongNodeSize(s SlimeSettings) (pos int, ok bool) {
	total, off := s.Bundles()
	r := s.Rollout()
	if r <= 0 || total > t.NumGPUs() {
		return 0, false
	}
	pos = -1
	t.Positions(off, off+r, func(p, a, b int) bool {
		if t.Node(p).AccelCount != s.NumGPUsPerNode {
			pos = p
			return false
		}
		return true
	})
	return pos, pos >= 0
}

// EngineStarts is how many engines begin on the node at stable position
// pos: each takes its ports from that node's cursor.
func (t *SlimeTopology) EngineStarts(s SlimeSettings, pos int) int {
	_, off := s.Bundles()
	g, n := s.GPUsPerEngine, s.Engines()
	if g <= 0 || n <= 0 {
		return 0
	}
	a, b := t.NodeRange(pos)
	// engines k with off + k*g in [a, b)
	ceil := func(x int) int {
		if x <= 0 {
			return 0
		}
		return (x + g - 1) / g
	}
	lo, hi := min(ceil(a-off), n), min(ceil(b-off), n)
	return max(hi-lo, 0)
}

// SlimePortProblem is a port plan failure: a node's ports reaching the
// ephemeral range, or two nodes with one address planning the same ports.
type SlimePortProblem struct {
	// Pos is the node (stable position); Other the second node of an
	// overlap (-1 for the ephemeral range).
	Pos, Other int
	// Last is the node's last planned port.
	Last int
}

// PortProblems checks the port plan of s in O(nodes): the first node whose
// cursor reaches the ephemeral range, and the first two nodes with the same
// address that both plan ports. The layout must fit.
func (t *SlimeTopology) PortProblems(s SlimeSettings) (ephemeral, overlap *SlimePortProblem) {
	total, _ := s.Bundles()
	if s.Rollout() <= 0 || total > t.NumGPUs() || s.GPUsPerEngine <= 0 {
		return nil, nil
	}
	byAddr := map[string]int{}
	for p := range t.Order {
		n := t.EngineStarts(s, p)
		if n == 0 {
			continue
		}
		last := SlimePortStart + n*s.PortsPerEngine() - 1
		if ephemeral == nil && last >= SlimeEphemeralFirst {
			ephemeral = &SlimePortProblem{Pos: p, Other: -1, Last: last}
		}
		addr := t.Node(p).Address()
		if addr == "" {
			continue
		}
		if q, dup := byAddr[addr]; dup && overlap == nil {
			overlap = &SlimePortProblem{Pos: q, Other: p, Last: last}
		} else if !dup {
			byAddr[addr] = p
		}
	}
	return ephemeral, overlap
}

// SlimeBundle is one stable bundle: where its GPU is.
type SlimeBundle struct {
	Index int
	// Node is the index into the inventory's nodes; Pos the stable position.
	Node, Pos int
	GPU       int
}

// SlimeEnginePart is an engine's GPUs on one node (one Ray actor of slime's;
// an engine spanning whole nodes has one part per node).
type SlimeEnginePart struct {
	Node, Pos int
	Bundles   []int
	GPUs      []int
	// Rank is the part's worker rank in the rollout component.
	Rank int
}

// SlimeEngine is one SGLang engine with its ports.
type SlimeEngine struct {
	Index int
	Parts []SlimeEnginePart
	// HTTPPort, NCCLPort and the dist_init_addr block [DistFirst,
	// DistLast] are on the first part's node.
	HTTPPort, NCCLPort, DistFirst, DistLast int
	// DistInitAddr is "address:DistFirst" (the address is "" when the
	// inventory knows none).
	DistInitAddr string
}

// SlimePortBlock is a run of ports an engine takes on a node.
type SlimePortBlock struct {
	Node, Pos   int
	Engine      int
	Kind        string // "http", "nccl", "dist_init"
	First, Last int
}

// SlimeLayout is the expanded layout: bundles, engines and port plan.
type SlimeLayout struct {
	Mode          SlimeMode
	Settings      SlimeSettings
	NumBundles    int
	RolloutOffset int
	Bundles       []SlimeBundle
	Engines       []SlimeEngine
	Ports         []SlimePortBlock
}
