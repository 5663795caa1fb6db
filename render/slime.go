package render

import (
	"fmt"

	"github.com/rlsolve/rlsolve/model"
)

// A slime plan's document (`rlsolve plan --slime ... --output json`) has
// the RLinf plan's shape (components -> placements with RLinf's field
// names, env, hostname, ip); each record adds its stable bundles and
// fractional GPU request, rollout records their SGLang engine and ports,
// and a top-level `slime` section holds the bundle layout and port plan.

// SlimeRecord is what a slime worker's record adds.
type SlimeRecord struct {
	// Bundles are the stable bundle indices the worker runs on.
	Bundles []int `json:"bundles"`
	// GPUFraction is Ray's fractional GPU request: bookkeeping, not memory.
	GPUFraction float64      `json:"gpu_fraction"`
	SGLang      *SlimeSGLang `json:"sglang,omitempty"`
}

// SlimeSGLang is what one rollout worker's SGLang server is given.
type SlimeSGLang struct {
	Engine        int    `json:"engine"`
	WorkerType    string `json:"worker_type"`
	NodeRank      int    `json:"node_rank"`
	NNodes        int    `json:"nnodes"`
	BaseGPUID     int    `json:"base_gpu_id"`
	TPSize        int    `json:"tp_size"`
	DPSize        int    `json:"dp_size"`
	Port          int    `json:"port"`
	NCCLPort      int    `json:"nccl_port"`
	BootstrapPort int    `json:"bootstrap_port,omitempty"`
	DistInitAddr  string `json:"dist_init_addr,omitempty"`
	DistInitPorts [2]int `json:"dist_init_ports"`
}

// SlimeLayout is the placement group and the port plan.
type SlimeLayout struct {
	Mode            string             `json:"mode"`
	Flags           map[string]any     `json:"flags"`
	Bundles         int                `json:"bundles"`
	BundleResources map[string]int     `json:"bundle_resources"`
	RolloutOffset   int                `json:"rollout_offset"`
	ActorGPUs       int                `json:"actor_gpus"`
	RolloutGPUs     int                `json:"rollout_gpus"`
	GPUsPerEngine   int                `json:"gpus_per_engine"`
	GPUFraction     map[string]float64 `json:"gpu_fraction"`
	StableOrder     []SlimeNode        `json:"stable_order"`
	Engines         []SlimeEngine      `json:"engines"`
	Ports           []SlimeNodePorts   `json:"ports"`
}

// SlimeNode is one node of the stable order and the bundles it holds.
type SlimeNode struct {
	ClusterNodeRank int    `json:"cluster_node_rank"`
	Hostname        string `json:"hostname,omitempty"`
	IP              string `json:"ip,omitempty"`
	GPUs            []int  `json:"gpus"`
	// Bundles is [first, last] of the placement group's bundles on the
	// node; absent when the group does not use it.
	Bundles []int `json:"bundles,omitempty"`
}

// SlimeEngine is one SGLang engine.
type SlimeEngine struct {
	Engine        int    `json:"engine"`
	WorkerType    string `json:"worker_type"`
	Workers       []int  `json:"workers"`
	Bundles       []int  `json:"bundles"`
	Nodes         []int  `json:"nodes"`
	BaseGPUID     int    `json:"base_gpu_id"`
	Port          int    `json:"port"`
	NCCLPort      int    `json:"nccl_port"`
	DistInitAddr  string `json:"dist_init_addr,omitempty"`
	DistInitPorts [2]int `json:"dist_init_ports"`
}

// SlimeNodePorts is one node's port plan.
type SlimeNodePorts struct {
	ClusterNodeRank int              `json:"cluster_node_rank"`
	Address         string           `json:"address,omitempty"`
	Blocks          []SlimePortBlock `json:"blocks"`
}

// SlimePortBlock is a run of ports of one engine.
type SlimePortBlock struct {
	Engine int    `json:"engine"`
	Kind   string `json:"kind"`
	First  int    `json:"first"`
	Last   int    `json:"last"`
}

// layout is the document's `slime` section: per node and per engine, not
// per worker.
func (s *Slime) layout(in *Input) (*SlimeLayout, error) {
	t, l, st := s.Topology, s.Layout, s.Settings
	if t == nil || l == nil || s.Config == nil {
		return nil, fmt.Errorf("render: a slime plan without its layout")
	}
	out := &SlimeLayout{Mode: string(l.Mode), Flags: s.flags(), Bundles: l.NumBundles, BundleResources: map[string]int{"GPU": 1, "CPU": 1},
		RolloutOffset: l.RolloutOffset, RolloutGPUs: st.Rollout(), GPUsPerEngine: st.GPUsPerEngine,
		GPUFraction: map[string]float64{}, StableOrder: []SlimeNode{}, Engines: []SlimeEngine{}, Ports: []SlimeNodePorts{}}
	if st.HasActor() {
		out.ActorGPUs = st.ActorGPUs()
		out.GPUFraction["actor"] = model.SlimeActorGPUFraction
	}
	if len(l.Engines) > 0 {
		out.GPUFraction["rollout"] = model.SlimeRolloutGPUFraction
	} else {
		out.RolloutGPUs, out.GPUsPerEngine = 0, 0
	}
	for pos := range t.Order {
		n := t.Node(pos)
		dn := SlimeNode{ClusterNodeRank: t.Order[pos], Hostname: n.Hostname, IP: n.IP, GPUs: make([]int, n.AccelCount)}
		for i := range dn.GPUs {
			dn.GPUs[i] = t.GPUID(pos, i)
		}
		a, b := t.NodeRange(pos)
		if a < l.NumBundles && a < b {
			dn.Bundles = []int{a, min(b, l.NumBundles) - 1}
		}
		out.StableOrder = append(out.StableOrder, dn)
	}
	portsAt := map[int]int{}
	for _, pb := range l.Ports {
		i, ok := portsAt[pb.Pos]
		if !ok {
			i = len(out.Ports)
			portsAt[pb.Pos] = i
			out.Ports = append(out.Ports, SlimeNodePorts{ClusterNodeRank: pb.Node, Address: t.Node(pb.Pos).Address()})
		}
		out.Ports[i].Blocks = append(out.Ports[i].Blocks, SlimePortBlock{Engine: pb.Engine, Kind: pb.Kind, First: pb.First, Last: pb.Last})
	}
	for _, e := range l.Engines {
		de := SlimeEngine{Engine: e.Index, WorkerType: e.WorkerType, BaseGPUID: e.Parts[0].GPUs[0], Port: e.HTTPPort, NCCLPort: e.NCCLPort,
			DistInitAddr: e.DistInitAddr, DistInitPorts: [2]int{e.DistFirst, e.DistLast}}
		for _, p := range e.Parts {
			de.Workers = append(de.Workers, p.Rank)
			de.Bundles = append(de.Bundles, p.Bundles...)
			de.Nodes = append(de.Nodes, p.Node)
		}
		out.Engines = append(out.Engines, de)
	}
	return out, nil
}

// flags are the layout's slime flags with their values or defaults.
func (s *Slime) flags() map[string]any {
	flags := map[string]any{}
	for k, info := range model.SlimeKeys {
		v := s.Config.Values[k]
		switch {
		case info.Bool:
			flags[info.Key] = v.Set && v.Value != 0
		case info.Text && v.Set && v.Arg == "":
			flags[info.Key] = true
		case info.Text && v.Set:
			flags[info.Key] = v.Arg
		case info.Text:
		case v.Set:
			flags[info.Key] = v.Value
		case info.HasDefault:
			flags[info.Key] = info.Default
		}
	}
	if _, ok := flags["rollout_num_gpus"]; !ok && s.Settings.Rollout() > 0 {
		flags["rollout_num_gpus"] = s.Settings.Rollout()
	}
	return flags
}

// engineCursor is the engine part of the rollout worker last asked for:
// rollout rank k is the k-th part of the engines in order.
type engineCursor struct {
	rank, engine, part int
}

// find moves the cursor to rollout rank j (forward from where it is, or
// from the start) and reports whether that worker has a part.
func (c *engineCursor) find(engines []model.SlimeEngine, j int) bool {
	if j < c.rank {
		*c = engineCursor{}
	}
	for c.engine < len(engines) {
		switch {
		case c.part >= len(engines[c.engine].Parts):
			c.engine, c.part = c.engine+1, 0
		case c.rank == j:
			return true
		default:
			c.rank, c.part = c.rank+1, c.part+1
		}
	}
	return false
}

// slimeRecord fills the recorder's slime fields for worker j of cp.
func (r *recorder) slimeRecord(in *Input, cp *model.ComponentPlan, j int) error {
	l, s := in.Slime.Layout, in.Slime.Settings
	rec := &r.slime
	if cp.Name == "actor" {
		if j >= len(cp.HardwareRanks) {
			return fmt.Errorf("render: slime actor worker %d has no bundle", j)
		}
		*rec = SlimeRecord{Bundles: []int{cp.HardwareRanks[j]}, GPUFraction: model.SlimeActorGPUFraction}
		return nil
	}
	if !r.cursor.find(l.Engines, j) {
		return fmt.Errorf("render: slime rollout worker %d is in no engine", j)
	}
	e := &l.Engines[r.cursor.engine]
	p := &e.Parts[r.cursor.part]
	*rec = SlimeRecord{Bundles: p.Bundles, GPUFraction: model.SlimeRolloutGPUFraction, SGLang: &SlimeSGLang{Engine: e.Index, WorkerType: e.WorkerType,
		NodeRank: r.cursor.part, NNodes: len(e.Parts), BaseGPUID: p.GPUs[0], TPSize: s.GPUsPerEngine, DPSize: s.DPSize, Port: p.HTTPPort, NCCLPort: p.NCCLPort,
		BootstrapPort: p.BootstrapPort, DistInitAddr: e.DistInitAddr, DistInitPorts: [2]int{e.DistFirst, e.DistLast}}}
	return nil
}
