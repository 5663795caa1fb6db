package strategies

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rlsolve/rlsolve/model"
)

// SlimeDocument is `rlsolve plan --slime ... --output json`: the same shape
// as an RLinf plan (components -> placements with RLinf's field names, env,
// hostname, ip), each record with its stable bundles and fractional GPU
// request, rollout records with their SGLang engine and ports, and a
// top-level `slime` section with the bundle layout and the port plan.
type SlimeDocument struct {
	FormatVersion string                       `json:"format_version" yaml:"format_version"`
	PlacementMode string                       `json:"placement_mode" yaml:"placement_mode"`
	Inventory     DocInventory                 `json:"inventory" yaml:"inventory"`
	Components    map[string]SlimeDocComponent `json:"components" yaml:"components"`
	Order         []string                     `json:"component_order" yaml:"component_order"`
	Slime         SlimeDocLayout               `json:"slime" yaml:"slime"`
	Diagnostics   any                          `json:"diagnostics" yaml:"diagnostics"`
}

// SlimeDocComponent is DocComponent with slime's records.
type SlimeDocComponent struct {
	DocComponent `yaml:",inline"`
	Placements   []SlimeDocPlacement `json:"placements" yaml:"placements"`
}

// SlimeDocPlacement is DocPlacement plus the worker's bundles and request.
type SlimeDocPlacement struct {
	DocPlacement `yaml:",inline"`
	// Bundles are the stable bundle indices the worker runs on.
	Bundles []int `json:"bundles" yaml:"bundles"`
	// GPUFraction is Ray's fractional GPU request: bookkeeping, not memory.
	GPUFraction float64         `json:"gpu_fraction" yaml:"gpu_fraction"`
	SGLang      *SlimeDocSGLang `json:"sglang,omitempty" yaml:"sglang,omitempty"`
}

// SlimeDocSGLang is what one rollout worker's SGLang server is given.
type SlimeDocSGLang struct {
	Engine        int    `json:"engine" yaml:"engine"`
	WorkerType    string `json:"worker_type" yaml:"worker_type"`
	NodeRank      int    `json:"node_rank" yaml:"node_rank"`
	NNodes        int    `json:"nnodes" yaml:"nnodes"`
	BaseGPUID     int    `json:"base_gpu_id" yaml:"base_gpu_id"`
	TPSize        int    `json:"tp_size" yaml:"tp_size"`
	DPSize        int    `json:"dp_size" yaml:"dp_size"`
	Port          int    `json:"port" yaml:"port"`
	NCCLPort      int    `json:"nccl_port" yaml:"nccl_port"`
	BootstrapPort int    `json:"bootstrap_port,omitempty" yaml:"bootstrap_port,omitempty"`
	DistInitAddr  string `json:"dist_init_addr,omitempty" yaml:"dist_init_addr,omitempty"`
	DistInitPorts [2]int `json:"dist_init_ports" yaml:"dist_init_ports"`
}

// SlimeDocLayout is the placement group and the port plan.
type SlimeDocLayout struct {
	Mode            string             `json:"mode" yaml:"mode"`
	Flags           map[string]any     `json:"flags" yaml:"flags"`
	Bundles         int                `json:"bundles" yaml:"bundles"`
	BundleResources map[string]int     `json:"bundle_resources" yaml:"bundle_resources"`
	RolloutOffset   int                `json:"rollout_offset" yaml:"rollout_offset"`
	ActorGPUs       int                `json:"actor_gpus" yaml:"actor_gpus"`
	RolloutGPUs     int                `json:"rollout_gpus" yaml:"rollout_gpus"`
	GPUsPerEngine   int                `json:"gpus_per_engine" yaml:"gpus_per_engine"`
	GPUFraction     map[string]float64 `json:"gpu_fraction" yaml:"gpu_fraction"`
	StableOrder     []SlimeDocNode     `json:"stable_order" yaml:"stable_order"`
	Engines         []SlimeDocEngine   `json:"engines" yaml:"engines"`
	Ports           []SlimeDocNodePort `json:"ports" yaml:"ports"`
}

// SlimeDocNode is one node of the stable order and the bundles it holds.
type SlimeDocNode struct {
	ClusterNodeRank int    `json:"cluster_node_rank" yaml:"cluster_node_rank"`
	Hostname        string `json:"hostname,omitempty" yaml:"hostname,omitempty"`
	IP              string `json:"ip,omitempty" yaml:"ip,omitempty"`
	GPUs            []int  `json:"gpus" yaml:"gpus"`
	// Bundles is [first, last] of the placement group's bundles on the
	// node; absent when the group does not use it.
	Bundles []int `json:"bundles,omitempty" yaml:"bundles,omitempty"`
}

// SlimeDocEngine is one SGLang engine.
type SlimeDocEngine struct {
	Engine        int    `json:"engine" yaml:"engine"`
	WorkerType    string `json:"worker_type" yaml:"worker_type"`
	Workers       []int  `json:"workers" yaml:"workers"`
	Bundles       []int  `json:"bundles" yaml:"bundles"`
	Nodes         []int  `json:"nodes" yaml:"nodes"`
	BaseGPUID     int    `json:"base_gpu_id" yaml:"base_gpu_id"`
	Port          int    `json:"port" yaml:"port"`
	NCCLPort      int    `json:"nccl_port" yaml:"nccl_port"`
	DistInitAddr  string `json:"dist_init_addr,omitempty" yaml:"dist_init_addr,omitempty"`
	DistInitPorts [2]int `json:"dist_init_ports" yaml:"dist_init_ports"`
}

// SlimeDocNodePort is one node's port plan.
type SlimeDocNodePort struct {
	ClusterNodeRank int                 `json:"cluster_node_rank" yaml:"cluster_node_rank"`
	Address         string              `json:"address,omitempty" yaml:"address,omitempty"`
	Blocks          []SlimeDocPortBlock `json:"blocks" yaml:"blocks"`
}

// SlimeDocPortBlock is a run of ports of one engine.
type SlimeDocPortBlock struct {
	Engine int    `json:"engine" yaml:"engine"`
	Kind   string `json:"kind" yaml:"kind"`
	First  int    `json:"first" yaml:"first"`
	Last   int    `json:"last" yaml:"last"`
}

// NewDocument builds the plan document; diagnostics is the rendered list.
func (r *SlimeResult) NewDocument(inv *model.Inventory, diagnostics any) *SlimeDocument {
	t, l, s := r.Topology, r.Layout, r.Settings
	doc := &SlimeDocument{FormatVersion: "1", PlacementMode: string(r.Plan.Mode), Components: map[string]SlimeDocComponent{},
		Diagnostics: diagnostics, Inventory: DocInventory{Source: inv.Source, Assumed: inv.Assumed, Nodes: len(t.Nodes)}}
	flags := map[string]any{}
	for k, info := range model.SlimeKeys {
		v := r.Config.Values[k]
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
	if _, ok := flags["rollout_num_gpus"]; !ok && s.Rollout() > 0 {
		flags["rollout_num_gpus"] = s.Rollout()
	}
	doc.Slime = SlimeDocLayout{Mode: string(l.Mode), Flags: flags, Bundles: l.NumBundles, BundleResources: map[string]int{"GPU": 1, "CPU": 1},
		RolloutOffset: l.RolloutOffset, ActorGPUs: 0, RolloutGPUs: s.Rollout(), GPUsPerEngine: s.GPUsPerEngine,
		GPUFraction: map[string]float64{}, StableOrder: []SlimeDocNode{}, Engines: []SlimeDocEngine{}, Ports: []SlimeDocNodePort{}}
	if s.HasActor() {
		doc.Slime.ActorGPUs = s.ActorGPUs()
		doc.Slime.GPUFraction["actor"] = model.SlimeActorGPUFraction
	}
	if len(l.Engines) > 0 {
		doc.Slime.GPUFraction["rollout"] = model.SlimeRolloutGPUFraction
	} else {
		doc.Slime.RolloutGPUs, doc.Slime.GPUsPerEngine = 0, 0
	}
	for pos := range t.Order {
		n := t.Node(pos)
		dn := SlimeDocNode{ClusterNodeRank: t.Order[pos], Hostname: n.Hostname, IP: n.IP, GPUs: make([]int, n.AccelCount)}
		for i := range dn.GPUs {
			dn.GPUs[i] = t.GPUID(pos, i)
		}
		a, b := t.NodeRange(pos)
		if a < l.NumBundles && a < b {
			dn.Bundles = []int{a, min(b, l.NumBundles) - 1}
		}
		doc.Slime.StableOrder = append(doc.Slime.StableOrder, dn)
	}
	portsAt := map[int]int{}
	for _, pb := range l.Ports {
		i, ok := portsAt[pb.Pos]
		if !ok {
			i = len(doc.Slime.Ports)
			portsAt[pb.Pos] = i
			doc.Slime.Ports = append(doc.Slime.Ports, SlimeDocNodePort{ClusterNodeRank: pb.Node, Address: t.Node(pb.Pos).Address()})
		}
		doc.Slime.Ports[i].Blocks = append(doc.Slime.Ports[i].Blocks, SlimeDocPortBlock{Engine: pb.Engine, Kind: pb.Kind, First: pb.First, Last: pb.Last})
	}
	var sglang []*SlimeDocSGLang // by rollout rank
	for _, e := range l.Engines {
		de := SlimeDocEngine{Engine: e.Index, WorkerType: e.WorkerType, BaseGPUID: e.Parts[0].GPUs[0], Port: e.HTTPPort, NCCLPort: e.NCCLPort,
			DistInitAddr: e.DistInitAddr, DistInitPorts: [2]int{e.DistFirst, e.DistLast}}
		for i, p := range e.Parts {
			de.Workers = append(de.Workers, p.Rank)
			de.Bundles = append(de.Bundles, p.Bundles...)
			de.Nodes = append(de.Nodes, p.Node)
			sglang = append(sglang, &SlimeDocSGLang{Engine: e.Index, WorkerType: e.WorkerType, NodeRank: i, NNodes: len(e.Parts), BaseGPUID: p.GPUs[0],
				TPSize: s.GPUsPerEngine, DPSize: s.DPSize, Port: p.HTTPPort, NCCLPort: p.NCCLPort, BootstrapPort: p.BootstrapPort,
				DistInitAddr: e.DistInitAddr, DistInitPorts: [2]int{e.DistFirst, e.DistLast}})
		}
		doc.Slime.Engines = append(doc.Slime.Engines, de)
	}
	for ci := range r.Plan.Components {
		cp := &r.Plan.Components[ci]
		dc := SlimeDocComponent{DocComponent: DocComponent{WorldSize: len(cp.Placements), RLinfWorldSize: cp.RankMapWorldSize,
			NodeGroups: cp.NodeGroups, Strategy: DocStrategy{Kind: string(cp.Strategy.Kind)}}}
		master := t.Nodes[cp.Placements[0].ClusterNodeRank].Address()
		for j, p := range cp.Placements {
			node := &t.Nodes[p.ClusterNodeRank]
			dp := SlimeDocPlacement{DocPlacement: DocPlacement{Placement: p, Hostname: node.Hostname, IP: node.IP}}
			if cp.Name == "actor" {
				dp.Bundles = []int{cp.HardwareRanks[j]}
				dp.GPUFraction = model.SlimeActorGPUFraction
				dp.Env = slimeActorEnv(p, len(cp.Placements), master)
			} else {
				dp.SGLang = sglang[j]
				dp.Bundles = l.Engines[dp.SGLang.Engine].Parts[dp.SGLang.NodeRank].Bundles
				dp.GPUFraction = model.SlimeRolloutGPUFraction
				dp.Env = slimeEngineEnv(p)
			}
			dp.GPUUUIDs = gpuUUIDs(node, p.LocalHardwareRanks)
			dc.Placements = append(dc.Placements, dp)
		}
		doc.Components[cp.Name] = dc
		doc.Order = append(doc.Order, cp.Name)
	}
	return doc
}

func gpuUUIDs(node *model.Node, ids []int) []string {
	var out []string
	for _, h := range ids {
		for _, dv := range node.Devices {
			if dv.Index == h && dv.UUID != "" {
				out = append(out, dv.UUID)
			}
		}
	}
	return out
}

// slimeActorEnv is what a training actor's process gets that a plan can
// know: its rank, the world size, the device Ray assigns from its bundle,
// and the rank-0 node's address (MASTER_PORT is chosen at launch).
func slimeActorEnv(p model.Placement, world int, master string) map[string]string {
	env := map[string]string{
		"RANK":              strconv.Itoa(p.Rank),
		"WORLD_SIZE":        strconv.Itoa(world),
		"LOCAL_RANK":        "0",
		"NCCL_CUMEM_ENABLE": "0",
	}
	if master != "" {
		env["MASTER_ADDR"] = master
	}
	if names, ok := accelVars[p.AcceleratorType]; ok {
		env[names[0]] = strings.Join(p.VisibleAccelerators, ",")
	}
	return env
}

// slimeEngineEnv is a rollout engine's: slime tells Ray not to set the
// visible devices, and SGLang picks its GPUs from base_gpu_id.
func slimeEngineEnv(p model.Placement) map[string]string {
	env := map[string]string{}
	if names, ok := accelVars[p.AcceleratorType]; ok {
		for _, k := range names[1:] {
			env[k] = "1"
		}
	}
	return env
}

// Env is one worker's environment, for `plan --output env`.
func (d *SlimeDocument) Env(component string, rank int) (map[string]string, error) {
	c, ok := d.Components[component]
	if !ok {
		return nil, fmt.Errorf("--output env needs --component NAME (one of %v)", d.Order)
	}
	if rank < 0 || rank >= len(c.Placements) {
		return nil, fmt.Errorf("--rank must be between 0 and %d for %s", len(c.Placements)-1, component)
	}
	return c.Placements[rank].Env, nil
}

// WriteTable prints the slime plan for people: the layout, then one table
// per component.
func (r *SlimeResult) WriteTable(w io.Writer) {
	l, s, t := r.Layout, r.Settings, r.Topology
	fmt.Fprintf(w, "placement mode: %s (slime %s): %d bundles {GPU: 1, CPU: 1}, rollout offset %d\n", r.Plan.Mode, l.Mode, l.NumBundles, l.RolloutOffset)
	host := func(node int) string {
		n := &t.Nodes[node]
		if n.Hostname != "" {
			return n.Hostname
		}
		return orDash(n.IP)
	}
	for ci := range r.Plan.Components {
		cp := &r.Plan.Components[ci]
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		if cp.Name == "actor" {
			fmt.Fprintf(w, "\nactor: %d worker(s), %g GPU of one bundle each\n", len(cp.Placements), model.SlimeActorGPUFraction)
			fmt.Fprintln(tw, "  RANK\tNODE\tHOST\tBUNDLE\tGPU\tLOCAL")
			for j, p := range cp.Placements {
				fmt.Fprintf(tw, "  %d\t%d\t%s\t%d\t%d\t%d/%d\n", p.Rank, p.ClusterNodeRank, host(p.ClusterNodeRank), cp.HardwareRanks[j], p.LocalAcceleratorRank, p.LocalRank, p.LocalWorldSize)
			}
			tw.Flush()
			continue
		}
		fmt.Fprintf(w, "\nrollout: %d engine(s) x %d GPUs (%d worker(s)), %g GPU of each bundle; dp size %d\n", len(l.Engines), s.GPUsPerEngine, len(cp.Placements), model.SlimeRolloutGPUFraction, s.DPSize)
		pd := s.PrefillSet // prefill/decode: show each engine's type and bootstrap port
		head := "  RANK\tENGINE\tNODE\tHOST\tBUNDLES\tGPUS\tPORT\tNCCL\tDIST_INIT"
		if pd {
			head = "  RANK\tENGINE\tTYPE\tNODE\tHOST\tBUNDLES\tGPUS\tPORT\tNCCL\tBOOTSTRAP\tDIST_INIT"
		}
		fmt.Fprintln(tw, head)
		for _, e := range l.Engines {
			for _, p := range e.Parts {
				dist := e.DistInitAddr
				if dist == "" {
					dist = fmt.Sprintf("node %d:%d", e.Parts[0].Node, e.DistFirst)
				}
				dist = fmt.Sprintf("%s (%d-%d)", dist, e.DistFirst, e.DistLast)
				if pd {
					fmt.Fprintf(tw, "  %d\t%d\t%s\t%d\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", p.Rank, e.Index, e.WorkerType, p.Node, host(p.Node), intsText(p.Bundles), intsText(p.GPUs),
						p.HTTPPort, p.NCCLPort, orDash(portText(p.BootstrapPort)), dist)
					continue
				}
				fmt.Fprintf(tw, "  %d\t%d\t%d\t%s\t%s\t%s\t%d\t%d\t%s\n", p.Rank, e.Index, p.Node, host(p.Node), intsText(p.Bundles), intsText(p.GPUs),
					p.HTTPPort, p.NCCLPort, dist)
			}
		}
		tw.Flush()
	}
}

func portText(p int) string {
	if p == 0 {
		return ""
	}
	return strconv.Itoa(p)
}

func intsText(xs []int) string {
	if len(xs) > 1 && xs[len(xs)-1]-xs[0] == len(xs)-1 {
		return fmt.Sprintf("%d-%d", xs[0], xs[len(xs)-1])
	}
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ",")
}
