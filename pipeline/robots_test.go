package pipeline_test

import (
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
)

// RLS-W0111: the group's hardware.configs and the inventory disagree on a
// node's robots; RLinf goes by the configs, and so does the plan.
func TestRobotCountsDisagree(t *testing.T) {
	src := `inventory:
  nodes:
    - rank: 0
      accelerators: 0
      hardware: {Franka: 1}
cluster:
  num_nodes: 1
  component_placement:
    env: {node_group: arm, placement: "0-1"}
  node_groups:
    - label: arm
      node_ranks: 0
      hardware: {type: Franka, configs: [{node_rank: 0, robot_ip: 10.0.0.1}, {node_rank: 0, robot_ip: 10.0.0.2}]}
`
	o := pipeline.CheckBytes("robots.yaml", []byte(src), pipeline.Options{GPUsPerNode: -1})
	var found *model.Diagnostic
	for i := range o.Diagnostics {
		if o.Diagnostics[i].Code == model.WarnRobotCount {
			found = &o.Diagnostics[i]
		}
	}
	if found == nil || found.Severity != model.SeverityWarning || found.Primary.Line != 13 {
		t.Fatalf("want a W0111 warning on line 13, got %+v", o.Diagnostics)
	}
	if o.Diagnostics.HasErrors() || o.Result.Plan.Component("env").Placements.Len() != 2 {
		t.Errorf("the plan goes by the configs' 2 robots: %+v", o.Diagnostics)
	}
	// Agreeing counts: no warning.
	o = pipeline.CheckBytes("robots.yaml", []byte(strings.Replace(src, "Franka: 1", "Franka: 2", 1)), pipeline.Options{GPUsPerNode: -1})
	for _, d := range o.Diagnostics {
		if d.Code == model.WarnRobotCount {
			t.Errorf("unexpected %s", d.Summary)
		}
	}
}
