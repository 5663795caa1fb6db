package pipeline

import (
	"github.com/rlsolve/rlsolve/render"
	"github.com/rlsolve/rlsolve/rules"
)

// RenderInput is what the plan outputs are written from: the plan, the
// inventory's nodes and groups, and the planner's worker environments;
// nil when there is no plan.
func (o *Outcome) RenderInput() *render.Input {
	if o == nil || o.Result == nil || o.Result.Plan == nil || o.Result.Cluster == nil {
		return nil
	}
	c := o.Result.Cluster
	in := &render.Input{Plan: o.Result.Plan, Nodes: c.Nodes, Cluster: c.Cluster, Workers: c, Diagnostics: o.Diagnostics}
	if o.Inventory != nil {
		in.InventorySource, in.InventoryAssumed = o.Inventory.Source, o.Inventory.Assumed
	}
	in.Memory = renderMemory(o.Memory)
	return in
}

// renderMemory is what the plan outputs show of the memory.
func renderMemory(m *rules.MemoryResult) *render.Memory {
	if m == nil {
		return nil
	}
	return &render.Memory{Model: m.Memory.Arch.Name, Source: m.Memory.Source.String(), Profile: m.Memory.Profile.Name(), Groups: m.Groups}
}

// RenderInput is RenderInput for a slime plan: its records, and the
// layout behind them.
func (so *SlimeOutcome) RenderInput() *render.Input {
	if so == nil || so.Plan == nil || so.Plan.Plan == nil || so.Plan.Topology == nil {
		return nil
	}
	r := so.Plan
	in := &render.Input{Plan: r.Plan, Nodes: r.Topology.Nodes, Workers: r,
		Slime: &render.Slime{Config: r.Config, Topology: r.Topology, Settings: r.Settings, Layout: r.Layout}}
	if so.Outcome != nil {
		in.Diagnostics = so.Diagnostics
		if so.Inventory != nil {
			in.InventorySource, in.InventoryAssumed = so.Inventory.Source, so.Inventory.Assumed
		}
		in.Memory = renderMemory(so.Memory)
	}
	return in
}
