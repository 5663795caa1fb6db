package proptest

import (
	"strconv"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/topology"
)

// tenConflicts is a 1024-node x 8-GPU config with large valid components
// and ten independent conflicts, each of a different rule.
const tenConflicts = `cluster:
  num_nodes: 1024
  component_placement:
    actor: 0-4095
    rollout: 4096-6143
    agent: {node_group: node, placement: "0-999:0-9999"}
    c1: 0-8192
    c2: 0-3,2-5
    c3: "8-9:0,10-11:2"
    c4: "12-14:0-1"
    c5: {node_group: gpuz, placement: "0"}
    c6: "6-9:0"
  node_groups:
    - label: gpus
      node_ranks: 0-511
      env_configs:
        - node_ranks: 0-3
          env_vars:
            - NCCL_SOCKET_IFNAME: eth0
        - node_ranks: 3-7
          env_vars:
            - NCCL_SOCKET_IFNAME: ib0
    - label: dup
      node_ranks: 512-515
    - label: dup
      node_ranks: 516-519
    - label: arm-a
      node_ranks: 1000
      hardware: {type: Franka, configs: [{node_rank: 1000, robot_ip: 10.1.0.1}]}
    - label: arm-b
      node_ranks: 1000
      hardware: {type: Franka, configs: [{node_rank: 1000, robot_ip: 10.1.0.2}]}
`

// wantCodes are the ten conflicts, one per rule.
var wantCodes = []string{"RLS-E0203", "RLS-E0204", "RLS-E0206", "RLS-E0208", "RLS-E0301", "RLS-E0401",
	"RLS-E0302", "RLS-E0305", "RLS-E0306", "RLS-E0308"}

func explainTen(tb testing.TB) *pipeline.Outcome {
	inv := topology.Uniform(1024, 8, "bench")
	o := pipeline.CheckBytes("ten.yaml", []byte(tenConflicts), pipeline.Options{Inventory: inv, GPUsPerNode: -1})
	if o.Solver == nil {
		tb.Fatal("no solver result")
	}
	return o
}

// TestTenConflictsExplained keeps the benchmark honest: every injected
// conflict is reported once, each as its own minimal set.
func TestTenConflictsExplained(t *testing.T) {
	o := explainTen(t)
	got := map[string]int{}
	for _, d := range o.Diagnostics {
		if d.Severity == 2 {
			got[d.Code]++
		}
	}
	for _, c := range wantCodes {
		if got[c] != 1 {
			t.Errorf("%s reported %d times, want once (all: %v)", c, got[c], got)
		}
	}
	if len(got) != len(wantCodes) {
		t.Errorf("codes %v, want exactly %v", got, wantCodes)
	}
	t.Logf("solver: %+v", o.Solver.Stats)
}

// BenchmarkExplainTen1024 measures the whole check of that config: load,
// planning, SAT compilation, ten minimal conflict sets and verified fixes.
func BenchmarkExplainTen1024(b *testing.B) {
	b.ReportAllocs()
	var largest, conflicts int
	for b.Loop() {
		o := explainTen(b)
		largest, conflicts = o.Solver.Stats.LargestSet, o.Solver.Stats.Conflicts
	}
	b.ReportMetric(float64(conflicts), "conflicts")
	b.ReportMetric(float64(largest), "largest-set")
}

// manyParts lists 8,192 GPUs one part each, plus a component with a
// duplicate and an out-of-range part: every rule stays linear in the parts.
func manyParts() []byte {
	var b strings.Builder
	b.WriteString("cluster:\n  num_nodes: 1024\n  component_placement:\n    actor: \"")
	for i := 0; i < 8192; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(i))
	}
	b.WriteString("\"\n    bad: \"0-99,50,200-8192\"\n")
	return []byte(b.String())
}

func TestManyPartsExplained(t *testing.T) {
	o := pipeline.CheckBytes("many.yaml", manyParts(), pipeline.Options{Inventory: topology.Uniform(1024, 8, "test"), GPUsPerNode: -1})
	codes := map[string]bool{}
	for _, d := range o.Diagnostics {
		codes[d.Code] = true
	}
	if !codes["RLS-E0204"] || !codes["RLS-E0203"] || len(codes) != 2 {
		t.Errorf("codes %v, want E0204 and E0203", codes)
	}
}

func BenchmarkCheckManyParts(b *testing.B) {
	data := manyParts()
	inv := topology.Uniform(1024, 8, "bench")
	for b.Loop() {
		pipeline.CheckBytes("many.yaml", data, pipeline.Options{Inventory: inv, GPUsPerNode: -1})
	}
}
