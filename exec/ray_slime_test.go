package exec

import (
	"testing"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
)

// TestNewSlimeJob: training rank r on sorted bundle r with 0.4, each
// rollout engine's worker on its first bundle (offset + i*gpus per engine)
// with 0.2, slime's env on every worker.
func TestNewSlimeJob(t *testing.T) {
	inv := &model.Inventory{}
	for i, ip := range []string{"10.0.0.10", "10.0.0.9"} {
		inv.Nodes = append(inv.Nodes, model.Node{Rank: i, IP: ip, AccelType: "NV_GPU", AccelCount: 4})
	}
	so := pipeline.CheckSlime("--actor-num-nodes 1 --actor-num-gpus-per-node 4 --rollout-num-gpus 4 --rollout-num-gpus-per-engine 2 --num-gpus-per-node 4", "",
		pipeline.Options{Inventory: inv, GPUsPerNode: -1})
	if so.Failed() || so.Plan == nil {
		t.Fatalf("%+v", so.Diagnostics)
	}
	job, slots, bundles, err := NewSlimeJob(so.Plan, so.Topology.Nodes, map[string][]string{"actor": {"train"}, "rollout": {"serve"}})
	if err != nil {
		t.Fatal(err)
	}
	if bundles != 8 || len(job.Components) != 2 || len(job.Components[0].Workers) != 4 || len(job.Components[1].Workers) != 2 {
		t.Fatalf("%d bundles, %+v", bundles, job.Components)
	}
	want := map[string]RaySlot{"actor/0": {0, 0.4}, "actor/3": {3, 0.4}, "rollout/0": {4, 0.2}, "rollout/1": {6, 0.2}}
	for name, s := range want {
		if slots[name] != s {
			t.Errorf("%s: %+v, want %+v", name, slots[name], s)
		}
	}
	a0 := job.Components[0].Workers[0]
	if a0.IP != "10.0.0.9" || a0.Env["RANK"] != "0" || a0.Env["WORLD_SIZE"] != "4" || a0.Env["RAY_USE_UVLOOP"] != "0" || a0.Env[LaunchIDVar] != job.ID {
		t.Errorf("actor/0 (slime sorts 10.0.0.9 first): %+v", a0)
	}
	if _, _, _, err := NewSlimeJob(so.Plan, so.Topology.Nodes, map[string][]string{"critic": {"x"}}); err == nil {
		t.Error("a component slime does not have was accepted")
	}
}
