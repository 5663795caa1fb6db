package strategies

import "github.com/rlsolve/rlsolve/model"

// Document is `rlsolve plan --output json`: a versioned contract that
// scripts rely on (design.md "Placement records").
type Document struct {
	FormatVersion string                  `json:"format_version" yaml:"format_version"`
	PlacementMode string                  `json:"placement_mode" yaml:"placement_mode"`
	Inventory     DocInventory            `json:"inventory" yaml:"inventory"`
	Components    map[string]DocComponent `json:"components" yaml:"components"`
	Order         []string                `json:"component_order" yaml:"component_order"`
	Diagnostics   any                     `json:"diagnostics" yaml:"diagnostics"`
}

// DocInventory says where the hardware came from.
type DocInventory struct {
	Source  string `json:"source" yaml:"source"`
	Assumed bool   `json:"assumed" yaml:"assumed"`
	Nodes   int    `json:"nodes" yaml:"nodes"`
}

// DocComponent is one component's workers.
type DocComponent struct {
	WorldSize int `json:"world_size" yaml:"world_size"`
	// RLinfWorldSize is what RLinf's get_world_size reports (D9).
	RLinfWorldSize int            `json:"rlinf_world_size" yaml:"rlinf_world_size"`
	NodeGroups     []string       `json:"node_groups" yaml:"node_groups"`
	Strategy       DocStrategy    `json:"strategy" yaml:"strategy"`
	Placements     []DocPlacement `json:"placements" yaml:"placements"`
}

// DocStrategy names the RLinf strategy the workers come from.
type DocStrategy struct {
	Kind               string `json:"kind" yaml:"kind"`
	Start              *int   `json:"start,omitempty" yaml:"start,omitempty"`
	End                *int   `json:"end,omitempty" yaml:"end,omitempty"`
	HardwarePerProcess *int   `json:"num_hardware_per_process,omitempty" yaml:"num_hardware_per_process,omitempty"`
	Stride             *int   `json:"stride,omitempty" yaml:"stride,omitempty"`
}

// DocPlacement is one worker: RLinf's fields plus what the inventory knows.
type DocPlacement struct {
	model.Placement `yaml:",inline"`
	Hostname        string            `json:"hostname,omitempty" yaml:"hostname,omitempty"`
	IP              string            `json:"ip,omitempty" yaml:"ip,omitempty"`
	GPUUUIDs        []string          `json:"gpu_uuids,omitempty" yaml:"gpu_uuids,omitempty"`
	Interpreter     string            `json:"python_interpreter_path,omitempty" yaml:"python_interpreter_path,omitempty"`
	Env             map[string]string `json:"env" yaml:"env"`
}

// NewDocument builds the plan document; diagnostics is the rendered list.
func (r *Result) NewDocument(inv *model.Inventory, diagnostics any) *Document {
	doc := &Document{FormatVersion: "1", PlacementMode: string(r.Plan.Mode), Components: map[string]DocComponent{},
		Diagnostics: diagnostics, Inventory: DocInventory{Source: inv.Source, Assumed: inv.Assumed, Nodes: len(r.Cluster.Nodes)}}
	if doc.PlacementMode == "" {
		doc.PlacementMode = "NONE"
	}
	for i := range r.Plan.Components {
		cp := &r.Plan.Components[i]
		dc := DocComponent{WorldSize: len(cp.Placements), RLinfWorldSize: cp.RankMapWorldSize, NodeGroups: cp.NodeGroups,
			Strategy: DocStrategy{Kind: string(cp.Strategy.Kind)}, Placements: make([]DocPlacement, len(cp.Placements))}
		if cp.Strategy.Kind == model.StrategyPacked {
			s := cp.Strategy
			dc.Strategy.Start, dc.Strategy.End, dc.Strategy.HardwarePerProcess, dc.Strategy.Stride = &s.Start, &s.End, &s.HardwarePerProcess, &s.Stride
		}
		for j := range cp.Placements {
			p := cp.Placements[j]
			node := &r.Cluster.Nodes[p.ClusterNodeRank]
			dp := DocPlacement{Placement: p, Hostname: node.Hostname, IP: node.IP, Env: r.Cluster.Env(cp, j),
				Interpreter: r.Cluster.Interpreter(p.NodeGroupLabel, p.ClusterNodeRank)}
			if p.HardwareType == model.HardwareAccelerator && len(node.Devices) > 0 {
				for _, h := range p.LocalHardwareRanks {
					for _, dv := range node.Devices {
						if dv.Index == h && dv.UUID != "" {
							dp.GPUUUIDs = append(dp.GPUUUIDs, dv.UUID)
						}
					}
				}
			}
			dc.Placements[j] = dp
		}
		doc.Components[cp.Name] = dc
		doc.Order = append(doc.Order, cp.Name)
	}
	return doc
}
