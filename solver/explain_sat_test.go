package solver

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/rules"
	"github.com/rlsolve/rlsolve/topology"
)

// TestExplainInstancesHaveModels: with every fact's selector free, an
// explaining instance has a model. Explanation solves under many failing
// assumption sets on one instance, which gini (v1.0.4) answers correctly
// only on a formula that has a model without them (see afresh); so every
// constraint a fact stands for must be guarded by its selector. Checked
// on every requirement file of the pipeline's tests, on clusters of each
// size, and on the impossible benchmark spec.
func TestExplainInstancesHaveModels(t *testing.T) {
	var files []string
	for _, dir := range []string{"solve", "solve_mp", "solve_refused"} {
		fs, _ := filepath.Glob(filepath.Join("..", "pipeline", "testdata", dir, "*.yaml"))
		files = append(files, fs...)
	}
	if len(files) < 20 {
		t.Fatalf("only %d requirement files", len(files))
	}
	inputs := map[string][]byte{
		// AUTO mode with counts that do not fill the cluster (4 + 8 + 2 of 16).
		"auto.yaml": []byte("cluster:\n  num_nodes: 2\n  auto_scheduler: true\n  component_placement:\n    actor: {gpus: 4}\n    rollout: {gpus: 8}\n    inference: {gpus: 2}\n    reward: {with: rollout}\nrunner: {task_type: reasoning}\n"),
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		inputs[file] = data
	}
	checked := 0
	for file, data := range inputs {
		cfg, ds := grammar.LoadConfig(file, data, grammar.DefaultLimits)
		if cfg == nil || ds.HasErrors() || cfg.NumNodes <= 0 {
			continue
		}
		for _, gpus := range []int{2, 4, 8} {
			sp := rules.BuildSpace(cfg, topology.Uniform(cfg.NumNodes, gpus, "t"), rules.SpaceOptions{Class: rules.Class(cfg).Class})
			if sp.Diagnostics.HasErrors() || len(sp.Demands) == 0 {
				continue
			}
			in := newInstance(sp, true)
			in.flush()
			if in.g.Try(10*time.Second) != 1 {
				t.Errorf("%s on nodes of %d GPUs: the explaining instance has no model with its selectors free", file, gpus)
			}
			checked++
		}
	}
	sp := benchSpace(t, 16, true, nil)
	in := newInstance(sp, true)
	in.flush()
	if in.g.Try(10*time.Second) != 1 {
		t.Error("the impossible benchmark's explaining instance has no model with its selectors free")
	}
	t.Logf("%d spaces checked", checked+1)
}
