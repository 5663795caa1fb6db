package strategies_test

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/strategies"
)

// component wraps placements as a component named name.
func component(name string, ps []model.Placement) *model.ComponentPlan {
	return &model.ComponentPlan{Name: name, Placements: model.PlacementsOf(ps)}
}

func diffEnv(t *testing.T, got, want map[string]string) {
	t.Helper()
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		g, gok := got[k]
		w, wok := want[k]
		switch {
		case !gok:
			t.Errorf("%s missing, want %q", k, w)
		case !wok:
			t.Errorf("%s=%q not expected", k, g)
		case g != w:
			t.Errorf("%s=%q, want %q", k, g, w)
		}
	}
}

// §6.3: the full environment of a Packed worker on the second node of P-a.
func TestEnvPackedWorker(t *testing.T) {
	c := strategies.NewCluster(nodes(4, 4), nil)
	cp := component("actor", mustPlace(t)(strategies.Packed{Start: 2, End: 5}.Place(c, true)))
	diffEnv(t, c.Env(cp, 2), map[string]string{
		"GROUP_NAME": "actor", "WORKER_NAME": "actor:2", "MASTER_ADDR": "10.0.0.1", "WORLD_SIZE": "4", "RANK": "2",
		"NODE_RANK": "1", "CLUSTER_NODE_RANK": "1", "LOCAL_ACCELERATOR_RANK": "0", "NODE_LOCAL_RANK": "0",
		"NODE_LOCAL_WORLD_SIZE": "2", "RAY_ACTOR": "1", "CLUSTER_NAMESPACE": "RLinf", "CATCH_SYSTEM_FAILURE": "0",
		"VISIBLE_DEVICES": "0", "ACCELERATOR_TYPE": "NV_GPU", "ACCELERATOR_MODEL": "NV_GPU:Mock", "ISOLATE_ACCELERATOR": "1",
		"LOCAL_HARDWARE_RANKS": "0", "NODE_GROUP_LABEL": "cluster",
		"CUDA_VISIBLE_DEVICES": "0", "RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES": "1", "NCCL_CUMEM_ENABLE": "0",
		"MUJOCO_EGL_DEVICE_ID": "0", "EGL_DEVICE_ID": "0",
		"LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "1",
	})
}

// §6.3 with a shared GPU (Flexible [[0],[0]]): both workers see GPU 0; the
// node-local rank tells them apart. Without isolation LOCAL_RANK is the
// accelerator rank and LOCAL_WORLD_SIZE the node's process count.
func TestEnvFlexibleSharedGPU(t *testing.T) {
	c := strategies.NewCluster(nodes(2), nil)
	for _, isolate := range []bool{true, false} {
		cp := component("rollout", mustPlace(t)(strategies.Flexible{HardwareRanks: [][]int{{0}, {0}}}.Place(c, isolate)))
		for i := 0; i < 2; i++ {
			env := c.Env(cp, i)
			want := map[string]string{"CUDA_VISIBLE_DEVICES": "0", "VISIBLE_DEVICES": "0", "NODE_LOCAL_RANK": itoa(i),
				"NODE_LOCAL_WORLD_SIZE": "2", "LOCAL_ACCELERATOR_RANK": "0", "RANK": itoa(i), "WORLD_SIZE": "2",
				"LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "1", "ISOLATE_ACCELERATOR": "1"}
			if !isolate {
				want["LOCAL_WORLD_SIZE"], want["ISOLATE_ACCELERATOR"] = "2", "0"
				want["CUDA_VISIBLE_DEVICES"], want["VISIBLE_DEVICES"] = "0,1", "0,1"
			}
			for k, w := range want {
				if env[k] != w {
					t.Errorf("isolate=%v worker %d: %s=%q, want %q", isolate, i, k, env[k], w)
				}
			}
		}
	}
}

// §6.3 for a CPU-only Node worker: no accelerator variables at all.
func TestEnvNodeCPUOnly(t *testing.T) {
	inv := nodes(0, 0)
	inv.Nodes[0].IP = "" // MASTER_ADDR falls back to the host name
	c := strategies.NewCluster(inv, nil)
	cp := component("env", mustPlace(t)(strategies.Node{NodeRanks: []int{0, 1}, NodeGroups: []string{"node"}}.Place(c, true)))
	env := c.Env(cp, 1)
	for k, w := range map[string]string{
		"ACCELERATOR_TYPE": "NO_ACCEL", "ACCELERATOR_MODEL": "", "VISIBLE_DEVICES": "", "LOCAL_ACCELERATOR_RANK": "-1",
		"LOCAL_HARDWARE_RANKS": "", "NODE_GROUP_LABEL": "node", "NODE_RANK": "1", "CLUSTER_NODE_RANK": "1", "MASTER_ADDR": "n0",
	} {
		if got, ok := env[k]; !ok || got != w {
			t.Errorf("%s=%q (set %v), want %q", k, got, ok, w)
		}
	}
	for k := range env {
		if strings.Contains(k, "VISIBLE_DEVICES") && k != "VISIBLE_DEVICES" || strings.HasPrefix(k, "RAY_EXPERIMENTAL_") ||
			k == "NCCL_CUMEM_ENABLE" || strings.Contains(k, "EGL_DEVICE_ID") {
			t.Errorf("NO_ACCEL worker has %s=%q", k, env[k])
		}
	}
}

// §6.3: other accelerator types get their own visible-devices variable.
func TestEnvAMDWorker(t *testing.T) {
	inv := nodes(2)
	inv.Nodes[0].AccelType = "AMD_GPU"
	c := strategies.NewCluster(inv, nil)
	cp := component("actor", mustPlace(t)(strategies.Packed{Start: 0, End: 1}.Place(c, true)))
	env := c.Env(cp, 1)
	for k, w := range map[string]string{"HIP_VISIBLE_DEVICES": "1", "RAY_EXPERIMENTAL_NOSET_ROCR_VISIBLE_DEVICES": "1",
		"RAY_EXPERIMENTAL_NOSET_HIP_VISIBLE_DEVICES": "1", "ACCELERATOR_TYPE": "AMD_GPU", "ACCELERATOR_MODEL": "AMD_GPU:Mock"} {
		if env[k] != w {
			t.Errorf("%s=%q, want %q", k, env[k], w)
		}
	}
	if _, ok := env["CUDA_VISIBLE_DEVICES"]; ok {
		t.Error("AMD worker has CUDA_VISIBLE_DEVICES")
	}
}

// §3.4 / §6.3: a group's env_configs reach workers placed through its
// label only; WorkerGroup variables win over env_configs ones.
func TestEnvGroupEnvConfigs(t *testing.T) {
	src := `cluster:
  num_nodes: 2
  node_groups:
    - label: rollout
      node_ranks: all
      env_configs:
        - node_ranks: 0-1
          env_vars:
            - OMP_NUM_THREADS: 32
            - RANK: 99
  component_placement:
    rollout: {node_group: rollout, placement: 0-3}
    actor: 4-7
`
	r := mustPlan(t, src, nodes(4, 4), hybrid)
	rollout, actor := comp(t, r, "rollout"), comp(t, r, "actor")
	for i := range rollout.Placements.Len() {
		env := r.Cluster.Env(rollout, i)
		if env["OMP_NUM_THREADS"] != "32" || env["NODE_GROUP_LABEL"] != "rollout" {
			t.Errorf("rollout worker %d: OMP_NUM_THREADS=%q label=%q", i, env["OMP_NUM_THREADS"], env["NODE_GROUP_LABEL"])
		}
		if env["RANK"] != itoa(i) {
			t.Errorf("rollout worker %d: RANK=%q; the WorkerGroup value must win", i, env["RANK"])
		}
	}
	for i := range actor.Placements.Len() {
		env := r.Cluster.Env(actor, i)
		if v, ok := env["OMP_NUM_THREADS"]; ok {
			t.Errorf("actor worker %d (through cluster) got OMP_NUM_THREADS=%q", i, v)
		}
	}
	if got := r.Cluster.GroupEnv("rollout", 1); !reflect.DeepEqual(got, map[string]string{"OMP_NUM_THREADS": "32", "RANK": "99"}) {
		t.Errorf("GroupEnv %v", got)
	}
	// D8: the actor lands on node 1, covered by rollout's env_configs.
	wantDiag(t, r.Diagnostics, model.WarnEnvNotApplied, model.SeverityWarning)
}
