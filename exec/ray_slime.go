package exec

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/strategies"
)

// slimeTrainFraction is what a training actor asks of its bundle's GPU in
// current slime (0.4, so that a critic fits beside it; spec/slime.md; older
// versions asked model.SlimeActorGPUFraction).
const slimeTrainFraction = 0.4

// slimeEnv is what slime's actors get on top of the plan (spec/ray.md §2):
// Ray leaves every accelerator's visible devices alone, NCCL's cuMem off,
// no uvloop.
var slimeEnv = map[string]string{
	"RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES": "1", "RAY_EXPERIMENTAL_NOSET_HIP_VISIBLE_DEVICES": "1",
	"RAY_EXPERIMENTAL_NOSET_ROCR_VISIBLE_DEVICES": "1", "RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES": "1",
	"NCCL_CUMEM_ENABLE": "0", "RAY_USE_UVLOOP": "0",
}

// NewSlimeJob builds the workers of a slime layout for the Ray backend's
// slime mode: one per training rank ("actor") and one per rollout engine
// worker ("rollout") of the components runs names, each with its place
// among the placement group's sorted bundles (training rank r on bundle
// r, an engine's worker on its first bundle) and slime's GPU fraction. It
// also returns the placement group's size.
func NewSlimeJob(res *strategies.SlimeResult, nodes []model.Node, runs map[string][]string) (*Job, map[string]RaySlot, int, error) {
	if res == nil || res.Plan == nil || res.Layout == nil {
		return nil, nil, 0, errors.New("no slime layout")
	}
	if err := checkRuns(res.Plan, runs); err != nil {
		return nil, nil, 0, err
	}
	job := &Job{ID: NewLaunchID(), Node: -1}
	slots := map[string]RaySlot{}
	for i := range res.Plan.Components {
		cp := &res.Plan.Components[i]
		argv, ok := runs[cp.Name]
		if !ok || cp.Placements.Len() == 0 {
			continue
		}
		bundles, frac := slimeBundles(cp, res.Layout)
		c := &Component{Name: cp.Name}
		for j, p := range cp.Placements.All() {
			if p.ClusterNodeRank < 0 || p.ClusterNodeRank >= len(nodes) || j >= len(bundles) {
				return nil, nil, 0, fmt.Errorf("slime %s worker %d: node %d is not in the inventory", cp.Name, j, p.ClusterNodeRank)
			}
			n := &nodes[p.ClusterNodeRank]
			env := map[string]string{"RANK": strconv.Itoa(p.Rank), "WORLD_SIZE": strconv.Itoa(cp.Placements.Len()),
				"WORKER_NAME": cp.Name + ":" + strconv.Itoa(p.Rank), LaunchIDVar: job.ID}
			for k, v := range slimeEnv {
				env[k] = v
			}
			w := Worker{Component: cp.Name, Rank: p.Rank, Node: p.ClusterNodeRank, Host: n.Hostname, IP: n.IP, Argv: argv, Env: env}
			c.Workers = append(c.Workers, w)
			slots[w.Name()] = RaySlot{Bundle: bundles[j], Fraction: frac}
		}
		job.Components = append(job.Components, c)
	}
	return job, slots, res.Layout.NumBundles, nil
}

// slimeBundles is each worker's bundle (in slime's sorted order) and the
// component's GPU fraction.
func slimeBundles(cp *model.ComponentPlan, l *model.SlimeLayout) ([]int, float64) {
	if cp.Name != "rollout" {
		return cp.HardwareRanks, slimeTrainFraction
	}
	var out []int
	for _, e := range l.Engines {
		for _, p := range e.Parts {
			out = append(out, p.Bundles[0])
		}
	}
	return out, model.SlimeRolloutGPUFraction
}

// checkRuns refuses programs for components the plan does not have, and
// empty programs.
func checkRuns(plan *model.Plan, runs map[string][]string) error {
	for name, argv := range runs {
		if plan.Component(name) == nil {
			return fmt.Errorf("no component %q in the plan (components: %s)", name, strings.Join(plan.Names(), ", "))
		}
		if len(argv) == 0 || argv[0] == "" {
			return fmt.Errorf("component %s: empty program", name)
		}
	}
	return nil
}
