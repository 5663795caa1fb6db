package render

import (
	"slices"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/memory"
	"github.com/rlsolve/rlsolve/model"
)

// Document is `rlsolve plan --output json` (and yaml): a versioned
// contract that scripts rely on (design.md "Placement records"). The
// writers stream it from an Input without building it; NewDocument builds
// it whole, for a program that wants the values.
type Document struct {
	FormatVersion string                  `json:"format_version"`
	PlacementMode string                  `json:"placement_mode"`
	Inventory     DocInventory            `json:"inventory"`
	Components    map[string]DocComponent `json:"components"`
	Order         []string                `json:"component_order"`
	// Slime is the placement group and port plan of a slime layout.
	Slime *SlimeLayout `json:"slime,omitempty"`
	// Memory is the GPU memory of each GPU layout, when the inventory
	// gives memory_gib and the model is known.
	Memory      *DocMemory            `json:"memory,omitempty"`
	Diagnostics []diag.JSONDiagnostic `json:"diagnostics"`
}

// DocMemory is the plan's GPU memory: one entry per GPU layout (the GPUs
// with the same capacity and components), with every number's parts and
// their sources.
type DocMemory struct {
	Model              string         `json:"model"`
	ArchitectureSource string         `json:"architecture_source"`
	Profile            string         `json:"profile"`
	GPUs               []memory.Group `json:"gpus"`
}

// DocInventory says where the hardware came from.
type DocInventory struct {
	Source  string `json:"source"`
	Assumed bool   `json:"assumed"`
	Nodes   int    `json:"nodes"`
}

// DocComponent is one component's workers.
type DocComponent struct {
	WorldSize int `json:"world_size"`
	// RLinfWorldSize is what RLinf's get_world_size reports (D9).
	RLinfWorldSize int            `json:"rlinf_world_size"`
	NodeGroups     []string       `json:"node_groups"`
	Strategy       DocStrategy    `json:"strategy"`
	Placements     []DocPlacement `json:"placements"`
}

// DocStrategy names the RLinf strategy the workers come from.
type DocStrategy struct {
	Kind               string `json:"kind"`
	Start              *int   `json:"start,omitempty"`
	End                *int   `json:"end,omitempty"`
	HardwarePerProcess *int   `json:"num_hardware_per_process,omitempty"`
	Stride             *int   `json:"stride,omitempty"`
}

// DocPlacement is one worker: RLinf's fields plus what the inventory knows.
type DocPlacement struct {
	model.Placement
	Hostname    string            `json:"hostname,omitempty"`
	IP          string            `json:"ip,omitempty"`
	GPUUUIDs    []string          `json:"gpu_uuids,omitempty"`
	Interpreter string            `json:"python_interpreter_path,omitempty"`
	Env         map[string]string `json:"env"`
	// SlimeRecord is set in a slime plan only.
	*SlimeRecord
}

// NewDocument builds the whole plan document in memory: what the writers
// stream, as values.
func NewDocument(in *Input) (*Document, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	d, err := in.head()
	if err != nil {
		return nil, err
	}
	var r recorder
	for ci := range in.Plan.Components {
		cp := &in.Plan.Components[ci]
		dc := d.Components[cp.Name]
		dc.Placements = make([]DocPlacement, cp.Placements.Len())
		for j := range cp.Placements.Len() {
			p, err := r.record(in, ci, j)
			if err != nil {
				return nil, err
			}
			dc.Placements[j] = p.clone()
		}
		d.Components[cp.Name] = dc
	}
	return d, nil
}

// head is the document without its placements (the components' lists are
// nil): everything but what grows with the worker count.
func (in *Input) head() (*Document, error) {
	d := &Document{FormatVersion: diag.FormatVersion, PlacementMode: string(in.Plan.Mode), Components: map[string]DocComponent{},
		Diagnostics: diag.JSON(in.Diagnostics), Inventory: DocInventory{Source: in.InventorySource, Assumed: in.InventoryAssumed, Nodes: len(in.Nodes)}}
	if d.PlacementMode == "" {
		d.PlacementMode = "NONE"
	}
	for i := range in.Plan.Components {
		cp := &in.Plan.Components[i]
		dc := DocComponent{WorldSize: cp.Placements.Len(), RLinfWorldSize: cp.RankMapWorldSize, NodeGroups: cp.NodeGroups,
			Strategy: DocStrategy{Kind: string(cp.Strategy.Kind)}}
		if cp.Strategy.Kind == model.StrategyPacked {
			s := cp.Strategy
			dc.Strategy.Start, dc.Strategy.End, dc.Strategy.HardwarePerProcess, dc.Strategy.Stride = &s.Start, &s.End, &s.HardwarePerProcess, &s.Stride
		}
		d.Components[cp.Name] = dc
		d.Order = append(d.Order, cp.Name)
	}
	if in.Slime != nil {
		l, err := in.Slime.layout(in)
		if err != nil {
			return nil, err
		}
		d.Slime = l
	}
	if m := in.Memory; m != nil {
		d.Memory = &DocMemory{Model: m.Model, ArchitectureSource: m.Source, Profile: m.Profile, GPUs: m.Groups}
		if d.Memory.GPUs == nil {
			d.Memory.GPUs = []memory.Group{}
		}
	}
	return d, nil
}

// recorder builds one worker's record at a time into the same value, so
// that a writer's memory does not grow with the worker count.
type recorder struct {
	p     DocPlacement
	slime SlimeRecord
	// cursor walks a slime plan's rollout workers through the engines.
	cursor engineCursor
}

// record is worker j of component ci, valid until the next call.
func (r *recorder) record(in *Input, ci, j int) (*DocPlacement, error) {
	cp := &in.Plan.Components[ci]
	p, node, err := in.worker(ci, j)
	if err != nil {
		return nil, err
	}
	dp := &r.p
	*dp = DocPlacement{Placement: *p, Hostname: node.Hostname, IP: node.IP, GPUUUIDs: dp.GPUUUIDs[:0],
		Env: in.Workers.EnvOf(cp, p), Interpreter: in.Workers.Interpreter(p.NodeGroupLabel, p.ClusterNodeRank)}
	if p.HardwareType == model.HardwareAccelerator || in.Slime != nil {
		dp.GPUUUIDs = appendUUIDs(dp.GPUUUIDs, node, p.LocalHardwareRanks)
	}
	if in.Slime != nil {
		if err := r.slimeRecord(in, cp, j); err != nil {
			return nil, err
		}
		dp.SlimeRecord = &r.slime
	}
	return dp, nil
}

// clone copies a record out of the recorder.
func (p *DocPlacement) clone() DocPlacement {
	c := *p
	c.GPUUUIDs = slices.Clone(p.GPUUUIDs)
	if p.SlimeRecord != nil {
		s := *p.SlimeRecord
		if s.SGLang != nil {
			g := *s.SGLang
			s.SGLang = &g
		}
		c.SlimeRecord = &s
	}
	return c
}

// appendUUIDs appends the UUIDs the inventory knows of a node's devices.
func appendUUIDs(dst []string, node *model.Node, devices []int) []string {
	for _, h := range devices {
		for _, dv := range node.Devices {
			if dv.Index == h && dv.UUID != "" {
				dst = append(dst, dv.UUID)
			}
		}
	}
	return dst
}

// PlanRecords is the workers of in's plan document, as
// NewDocument(in).Records() gives them, without building the document
// (its GPU UUIDs, interpreters, copies of every record): what `solve
// --from` and `plan --diff` compare. A slime plan, whose records can
// fail to build, and one that names a component twice take
// NewDocument's way, so that both ways always give the same.
func PlanRecords(in *Input) (*model.PlanRecords, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	names := make(map[string]bool, len(in.Plan.Components))
	for i := range in.Plan.Components {
		names[in.Plan.Components[i].Name] = true
	}
	if in.Slime != nil || len(names) != len(in.Plan.Components) {
		d, err := NewDocument(in)
		if err != nil {
			return nil, err
		}
		return d.Records(), nil
	}
	pr := &model.PlanRecords{Components: make([]model.ComponentRecords, 0, len(in.Plan.Components))}
	for ci := range in.Plan.Components {
		cp := &in.Plan.Components[ci]
		ws := make([]model.WorkerRecord, cp.Placements.Len())
		for j := range ws {
			p, node, err := in.worker(ci, j)
			if err != nil {
				return nil, err
			}
			ws[j] = model.WorkerRecord{Placement: *p, Hostname: node.Hostname, Env: in.Workers.EnvOf(cp, p)}
		}
		pr.Components = append(pr.Components, model.ComponentRecords{Name: cp.Name, Workers: ws})
	}
	return pr, nil
}
