package topology_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/internal/slurmtest"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/render"
	"github.com/rlsolve/rlsolve/topology"
)

// The test cluster of scripts/slurm-test-cluster.sh: nodes n1..n4, 16 CPUs
// and gpu:8 each, all at 127.0.0.1. Discovery runs the real sinfo and
// scontrol; the inventory it writes is what check and plan accept.
func TestSlurmRealCluster(t *testing.T) {
	slurmtest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Other tests may hold or drain nodes meanwhile: keep every state.
	inv, warns, err := topology.DiscoverSlurm(ctx, topology.SlurmOptions{Partition: "debug", AllStates: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("warnings: %v", warns)
	if len(inv.Nodes) != 4 {
		t.Fatalf("nodes %+v", inv.Nodes)
	}
	for i, n := range inv.Nodes {
		if n.Rank != i || n.Hostname != fmt.Sprintf("n%d", i+1) || n.AccelCount != 8 || n.CPUs != 16 || n.IP != "127.0.0.1" {
			t.Errorf("node %d: %+v", i, n)
		}
	}

	// The allocation form expands the host list with scontrol.
	sub, _, err := topology.DiscoverSlurm(ctx, topology.SlurmOptions{NodeList: "n[3-4],n1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(sub.Nodes) != 3 || sub.Nodes[0].Hostname != "n3" || sub.Nodes[2].Hostname != "n1" {
		t.Errorf("allocation nodes %+v", sub.Nodes)
	}

	out, err := topology.Encode(inv, topology.EncodeOptions{Ranks: true})
	if err != nil {
		t.Fatal(err)
	}
	back, ds := grammar.LoadInventory("slurm.yaml", out, grammar.DefaultLimits)
	if ds.HasErrors() {
		t.Fatalf("%v\n%s", ds, out)
	}
	cfg := "cluster:\n  num_nodes: 4\n  component_placement:\n    actor: 0-15\n    rollout: 16-31\n"
	o := pipeline.CheckBytes("train.yaml", []byte(cfg), pipeline.Options{Inventory: back, GPUsPerNode: -1})
	if len(o.Diagnostics) != 0 || o.Result == nil || o.Result.Plan == nil {
		t.Fatalf("check: %+v", o.Diagnostics)
	}
	doc, err := render.NewDocument(o.RenderInput())
	if err != nil {
		t.Fatal(err)
	}
	if p := doc.Components["rollout"].Placements[0]; p.Hostname != "n3" || p.Env["MASTER_ADDR"] != "127.0.0.1" {
		t.Errorf("rollout worker 0: %+v", p)
	}
}

// Real commands failing: an unknown partition, a host list scontrol
// rejects. Errors, never panics.
func TestSlurmRealFailures(t *testing.T) {
	slurmtest.Require(t)
	ctx := context.Background()
	if _, _, err := topology.DiscoverSlurm(ctx, topology.SlurmOptions{Partition: "no-such-partition"}); err == nil || !strings.Contains(err.Error(), "no-such-partition") {
		t.Errorf("unknown partition: %v", err)
	}
	if _, _, err := topology.DiscoverSlurm(ctx, topology.SlurmOptions{NodeList: "n[1-"}); err == nil {
		t.Error("a malformed host list should fail")
	} else {
		t.Log(err)
	}
	if _, _, err := topology.DiscoverSlurm(ctx, topology.SlurmOptions{NodeList: "n9"}); err == nil || !strings.Contains(err.Error(), "n9") {
		t.Errorf("unknown node: %v", err)
	}
}
