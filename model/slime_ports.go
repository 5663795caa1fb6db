package model

// slime's engines and ports (slime.md, "Ports"): the rollout's GPUs form
// server groups (one regular group, or a prefill and a decode group with
// --prefill-num-servers); each group's engines are Ray actors of
// min(gpus_per_engine, num_gpus_per_node) GPUs ("workers", one per engine
// and node); and slime's _allocate_rollout_engine_addr_and_ports_normal
// gives them ports node by node.

// Server group worker types.
const (
	SlimeRegular = "regular"
	SlimePrefill = "prefill"
	SlimeDecode  = "decode"
)

// SlimeServerGroup is one of slime's server groups.
type SlimeServerGroup struct {
	WorkerType string
	// GPUs is the group's GPU count, GPUOffset its first GPU in the
	// rollout's bundles.
	GPUs, GPUOffset int
	// Workers is its worker count; RankOffset the first worker's rank
	// among all rollout workers.
	Workers, RankOffset int
}

// WorkerGPUs is the GPUs of one worker: min(gpus_per_engine,
// num_gpus_per_node).
func (s SlimeSettings) WorkerGPUs() int { return max(1, min(s.GPUsPerEngine, s.NumGPUsPerNode)) }

// NodesPerEngine is max(1, gpus_per_engine // num_gpus_per_node): the
// workers (SGLang nodes, nnodes) of one engine.
func (s SlimeSettings) NodesPerEngine() int {
	return max(1, s.GPUsPerEngine/max(1, s.NumGPUsPerNode))
}

// EnginesPerNode is max(1, num_gpus_per_node // gpus_per_engine): how
// many engines slime serves ports for on a node.
func (s SlimeSettings) EnginesPerNode() int {
	return max(1, s.NumGPUsPerNode/max(1, s.GPUsPerEngine))
}

// DistBlock is the size of a dist_init_addr port block: 30 + dp_size.
func (s SlimeSettings) DistBlock() int { return SlimeDistInitBlockBase + s.DPSize }

// PrefillGPUs is --prefill-num-servers x --rollout-num-gpus-per-engine.
func (s SlimeSettings) PrefillGPUs() int { return s.PrefillServers * s.GPUsPerEngine }

// PrefillLeavesNoDecode reports that --prefill-num-servers takes every
// rollout GPU (slime asserts that decode GPUs remain).
func (s SlimeSettings) PrefillLeavesNoDecode() bool {
	return s.PrefillSet && s.Rollout() > 0 && !s.SGLangConfig && s.PrefillGPUs() >= s.Rollout()
}

// ServerGroups are the rollout's server groups (_resolve_sglang_config):
// none without local engines or when --sglang-config defines them.
func (s SlimeSettings) ServerGroups() []SlimeServerGroup {
	r, c := s.Rollout(), s.WorkerGPUs()
	if s.Engines() == 0 {
		return nil
	}
	if !s.PrefillSet || s.PrefillLeavesNoDecode() {
		return []SlimeServerGroup{{WorkerType: SlimeRegular, GPUs: r, Workers: r / c}}
	}
	p := s.PrefillGPUs()
	return []SlimeServerGroup{
		{WorkerType: SlimePrefill, GPUs: p, Workers: p / c},
		{WorkerType: SlimeDecode, GPUs: r - p, GPUOffset: p, Workers: (r - p) / c, RankOffset: p / c},
	}
}

// FixedPorts is what each engine served on a node takes before the
// dist_init_addr blocks: HTTP and NCCL, and a prefill engine's bootstrap
// port.
func (g SlimeServerGroup) FixedPorts() int {
	if g.WorkerType == SlimePrefill {
		return SlimePortsPerEngineFixedPart + 1
	}
	return SlimePortsPerEngineFixedPart
}

// SlimeNodePorts is what one server group takes on one node.
type SlimeNodePorts struct {
	Pos, Group int
	// First is the group-local rank of the node's first worker, Count the
	// workers starting on the node.
	First, Count int
	// Served is how many engines slime allocates ports for:
	// engines_per_node - First mod engines_per_node, counted from the
	// flags, so possibly more than exist (at least Count).
	Served int
	// Base is the group's first port; Dist the first dist_init_addr
	// block's, Blocks their number; End the port after the last one.
	Base, Dist, Blocks, End int
}

// PortPlan walks slime's port allocation in O(groups x nodes), calling f
// for each node a group's workers start on, in slime's order, until f
// returns false. Each group starts every node at the highest port the
// previous group reached (15000 for the first); on a node, every served
// engine takes its HTTP and NCCL ports (and a prefill engine its
// bootstrap port), then each takes its dist_init_addr block; an engine
// spanning nodes takes one block, on its first node. The node of a worker
// is the stable order's, never slime's rank arithmetic.
func (t *SlimeTopology) PortPlan(s SlimeSettings, f func(SlimeNodePorts) bool) {
	_, off := s.Bundles()
	c, epn, npe := s.WorkerGPUs(), s.EnginesPerNode(), s.NodesPerEngine()
	base := SlimePortStart
	for gi, g := range s.ServerGroups() {
		first := off + g.GPUOffset
		next := base
		for pos := range t.Order {
			a, b := t.NodeRange(pos)
			lo, hi := min(ceilDiv(a-first, c), g.Workers), min(ceilDiv(b-first, c), g.Workers)
			if hi <= lo {
				continue
			}
			np := SlimeNodePorts{Pos: pos, Group: gi, First: lo, Count: hi - lo, Base: base}
			np.Served = max(epn-lo%epn, np.Count)
			np.Dist = base + np.Served*g.FixedPorts()
			np.Blocks = np.Served
			if npe > 1 {
				np.Blocks = ceilDiv(hi, npe) - ceilDiv(lo, npe) // workers w with w % npe == 0
			}
			np.End = np.Dist + np.Blocks*s.DistBlock()
			next = max(next, np.End)
			if !f(np) {
				return
			}
		}
		base = next
	}
}

func ceilDiv(x, d int) int {
	if x <= 0 {
		return 0
	}
	return (x + d - 1) / d
}

// SlimeBundle is one stable bundle: where its GPU is.
type SlimeBundle struct {
	Index int
	// Node is the index into the inventory's nodes; Pos the stable position.
	Node, Pos int
	GPU       int
}

// SlimeEnginePart is one worker: an engine's GPUs on one node (one Ray
// actor of slime's; an engine spanning whole nodes has one per node),
// with the ports it takes on its node.
type SlimeEnginePart struct {
	Node, Pos int
	Bundles   []int
	GPUs      []int
	// Rank is the worker's rank in the rollout component.
	Rank int
	// HTTPPort and NCCLPort are on the worker's node; BootstrapPort
	// (prefill workers only, else 0) too.
	HTTPPort, NCCLPort, BootstrapPort int
}

// SlimeEngine is one SGLang engine with its ports.
type SlimeEngine struct {
	Index int
	// WorkerType is its server group's: regular, prefill or decode.
	WorkerType string
	Parts      []SlimeEnginePart
	// HTTPPort and NCCLPort are the first worker's; the dist_init_addr
	// block [DistFirst, DistLast] is on the first worker's node.
	HTTPPort, NCCLPort, DistFirst, DistLast int
	// DistInitAddr is "address:DistFirst" (the address is "" when the
	// inventory knows none).
	DistInitAddr string
}

// SlimePortBlock is a run of ports an engine takes on a node.
type SlimePortBlock struct {
	Node, Pos   int
	Engine      int
	Kind        string // "http", "nccl", "bootstrap", "dist_init"
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
