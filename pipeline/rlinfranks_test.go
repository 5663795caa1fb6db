package pipeline_test

import (
	"testing"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
)

// The IP-order warning (RLS-W0602) is for inventories whose ranks RLinf
// would not use; one whose ranks are the nodes' own RLINF_NODE_RANK (a
// live Ray cluster read with its probe) gets none.
func TestRLinfRanksNoOrderWarning(t *testing.T) {
	cfg := []byte("cluster:\n  num_nodes: 2\n  component_placement:\n    actor: all\n")
	for _, ranked := range []bool{false, true} {
		inv := &model.Inventory{RLinfRanks: ranked, Nodes: []model.Node{
			{Rank: 0, IP: "10.0.0.9", AccelType: model.AccelNVGPU, AccelCount: 2},
			{Rank: 1, IP: "10.0.0.10", AccelType: model.AccelNVGPU, AccelCount: 2}}}
		o := pipeline.CheckBytes("train.yaml", cfg, pipeline.Options{Inventory: inv, GPUsPerNode: -1})
		warned := false
		for _, d := range o.Diagnostics {
			warned = warned || d.Code == model.WarnNodeOrderRLinf
		}
		if warned == ranked {
			t.Errorf("RLinfRanks %v: warned %v (%v)", ranked, warned, o.Diagnostics)
		}
	}
}
