package strategies

import (
	"slices"
	"strconv"

	"github.com/rlsolve/rlsolve/model"
)

// accelVars are the accelerator-specific variables RLinf sets per
// accelerator type (semantics §6.3): the visible-devices variable and the
// Ray switches that stop Ray from overriding it.
var accelVars = map[string][]string{
	"NV_GPU":     {"CUDA_VISIBLE_DEVICES", "RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES"},
	"AMD_GPU":    {"HIP_VISIBLE_DEVICES", "RAY_EXPERIMENTAL_NOSET_ROCR_VISIBLE_DEVICES", "RAY_EXPERIMENTAL_NOSET_HIP_VISIBLE_DEVICES"},
	"NPU":        {"ASCEND_RT_VISIBLE_DEVICES", "RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES"},
	"INTEL_GPU":  {"ONEAPI_DEVICE_SELECTOR", "RAY_EXPERIMENTAL_NOSET_ONEAPI_DEVICE_SELECTOR"},
	"KUNLUN_XPU": {"CUDA_VISIBLE_DEVICES", "RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES"},
	"MUSA_GPU":   {"MUSA_VISIBLE_DEVICES", "RAY_EXPERIMENTAL_NOSET_MUSA_VISIBLE_DEVICES"},
}

// Env returns the environment worker i of a component gets (semantics
// §6.3): its group's env_configs variables, then the WorkerGroup variables
// (which win), then what Worker.__init__ derives. MASTER_ADDR is set when
// the inventory knows the rank-0 node's address; MASTER_PORT is chosen at
// launch and is not part of the plan.
func (c *Cluster) Env(cp *model.ComponentPlan, i int) map[string]string {
	p := cp.Placements.At(i)
	return c.EnvOf(cp, &p)
}

// EnvOf is Env of worker p of cp, for a caller that has read the worker
// already (a plan written as a stream reads each worker once).
func (c *Cluster) EnvOf(cp *model.ComponentPlan, p *model.Placement) map[string]string {
	group := c.groupEnvVars(p.NodeGroupLabel, p.ClusterNodeRank)
	addr := c.NodeAddress(cp.Placements.Node(0))
	names, accel := accelVars[p.AcceleratorType]
	v := formatWorkerValues(cp, p, &c.Nodes[p.ClusterNodeRank])

	env := make(map[string]string, envSize(p, len(group), len(names), accel, addr != ""))
	// Group variables first: the WorkerGroup variables set after them win.
	for _, g := range group {
		env[g.Key] = g.Value
	}
	setWorkerGroupVars(env, cp.Name, addr, p, &v)
	if accel {
		setAcceleratorVars(env, p, names, v.visible)
	}
	setWorkerInitVars(env, p.IsolateAccelerator, &v)
	return env
}

// workerValues are the values Env computes per worker, all substrings of
// one string: one allocation per worker instead of one per value, which
// matters for plans of a million workers.
type workerValues struct {
	worker, worldSize, rank, nodeRank, clusterNodeRank, localAccelRank,
	localRank, localWorldSize, visible, accelModel, hardwareRanks string
}

// formatWorkerValues writes worker p's values into one buffer and cuts
// them out of the one string made from it.
func formatWorkerValues(cp *model.ComponentPlan, p *model.Placement, node *model.Node) workerValues {
	buf := make([]byte, 0, 128)
	var ends [12]int // value j is all[ends[j]:ends[j+1]]
	buf = append(buf, cp.Name...)
	buf = append(buf, ':')
	buf = strconv.AppendInt(buf, int64(p.Rank), 10)
	ends[1] = len(buf)
	for j, n := range [...]int{cp.Placements.Len(), p.Rank, p.PlacementNodeRank, p.ClusterNodeRank,
		p.LocalAcceleratorRank, p.LocalRank, p.LocalWorldSize} {
		buf = strconv.AppendInt(buf, int64(n), 10)
		ends[j+2] = len(buf)
	}
	for j, s := range p.VisibleAccelerators {
		if j > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, s...)
	}
	ends[9] = len(buf)
	buf = append(buf, node.AcceleratorModel()...)
	ends[10] = len(buf)
	for j, h := range p.LocalHardwareRanks {
		if j > 0 {
			buf = append(buf, ',')
		}
		buf = strconv.AppendInt(buf, int64(h), 10)
	}
	ends[11] = len(buf)
	all := string(buf)
	cut := func(j int) string { return all[ends[j]:ends[j+1]] }
	return workerValues{worker: cut(0), worldSize: cut(1), rank: cut(2), nodeRank: cut(3),
		clusterNodeRank: cut(4), localAccelRank: cut(5), localRank: cut(6), localWorldSize: cut(7),
		visible: cut(8), accelModel: cut(9), hardwareRanks: cut(10)}
}

// envSize is exactly the number of keys Env sets (group variables may
// repeat some), so that its map is allocated once at the right size.
func envSize(p *model.Placement, group, accelNames int, accel, hasAddr bool) int {
	n := 20 + group + accelNames
	if hasAddr {
		n++
	}
	if accel && p.AcceleratorType == model.AccelNVGPU {
		n++
		if len(p.VisibleAccelerators) > 0 {
			n += 2
		}
	}
	return n
}

// setWorkerGroupVars sets the variables RLinf's WorkerGroup passes every
// worker.
func setWorkerGroupVars(env map[string]string, name, addr string, p *model.Placement, v *workerValues) {
	env["GROUP_NAME"] = name
	env["WORKER_NAME"] = v.worker
	if addr != "" {
		env["MASTER_ADDR"] = addr
	}
	env["WORLD_SIZE"] = v.worldSize
	env["RANK"] = v.rank
	env["NODE_RANK"] = v.nodeRank
	env["CLUSTER_NODE_RANK"] = v.clusterNodeRank
	env["LOCAL_ACCELERATOR_RANK"] = v.localAccelRank
	env["NODE_LOCAL_RANK"] = v.localRank
	env["NODE_LOCAL_WORLD_SIZE"] = v.localWorldSize
	env["RAY_ACTOR"] = "1"
	env["CLUSTER_NAMESPACE"] = "RLinf"
	env["CATCH_SYSTEM_FAILURE"] = "0"
	env["VISIBLE_DEVICES"] = v.visible
	env["ACCELERATOR_TYPE"] = p.AcceleratorType
	env["ACCELERATOR_MODEL"] = v.accelModel
	env["ISOLATE_ACCELERATOR"] = boolStr(p.IsolateAccelerator)
	env["LOCAL_HARDWARE_RANKS"] = v.hardwareRanks
	env["NODE_GROUP_LABEL"] = p.NodeGroupLabel
}

// setAcceleratorVars sets the accelerator type's visible-devices variable
// and the Ray switches that stop Ray overriding it (accelVars names them),
// and on NVIDIA GPUs NCCL's and EGL's variables.
func setAcceleratorVars(env map[string]string, p *model.Placement, names []string, visible string) {
	env[names[0]] = visible
	for _, k := range names[1:] {
		env[k] = "1"
	}
	if p.AcceleratorType != model.AccelNVGPU {
		return
	}
	env["NCCL_CUMEM_ENABLE"] = "0"
	if len(p.VisibleAccelerators) > 0 {
		// EGL device of the first visible GPU; the CUDA index is
		// RLinf's fallback, which is what a plan can know.
		env["MUJOCO_EGL_DEVICE_ID"] = p.VisibleAccelerators[0]
		env["EGL_DEVICE_ID"] = p.VisibleAccelerators[0]
	}
}

// setWorkerInitVars sets what Worker.__init__ derives: isolated workers
// see one device set of their own.
func setWorkerInitVars(env map[string]string, isolate bool, v *workerValues) {
	if isolate {
		env["LOCAL_RANK"] = "0"
		env["LOCAL_WORLD_SIZE"] = "1"
	} else {
		env["LOCAL_RANK"] = v.localAccelRank
		env["LOCAL_WORLD_SIZE"] = v.localWorldSize
	}
}

// groupEnvVars is what GroupEnv returns, as the env_vars list (later
// entries win), without building a map.
func (c *Cluster) groupEnvVars(label string, node int) []model.EnvVar {
	g := c.Group(label)
	if g == nil || g.Config == nil {
		return nil
	}
	for _, ec := range g.Config.EnvConfigs {
		if ec.HasEnvVars && hasRank(ec.NodeRanks, node) {
			return ec.EnvVars
		}
	}
	return nil
}

// GroupEnv is the env_configs variables that group label applies on node
// (semantics §3.4): those of the first env_config of the group that covers
// the node and has env_vars.
func (c *Cluster) GroupEnv(label string, node int) map[string]string {
	g := c.Group(label)
	if g == nil || g.Config == nil {
		return nil
	}
	for _, ec := range g.Config.EnvConfigs {
		if ec.HasEnvVars && hasRank(ec.NodeRanks, node) {
			out := make(map[string]string, len(ec.EnvVars))
			for _, v := range ec.EnvVars {
				out[v.Key] = v.Value
			}
			return out
		}
	}
	return nil
}

// Interpreter is the python_interpreter_path group label sets on node, or "".
func (c *Cluster) Interpreter(label string, node int) string {
	g := c.Group(label)
	if g == nil || g.Config == nil {
		return ""
	}
	for _, ec := range g.Config.EnvConfigs {
		if ec.HasInterpreter && hasRank(ec.NodeRanks, node) {
			return ec.Interpreter
		}
	}
	return ""
}

// NodeAddress is the node's IP, else its host name, else "".
func (c *Cluster) NodeAddress(node int) string {
	n := &c.Nodes[node]
	if n.IP != "" {
		return n.IP
	}
	return n.Hostname
}

func boolStr(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// hasRank reports whether sorted node ranks hold x.
func hasRank(sorted []int, x int) bool {
	_, ok := slices.BinarySearch(sorted, x)
	return ok
}
