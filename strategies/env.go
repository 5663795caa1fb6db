package strategies

import (
	"strconv"
	"strings"

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
	p := &cp.Placements[i]
	node := &c.Nodes[p.ClusterNodeRank]
	env := make(map[string]string, 32)
	for k, v := range c.GroupEnv(p.NodeGroupLabel, p.ClusterNodeRank) {
		env[k] = v
	}
	vis := strings.Join(p.VisibleAccelerators, ",")
	hw := make([]string, len(p.LocalHardwareRanks))
	for j, h := range p.LocalHardwareRanks {
		hw[j] = strconv.Itoa(h)
	}
	set := func(k, v string) { env[k] = v }
	set("GROUP_NAME", cp.Name)
	set("WORKER_NAME", cp.Name+":"+strconv.Itoa(p.Rank))
	if addr := c.NodeAddress(cp.Placements[0].ClusterNodeRank); addr != "" {
		set("MASTER_ADDR", addr)
	}
	set("WORLD_SIZE", strconv.Itoa(len(cp.Placements)))
	set("RANK", strconv.Itoa(p.Rank))
	set("NODE_RANK", strconv.Itoa(p.PlacementNodeRank))
	set("CLUSTER_NODE_RANK", strconv.Itoa(p.ClusterNodeRank))
	set("LOCAL_ACCELERATOR_RANK", strconv.Itoa(p.LocalAcceleratorRank))
	set("NODE_LOCAL_RANK", strconv.Itoa(p.LocalRank))
	set("NODE_LOCAL_WORLD_SIZE", strconv.Itoa(p.LocalWorldSize))
	set("RAY_ACTOR", "1")
	set("CLUSTER_NAMESPACE", "RLinf")
	set("CATCH_SYSTEM_FAILURE", "0")
	set("VISIBLE_DEVICES", vis)
	set("ACCELERATOR_TYPE", p.AcceleratorType)
	set("ACCELERATOR_MODEL", node.AcceleratorModel())
	set("ISOLATE_ACCELERATOR", boolStr(p.IsolateAccelerator))
	set("LOCAL_HARDWARE_RANKS", strings.Join(hw, ","))
	set("NODE_GROUP_LABEL", p.NodeGroupLabel)
	if names, ok := accelVars[p.AcceleratorType]; ok {
		set(names[0], vis)
		for _, n := range names[1:] {
			set(n, "1")
		}
		if p.AcceleratorType == model.AccelNVGPU {
			set("NCCL_CUMEM_ENABLE", "0")
			if len(p.VisibleAccelerators) > 0 {
				// EGL device of the first visible GPU; the CUDA index is
				// RLinf's fallback, which is what a plan can know.
				set("MUJOCO_EGL_DEVICE_ID", p.VisibleAccelerators[0])
				set("EGL_DEVICE_ID", p.VisibleAccelerators[0])
			}
		}
	}
	// Worker.__init__: isolated workers see one device set of their own.
	if p.IsolateAccelerator {
		set("LOCAL_RANK", "0")
		set("LOCAL_WORLD_SIZE", "1")
	} else {
		set("LOCAL_RANK", strconv.Itoa(p.LocalAcceleratorRank))
		set("LOCAL_WORLD_SIZE", strconv.Itoa(p.LocalWorldSize))
	}
	return env
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
		if ec.HasEnvVars && containsInt(ec.NodeRanks, node) {
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
		if ec.HasInterpreter && containsInt(ec.NodeRanks, node) {
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
