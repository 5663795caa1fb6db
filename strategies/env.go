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
	node := &c.Nodes[p.ClusterNodeRank]
	group := c.groupEnvVars(p.NodeGroupLabel, p.ClusterNodeRank)
	addr := c.NodeAddress(cp.Placements.Node(0))
	names, accel := accelVars[p.AcceleratorType]
	nvEGL := accel && p.AcceleratorType == model.AccelNVGPU && len(p.VisibleAccelerators) > 0

	// The values computed per worker are written into one buffer and cut
	// out of one string: one allocation instead of one per value.
	buf := make([]byte, 0, 128)
	mark := func() int { return len(buf) }
	buf = append(buf, cp.Name...)
	buf = append(buf, ':')
	buf = strconv.AppendInt(buf, int64(p.Rank), 10)
	workerEnd := mark()
	buf = strconv.AppendInt(buf, int64(cp.Placements.Len()), 10)
	worldEnd := mark()
	buf = strconv.AppendInt(buf, int64(p.Rank), 10)
	rankEnd := mark()
	buf = strconv.AppendInt(buf, int64(p.PlacementNodeRank), 10)
	nodeRankEnd := mark()
	buf = strconv.AppendInt(buf, int64(p.ClusterNodeRank), 10)
	clusterRankEnd := mark()
	buf = strconv.AppendInt(buf, int64(p.LocalAcceleratorRank), 10)
	laccEnd := mark()
	buf = strconv.AppendInt(buf, int64(p.LocalRank), 10)
	localRankEnd := mark()
	buf = strconv.AppendInt(buf, int64(p.LocalWorldSize), 10)
	localWorldEnd := mark()
	for j, v := range p.VisibleAccelerators {
		if j > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, v...)
	}
	visEnd := mark()
	buf = append(buf, node.AcceleratorModel()...)
	modelEnd := mark()
	for j, h := range p.LocalHardwareRanks {
		if j > 0 {
			buf = append(buf, ',')
		}
		buf = strconv.AppendInt(buf, int64(h), 10)
	}
	hwEnd := mark()
	all := string(buf)
	vis := all[localWorldEnd:visEnd]

	// Exactly the keys set below (group variables may repeat some), so the
	// map is allocated once at the right size.
	n := 20 + len(group) + len(names)
	if addr != "" {
		n++
	}
	if accel && p.AcceleratorType == model.AccelNVGPU {
		n++
	}
	if nvEGL {
		n += 2
	}
	env := make(map[string]string, n)
	for _, v := range group {
		env[v.Key] = v.Value
	}
	env["GROUP_NAME"] = cp.Name
	env["WORKER_NAME"] = all[:workerEnd]
	if addr != "" {
		env["MASTER_ADDR"] = addr
	}
	env["WORLD_SIZE"] = all[workerEnd:worldEnd]
	env["RANK"] = all[worldEnd:rankEnd]
	env["NODE_RANK"] = all[rankEnd:nodeRankEnd]
	env["CLUSTER_NODE_RANK"] = all[nodeRankEnd:clusterRankEnd]
	env["LOCAL_ACCELERATOR_RANK"] = all[clusterRankEnd:laccEnd]
	env["NODE_LOCAL_RANK"] = all[laccEnd:localRankEnd]
	env["NODE_LOCAL_WORLD_SIZE"] = all[localRankEnd:localWorldEnd]
	env["RAY_ACTOR"] = "1"
	env["CLUSTER_NAMESPACE"] = "RLinf"
	env["CATCH_SYSTEM_FAILURE"] = "0"
	env["VISIBLE_DEVICES"] = vis
	env["ACCELERATOR_TYPE"] = p.AcceleratorType
	env["ACCELERATOR_MODEL"] = all[visEnd:modelEnd]
	env["ISOLATE_ACCELERATOR"] = boolStr(p.IsolateAccelerator)
	env["LOCAL_HARDWARE_RANKS"] = all[modelEnd:hwEnd]
	env["NODE_GROUP_LABEL"] = p.NodeGroupLabel
	if accel {
		env[names[0]] = vis
		for _, k := range names[1:] {
			env[k] = "1"
		}
		if p.AcceleratorType == model.AccelNVGPU {
			env["NCCL_CUMEM_ENABLE"] = "0"
			if nvEGL {
				// EGL device of the first visible GPU; the CUDA index is
				// RLinf's fallback, which is what a plan can know.
				env["MUJOCO_EGL_DEVICE_ID"] = p.VisibleAccelerators[0]
				env["EGL_DEVICE_ID"] = p.VisibleAccelerators[0]
			}
		}
	}
	// Worker.__init__: isolated workers see one device set of their own.
	if p.IsolateAccelerator {
		env["LOCAL_RANK"] = "0"
		env["LOCAL_WORLD_SIZE"] = "1"
	} else {
		env["LOCAL_RANK"] = all[clusterRankEnd:laccEnd]
		env["LOCAL_WORLD_SIZE"] = all[localRankEnd:localWorldEnd]
	}
	return env
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
