package model

import "strings"

// Placement is one worker: RLinf's Placement fields plus what the inventory
// knows about its node. LocalAcceleratorRank is always an integer (D12).
type Placement struct {
	Rank                 int      `json:"rank"`
	ClusterNodeRank      int      `json:"cluster_node_rank"`
	PlacementNodeRank    int      `json:"placement_node_rank"`
	LocalAcceleratorRank int      `json:"local_accelerator_rank"`
	LocalRank            int      `json:"local_rank"`
	LocalWorldSize       int      `json:"local_world_size"`
	VisibleAccelerators  []string `json:"visible_accelerators"`
	IsolateAccelerator   bool     `json:"isolate_accelerator"`
	LocalHardwareRanks   []int    `json:"local_hardware_ranks"`
	NodeGroupLabel       string   `json:"node_group_label"`
	AcceleratorType      string   `json:"accelerator_type"`
	// HardwareType is the group hardware type the worker was placed on
	// (Accelerator, Franka, or "" for node placement).
	HardwareType string `json:"-"`
}

// PlacementMode is how components share GPUs.
type PlacementMode string

const (
	ModeNone          PlacementMode = ""
	ModeHybrid        PlacementMode = "HYBRID"
	ModeCollocated    PlacementMode = "COLLOCATED"
	ModeDisaggregated PlacementMode = "DISAGGREGATED"
	ModeAuto          PlacementMode = "AUTO"
)

// PlacementClass is the RLinf class that reads component_placement; the
// entry point of a run picks it (semantics §5 and §10).
type PlacementClass string

const (
	ClassBase              PlacementClass = "base"                // ComponentPlacement (data collection)
	ClassHybrid            PlacementClass = "hybrid"              // HybridComponentPlacement
	ClassModelParallel     PlacementClass = "model-parallel"      // ModelParallelComponentPlacement
	ClassModelParallelEval PlacementClass = "model-parallel-eval" // ModelParallelEvalComponentPlacement
	ClassMultiAgent        PlacementClass = "multi-agent"         // MultiAgentModelParallelComponentPlacement
	ClassMultiAgentEval    PlacementClass = "multi-agent-eval"    // MultiAgentModelParallelEvalComponentPlacement
)

// StrategyKind names the RLinf strategy class a component was placed with.
type StrategyKind string

const (
	StrategyPacked   StrategyKind = "packed"
	StrategyFlexible StrategyKind = "flexible"
	StrategyNode     StrategyKind = "node"
)

// Strategy records the strategy call that produced a component's placements,
// in the shape RLinf's conformance corpus uses.
type Strategy struct {
	Kind       StrategyKind
	NodeGroups []string // nil: the default group
	// Packed
	Start, End, HardwarePerProcess, Stride int
	// Flexible and Node: the rank map's parts, from which each process's
	// hardware ranks (Flexible) or group-relative node index (Node)
	// follow. They are kept as parts, not lists: a million-process
	// component's record stays a few integers.
	Parts []Part
}

// HardwareRanks is a Flexible strategy's list of group hardware ranks per
// process, as RLinf's FlexiblePlacementStrategy takes it.
func (s *Strategy) HardwareRanks() [][]int {
	n := 0
	for _, p := range s.Parts {
		n += max(p.Resources(), p.Processes())
	}
	backing := make([]int, 0, n)
	lists := make([][]int, 0, ProcessTotal(s.Parts))
	for _, pr := range Processes(s.Parts) {
		from := len(backing)
		for k := range pr.N {
			backing = append(backing, pr.Start+k)
		}
		lists = append(lists, backing[from:len(backing):len(backing)])
	}
	return lists
}

// NodeRanks is a Node strategy's group-relative node index per process, as
// RLinf's NodePlacementStrategy takes it.
func (s *Strategy) NodeRanks() []int {
	nodes := make([]int, 0, ProcessTotal(s.Parts))
	for _, pr := range Processes(s.Parts) {
		nodes = append(nodes, pr.Start)
	}
	return nodes
}

// ComponentPlan is the expansion of one component.
type ComponentPlan struct {
	Name string
	// Entry is the index of the component_placement entry it came from.
	Entry int
	// RankMapWorldSize is what RLinf's get_world_size reports (process
	// ranks in the placement string); it can differ from len(Placements)
	// under model-parallel placement (D9).
	RankMapWorldSize int
	// HardwareRanks is RLinf's get_hardware_ranks: the resource ranks of the
	// placement string, in order.
	HardwareRanks []int
	NodeGroups    []string
	Strategy      Strategy
	Placements    Placements
}

// Plan is every component's placements.
type Plan struct {
	Mode       PlacementMode
	Components []ComponentPlan
}

// Component returns the named component's plan, or nil.
func (p *Plan) Component(name string) *ComponentPlan {
	for i := range p.Components {
		if p.Components[i].Name == name {
			return &p.Components[i]
		}
	}
	return nil
}

// Names lists the plan's components in order.
func (p *Plan) Names() []string {
	out := make([]string, 0, len(p.Components))
	for i := range p.Components {
		out = append(out, p.Components[i].Name)
	}
	return out
}

// ClassNames lists the placement classes' names, in Classes' order.
func ClassNames() []string {
	out := make([]string, len(Classes))
	for i, k := range Classes {
		out[i] = string(k.Class)
	}
	return out
}

// Classes lists the placement classes with the RLinf class each stands for.
var Classes = []struct {
	Class PlacementClass
	RLinf string
}{
	{ClassBase, "ComponentPlacement"},
	{ClassHybrid, "HybridComponentPlacement"},
	{ClassModelParallel, "ModelParallelComponentPlacement"},
	{ClassModelParallelEval, "ModelParallelEvalComponentPlacement"},
	{ClassMultiAgent, "MultiAgentModelParallelComponentPlacement"},
	{ClassMultiAgentEval, "MultiAgentModelParallelEvalComponentPlacement"},
}

// RLinfClass is the name of the RLinf class c stands for.
func (c PlacementClass) RLinfClass() string {
	for _, k := range Classes {
		if k.Class == c {
			return k.RLinf
		}
	}
	return string(c)
}

// ParseClass reads a placement class as --mode takes it: rlsolve's names
// (hybrid, model-parallel, ...), RLinf's class names, case and separator
// variants of them (HYBRID, model_parallel, mp), and the placement modes
// plan prints (COLLOCATED, DISAGGREGATED and AUTO are model-parallel's).
func ParseClass(s string) (PlacementClass, bool) {
	norm := strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToLower(strings.TrimSpace(s)))
	switch norm {
	case "mp", "collocated", "disaggregated", "auto": // the modes plan prints for this class
		return ClassModelParallel, true
	case "mpeval":
		return ClassModelParallelEval, true
	}
	for _, k := range Classes {
		if norm == strings.ReplaceAll(string(k.Class), "-", "") || norm == strings.ToLower(k.RLinf) {
			return k.Class, true
		}
	}
	return "", false
}
