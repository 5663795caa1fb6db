package strategies

import (
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// EnvOf is the environment slime worker p of cp gets that a plan can know:
// a training actor's rank, world size, the device Ray assigns from its
// bundle and the rank-0 node's address (MASTER_PORT is chosen at launch);
// a rollout engine's switches that stop Ray from setting the visible
// devices (SGLang picks its GPUs from base_gpu_id).
func (r *SlimeResult) EnvOf(cp *model.ComponentPlan, p *model.Placement) map[string]string {
	names, accel := accelVars[p.AcceleratorType]
	env := map[string]string{}
	if cp.Name != "actor" {
		if accel {
			for _, k := range names[1:] {
				env[k] = "1"
			}
		}
		return env
	}
	env["RANK"] = strconv.Itoa(p.Rank)
	env["WORLD_SIZE"] = strconv.Itoa(cp.Placements.Len())
	env["LOCAL_RANK"] = "0"
	env["NCCL_CUMEM_ENABLE"] = "0"
	if master := r.Topology.Nodes[cp.Placements.Node(0)].Address(); master != "" {
		env["MASTER_ADDR"] = master
	}
	if accel {
		env[names[0]] = strings.Join(p.VisibleAccelerators, ",")
	}
	return env
}

// Interpreter is "": Ray starts slime's workers with its own.
func (r *SlimeResult) Interpreter(string, int) string { return "" }
