package render

import (
	"fmt"

	"github.com/rlsolve/rlsolve/memory"
	"github.com/rlsolve/rlsolve/model"
)

// Input is a plan with what its outputs need: the nodes the workers land
// on, and each worker's environment, computed one worker at a time while
// an output is written (never all held).
type Input struct {
	Plan *model.Plan
	// Nodes are the inventory's nodes by cluster node rank (host names,
	// addresses, GPU UUIDs).
	Nodes []model.Node
	// Cluster has the node groups and robots the pictures draw; nil for a
	// slime plan.
	Cluster *model.Cluster
	// Workers gives each worker's environment and interpreter.
	Workers Workers
	// InventorySource and InventoryAssumed say where the hardware came
	// from (model.Inventory's Source and Assumed).
	InventorySource  string
	InventoryAssumed bool
	Diagnostics      model.Diagnostics
	// Slime is the layout behind a slime plan; nil for RLinf.
	Slime *Slime
	// Memory is each GPU layout's memory; nil when memory is not checked.
	Memory *Memory
}

// Memory is a plan's GPU memory: the model and where its architecture
// came from, the profile, and one report per GPU layout (identical GPUs
// grouped).
type Memory struct {
	Model   string
	Source  string
	Profile string
	Groups  []memory.Group
}

// Workers is what the planner knows of each worker beyond its placement
// (strategies' Cluster and SlimeResult implement it).
type Workers interface {
	// EnvOf is the environment worker p of cp gets (semantics §6.3): a
	// fresh map the caller may keep or drop.
	EnvOf(cp *model.ComponentPlan, p *model.Placement) map[string]string
	// Interpreter is the python_interpreter_path of a node group on a
	// node, or "".
	Interpreter(label string, node int) string
}

// Slime is a slime plan's layout: the placement group, the engines and
// the port plan behind the records.
type Slime struct {
	Config   *model.SlimeConfig
	Topology *model.SlimeTopology
	Settings model.SlimeSettings
	Layout   *model.SlimeLayout
}

// Format is a plan output.
type Format string

// The plan outputs.
const (
	FormatTable Format = "table"
	FormatJSON  Format = "json"
	FormatYAML  Format = "yaml"
	FormatEnv   Format = "env"
	FormatSVG   Format = "svg"
	FormatHTML  Format = "html"
)

// ParseFormat reads an output name; "text" is the table.
func ParseFormat(s string) (Format, bool) {
	switch f := Format(s); f {
	case FormatTable, FormatJSON, FormatYAML, FormatEnv, FormatSVG, FormatHTML:
		return f, true
	case "text":
		return FormatTable, true
	}
	return "", false
}

// worker returns component ci's worker j and the node it lands on, or an
// error when the plan names a node the inventory lacks (an internal
// error: the planner never does).
func (in *Input) worker(ci, j int) (*model.Placement, *model.Node, error) {
	pl := in.Plan.Components[ci].Placements.At(j)
	p := &pl
	if p.ClusterNodeRank < 0 || p.ClusterNodeRank >= len(in.Nodes) {
		return nil, nil, fmt.Errorf("render: %s worker %d is on node %d, which the inventory lacks", in.Plan.Components[ci].Name, j, p.ClusterNodeRank)
	}
	return p, &in.Nodes[p.ClusterNodeRank], nil
}

func (in *Input) check() error {
	if in == nil || in.Plan == nil || in.Workers == nil {
		return fmt.Errorf("render: no plan to write (the config has errors)")
	}
	return nil
}
