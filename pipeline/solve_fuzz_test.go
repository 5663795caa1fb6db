package pipeline_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/render"
	"github.com/rlsolve/rlsolve/solver"
	"github.com/rlsolve/rlsolve/topology"
)

// solveSeeds are requirement files beside the write-back goldens: the
// issue's heterogeneous cluster, model-parallel classes (AUTO mode too),
// whole nodes, CPU processes, conflicts.
var solveSeeds = []string{
	"cluster:\n  num_nodes: 6\n  node_groups:\n    - {label: a800, node_ranks: 0-1}\n    - {label: \"4090\", node_ranks: 2-3}\n    - {label: franka, node_ranks: 4, hardware: {type: Franka, configs: [{node_rank: 4, robot_ip: 10.0.0.1}, {node_rank: 4, robot_ip: 10.0.0.2}]}}\n  component_placement:\n    actor:     {gpus: 8, node_group: a800}   # c\n    reward:    {with: actor}\n    rollout:   {gpus: 4, node_group: \"4090\", gpus_per_process: 2}\n    inference: {gpus: 4, apart_from: [actor, rollout]}\n    env:       {node_group: franka, processes: 2}\n    agent:     {node_group: node, processes: 6}\nrunner:\n  task_type: embodied\n",
	"cluster:\n  num_nodes: 3\n  component_placement:\n    actor: {gpus: 4}\n    rollout: {gpus: 4, apart_from: actor}\n    reward: {with: actor}\n    inference: {gpus: 2}\nrunner:\n  task_type: reasoning\nactor:\n  model:\n    tensor_model_parallel_size: 2\nrollout:\n  tensor_parallel_size: 2\nalgorithm:\n  recompute_logprobs: true\n",
	"cluster:\n  num_nodes: 2\n  component_placement:\n    actor,rollout: {gpus: 8}\n    reward: {gpus: 2}\nrunner:\n  task_type: reasoning\nactor:\n  model:\n    tensor_model_parallel_size: 4\nrollout:\n  tensor_parallel_size: 2\n",
	"cluster:\n  num_nodes: 4\n  component_placement:\n    actor:\n      nodes: 2\n      processes: 4   # two a node\n    rollout:\n      gpus: 6\n      gpus_per_process: 2\n    critic: 0-1\n",
	"cluster:\n  num_nodes: 2\n  component_placement:\n    actor: {gpus: 4}\n    rollout: {with: actor}\n    reward: {gpus: 1}\n    critic: {gpus: 2, apart_from: reward}\n  auto_scheduler: false\nrunner:\n  task_type: reasoning_eval\nrollout:\n  tensor_parallel_size: 2\nalgorithm:\n  recompute_logprobs: false\n",
	"cluster:\n  num_nodes: 3\n  component_placement:\n    actor: {gpus: 4}\n    rollout: {gpus: 4}\n    reward: {with: rollout}\n    rollout_judge: {gpus: 2}\nrunner:\n  task_type: reasoning\nrollout:\n  tensor_parallel_size: 2\n",
	"cluster:\n  num_nodes: 2\n  auto_scheduler: true\n  component_placement:\n    actor: {gpus: 2}\n    rollout: {gpus: 4}\n    reward: {with: rollout}\n    inference: {gpus: 2}\nrunner:\n  task_type: reasoning\n",
	"cluster:\n  num_nodes: 2\n  auto_scheduler: true\n  component_placement:\n    actor: 0-1\n    rollout: {gpus: 3}\n    reward: 2-4\nrunner:\n  task_type: reasoning\n",
	"cluster:\n  num_nodes: 2\n  node_groups:\n    - {label: a, node_ranks: 0}\n  component_placement:\n    actor: {gpus: 4, node_group: a}\n    inference: {gpus: 2, node_group: a, apart_from: actor}\n    x: {with: actr}\n",
}

// FuzzSolve solves fuzzed configs on a small cluster with a short budget:
// it never panics and never reports an internal error (a placement check
// refuses, a write-back that does not apply); a config it writes checks,
// keeps each requirement it placed beside the placement, and keeps every
// line of the input; keep, from the plan of that result and with a node
// removed, places the written config again and holds the same.
func FuzzSolve(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "solve", "*.yaml"))
	mp, _ := filepath.Glob(filepath.Join("testdata", "solve_mp", "*.yaml"))
	refused, _ := filepath.Glob(filepath.Join("testdata", "solve_refused", "*.yaml"))
	for _, name := range append(append(files, mp...), refused...) {
		if data, err := os.ReadFile(name); err == nil && !strings.HasSuffix(name, ".want.yaml") {
			f.Add(data, uint8(0), uint8(1))
		}
	}
	for i, s := range solveSeeds {
		f.Add([]byte(s), uint8(i), uint8(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, shape, choice uint8) {
		lim := grammar.DefaultLimits
		lim.MaxClusterNodes = 8
		lim.MaxProcesses, lim.MaxTotalProcesses = 256, 1024
		cfg, _ := grammar.LoadConfig("fuzz.yaml", data, lim)
		if cfg == nil || cfg.NumNodes <= 0 {
			return
		}
		gpus := []int{2, 4, 8, 3}[shape%4]
		opt := pipeline.SolveOptions{Options: pipeline.Options{Inventory: topology.Uniform(cfg.NumNodes, gpus, "fuzz"), GPUsPerNode: -1,
			Limits: lim, SolverBudget: 200 * time.Millisecond, MaxConflicts: 3}}
		opt.Objective = []solver.Objective{solver.ObjectivePack, solver.ObjectiveSpread}[choice%2]
		s := solved(t, data, opt)
		if s == nil || s.Text == nil || choice%3 != 2 {
			return
		}
		doc, err := render.NewDocument(s.Verified.RenderInput())
		if err != nil {
			t.Fatalf("the plan of the result: %v", err)
		}
		opt.Objective, opt.Previous = solver.ObjectiveKeep, pipeline.PreviousWorkers(doc.Records())
		opt.Without = []int{int(shape/4) % cfg.NumNodes}
		if r := solved(t, s.Text, opt); r != nil && r.Text != nil {
			keptRequirements(t, r)
		}
	})
}

// solved runs solve and holds it to what FuzzSolve requires.
func solved(t *testing.T, data []byte, opt pipeline.SolveOptions) *pipeline.Solved {
	t.Helper()
	s := pipeline.Solve("fuzz.yaml", data, opt)
	if s.Internal {
		t.Fatalf("internal error (%s): %v", opt.Objective, s.Diagnostics)
	}
	if s.Text == nil {
		return s
	}
	if s.Verified == nil || s.Verified.Diagnostics.HasErrors() {
		t.Fatalf("a result that does not check came back")
	}
	if strings.Contains(string(data), "placement: \"") {
		// Placements written before are written over: keptRequirements.
		return s
	}
	keptRequirements(t, s)
	keptInOrder(t, data, s)
	return s
}

// keptRequirements: every entry solve placed keeps its requirement beside
// the placement in the written config, so that solve can place it again.
func keptRequirements(t *testing.T, s *pipeline.Solved) {
	t.Helper()
	again, _ := grammar.LoadConfig("fuzz.yaml", s.Text, grammar.DefaultLimits)
	if again == nil || len(again.Components) != len(s.Config.Components) {
		t.Fatalf("the written config reads otherwise:\n%s", s.Text)
	}
	for _, p := range s.Placement.Placed {
		if e := again.Components[p.Entry]; e.Requirement != nil || e.Kept == nil || e.Placement != p.Placement {
			t.Fatalf("%v: want placement %q beside its requirement, got %q (requirement %v, kept %v):\n%s", e.Names, p.Placement, e.Placement, e.Requirement != nil, e.Kept != nil, s.Text)
		}
	}
}
