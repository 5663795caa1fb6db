package strategies

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
	"github.com/rlsolve/rlsolve/solver"
)

// slimeCfg builds a config from key=value pairs (bools: key=1).
func slimeCfg(kv map[model.SlimeKey]int) *model.SlimeConfig {
	c := &model.SlimeConfig{Source: "--slime"}
	for k, v := range kv {
		c.Values[k] = model.SlimeValue{Set: true, Value: v, Text: fmt.Sprintf("%s %d", k.Info().Flag, v)}
	}
	return c
}

// uniformTopo is n nodes of g GPUs with IPs 10.0.0.1.. in rank order.
func uniformTopo(n, g int) *model.SlimeTopology {
	nodes := make([]model.Node, n)
	for i := range nodes {
		nodes[i] = model.Node{Rank: i, IP: fmt.Sprintf("10.0.0.%d", i+1), Hostname: fmt.Sprintf("n%d", i), AccelType: model.AccelNVGPU, AccelCount: g}
	}
	return model.NewSlimeTopology(nodes, nil)
}

type where struct{ node, gpu int }

func actorWhere(t *testing.T, r *SlimeResult) []where {
	t.Helper()
	cp := r.Plan.Component("actor")
	if cp == nil {
		return nil
	}
	var out []where
	for _, p := range cp.Placements.All() {
		out = append(out, where{p.ClusterNodeRank, p.LocalAcceleratorRank})
	}
	return out
}

// slimeCheck judges a layout as the pipeline does (the rules, by the
// solver) and expands it when valid, with the warnings on its plan.
func slimeCheck(t *testing.T, cfg *model.SlimeConfig, topo *model.SlimeTopology) (*SlimeResult, model.Diagnostics) {
	t.Helper()
	res, err := solver.Check(rules.Slime(cfg, topo, rules.SlimeOptions{}), solver.Options{NoFixes: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Diagnostics.HasErrors() {
		return nil, res.Diagnostics
	}
	r := PlanSlime(cfg, topo)
	return r, append(res.Diagnostics, rules.SlimeWarnings(cfg, topo, r.Layout)...)
}

func mustPlan(t *testing.T, cfg *model.SlimeConfig, topo *model.SlimeTopology) (*SlimeResult, model.Diagnostics) {
	t.Helper()
	r, ds := slimeCheck(t, cfg, topo)
	if ds.HasErrors() || r == nil {
		t.Fatalf("plan failed: %+v", ds)
	}
	return r, ds
}

// The example: 2 x 8 actor, 8 rollout GPUs in engines of 2,
// disaggregated on three 8-GPU nodes.
func TestSlimeDisaggregated(t *testing.T) {
	cfg := slimeCfg(map[model.SlimeKey]int{model.SlimeActorNumNodes: 2, model.SlimeActorGPUsPerNode: 8,
		model.SlimeRolloutNumGPUs: 8, model.SlimeRolloutGPUsPerEngine: 2})
	r, _ := mustPlan(t, cfg, uniformTopo(3, 8))
	if r.Layout.NumBundles != 24 || r.Layout.RolloutOffset != 16 || r.Plan.Mode != model.ModeDisaggregated {
		t.Fatalf("layout %d bundles, offset %d, mode %s", r.Layout.NumBundles, r.Layout.RolloutOffset, r.Plan.Mode)
	}
	a := actorWhere(t, r)
	if len(a) != 16 || a[0] != (where{0, 0}) || a[9] != (where{1, 1}) {
		t.Errorf("actor %v", a)
	}
	if len(r.Layout.Engines) != 4 {
		t.Fatalf("engines %d", len(r.Layout.Engines))
	}
	for i, e := range r.Layout.Engines {
		p := e.Parts[0]
		if len(e.Parts) != 1 || p.Node != 2 || !reflect.DeepEqual(p.GPUs, []int{2 * i, 2*i + 1}) {
			t.Errorf("engine %d parts %+v", i, e.Parts)
		}
		// slime.md's example: HTTP and NCCL ports of all four engines
		// first (15000-15007), then blocks of 30 + dp size 1 from 15008.
		http, dist := 15000+2*i, 15008+31*i
		if e.HTTPPort != http || e.NCCLPort != http+1 || e.DistFirst != dist || e.DistLast != dist+30 || e.DistInitAddr != fmt.Sprintf("10.0.0.3:%d", dist) {
			t.Errorf("engine %d ports %d %d %d-%d %s", i, e.HTTPPort, e.NCCLPort, e.DistFirst, e.DistLast, e.DistInitAddr)
		}
	}
}

func TestSlimeColocate(t *testing.T) {
	cfg := slimeCfg(map[model.SlimeKey]int{model.SlimeColocate: 1, model.SlimeActorNumNodes: 2, model.SlimeRolloutGPUsPerEngine: 4})
	r, _ := mustPlan(t, cfg, uniformTopo(2, 8))
	if r.Layout.NumBundles != 16 || r.Layout.RolloutOffset != 0 || r.Plan.Mode != model.ModeCollocated {
		t.Fatalf("layout %+v", r.Layout)
	}
	if len(r.Layout.Engines) != 4 || r.Layout.Engines[2].Parts[0].Node != 1 || r.Layout.Engines[2].Parts[0].GPUs[0] != 0 {
		t.Errorf("engines %+v", r.Layout.Engines)
	}
	// With an explicit equal rollout count it is the same layout.
	cfg.Values[model.SlimeRolloutNumGPUs] = model.SlimeValue{Set: true, Value: 16}
	mustPlan(t, cfg, uniformTopo(2, 8))
}

func TestSlimeTrainAndRolloutOnly(t *testing.T) {
	r, _ := mustPlan(t, slimeCfg(map[model.SlimeKey]int{model.SlimeTrainOnly: 1, model.SlimeActorGPUsPerNode: 4}), uniformTopo(1, 8))
	if r.Plan.Mode != model.ModeTrainOnly || r.Plan.Component("rollout") != nil || r.Plan.Component("actor").Placements.Len() != 4 || r.Layout.NumBundles != 4 {
		t.Errorf("train-only: %+v", r.Plan)
	}
	r, _ = mustPlan(t, slimeCfg(map[model.SlimeKey]int{model.SlimeRolloutOnly: 1, model.SlimeRolloutNumGPUs: 4, model.SlimeRolloutGPUsPerEngine: 2}), uniformTopo(1, 8))
	if r.Plan.Mode != model.ModeRolloutOnly || r.Plan.Component("actor") != nil || r.Layout.RolloutOffset != 0 || len(r.Layout.Engines) != 2 {
		t.Errorf("rollout-only: %+v", r.Layout)
	}
}

// 4-GPU nodes (GB200) with the rollout starting mid-node: engines get
// their node from the stable order, and each node's ports start at 15000.
func TestSlimeMidNodeFourGPU(t *testing.T) {
	cfg := slimeCfg(map[model.SlimeKey]int{model.SlimeActorGPUsPerNode: 2, model.SlimeRolloutNumGPUs: 6,
		model.SlimeRolloutGPUsPerEngine: 2, model.SlimeNumGPUsPerNode: 4})
	r, ds := mustPlan(t, cfg, uniformTopo(2, 4))
	type eng struct {
		node, base, port int
		addr             string
	}
	var got []eng
	for _, e := range r.Layout.Engines {
		got = append(got, eng{e.Parts[0].Node, e.Parts[0].GPUs[0], e.HTTPPort, e.DistInitAddr})
	}
	// slime serves 2 engines per 4-GPU node (engines_per_node = 4 // 2):
	// node 0 reserves HTTP and NCCL ports for 2 before engine 0's
	// dist_init_addr block; node 1's first engine is rank 1, so it serves
	// 2 - 1 mod 2 = 1, raised to the 2 engines it holds.
	want := []eng{{0, 2, 15000, "10.0.0.1:15004"}, {1, 0, 15000, "10.0.0.2:15004"}, {1, 2, 15002, "10.0.0.2:15035"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("engines %+v, want %+v", got, want)
	}
	// slime's rank arithmetic would put engine 1 on node 0: a warning.
	var warned bool
	for _, d := range ds {
		warned = warned || d.Code == model.WarnSlimeRankNode && strings.Contains(d.Summary, "engine 1")
	}
	if !warned {
		t.Errorf("no rank-arithmetic warning: %+v", ds)
	}
}

// The default --num-gpus-per-node (8) on 4-GPU nodes is an error only for
// an engine that spans nodes: slime starts it as one SGLang node.
func TestSlimeWrongNodeSize(t *testing.T) {
	for _, gpe := range []int{1, 2, 4} {
		cfg := slimeCfg(map[model.SlimeKey]int{model.SlimeActorGPUsPerNode: 4, model.SlimeRolloutNumGPUs: 4, model.SlimeRolloutGPUsPerEngine: gpe})
		mustPlan(t, cfg, uniformTopo(2, 4))
	}
	cfg := slimeCfg(map[model.SlimeKey]int{model.SlimeActorGPUsPerNode: 4, model.SlimeRolloutNumGPUs: 8, model.SlimeRolloutGPUsPerEngine: 8})
	r, ds := slimeCheck(t, cfg, uniformTopo(3, 4))
	if r != nil || len(ds) != 1 || ds[0].Code != model.CodeSlimeNodeSize {
		t.Fatalf("%+v", ds)
	}
	cfg.Values[model.SlimeNumGPUsPerNode] = model.SlimeValue{Set: true, Value: 4}
	mustPlan(t, cfg, uniformTopo(3, 4))
}

// Engines of 16 GPUs span two whole 8-GPU nodes and share the first
// node's dist_init_addr; the ports are on the first node only.
func TestSlimeTwoNodeEngines(t *testing.T) {
	cfg := slimeCfg(map[model.SlimeKey]int{model.SlimeActorNumNodes: 1, model.SlimeRolloutNumGPUs: 32, model.SlimeRolloutGPUsPerEngine: 16})
	r, _ := mustPlan(t, cfg, uniformTopo(5, 8))
	if len(r.Layout.Engines) != 2 {
		t.Fatal(r.Layout.Engines)
	}
	for i, e := range r.Layout.Engines {
		if len(e.Parts) != 2 || e.Parts[0].Node != 1+2*i || e.Parts[1].Node != 2+2*i || e.HTTPPort != 15000 {
			t.Errorf("engine %d: %+v", i, e)
		}
	}
	// 12-GPU engines cannot span whole 8-GPU nodes.
	cfg.Values[model.SlimeRolloutNumGPUs].Value, cfg.Values[model.SlimeRolloutGPUsPerEngine].Value = 24, 12
	if r, ds := slimeCheck(t, cfg, uniformTopo(5, 8)); r != nil || ds[0].Code != model.CodeSlimeStraddle {
		t.Errorf("12-GPU engines: %+v", ds)
	}
}

// The stable order sorts IPv4 addresses numerically: 10.0.0.7 before
// 10.0.0.66, whatever the inventory's ranks; GPUs by device id.
func TestSlimeStableOrder(t *testing.T) {
	nodes := []model.Node{
		{Rank: 0, IP: "10.0.0.66", AccelCount: 2, Devices: []model.Device{{Index: 3, UUID: "GPU-3"}, {Index: 1, UUID: "GPU-1"}}},
		{Rank: 1, IP: "10.0.0.7", AccelCount: 2},
	}
	topo := model.NewSlimeTopology(nodes, []int{1, 0})
	cfg := slimeCfg(map[model.SlimeKey]int{model.SlimeTrainOnly: 1, model.SlimeActorGPUsPerNode: 4})
	r, _ := mustPlan(t, cfg, topo)
	got := actorWhere(t, r)
	want := []where{{1, 0}, {1, 1}, {0, 1}, {0, 3}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("actor %v, want %v", got, want)
	}
}

func TestSlimeDirectErrors(t *testing.T) {
	for _, c := range []struct {
		kv   map[model.SlimeKey]int
		code string
	}{
		{map[model.SlimeKey]int{}, model.CodeSlimeMissing},
		{map[model.SlimeKey]int{model.SlimeRolloutNumGPUs: 24, model.SlimeActorNumNodes: 2}, model.CodeSlimeFit},
		{map[model.SlimeKey]int{model.SlimeRolloutNumGPUs: 6, model.SlimeRolloutGPUsPerEngine: 4}, model.CodeSlimeEngineDivides},
		{map[model.SlimeKey]int{model.SlimeRolloutOnly: 1, model.SlimeRolloutNumGPUs: 8, model.SlimeRolloutGPUsPerEngine: 4, model.SlimePrefillServers: 2}, model.CodeSlimeGroups},
		{map[model.SlimeKey]int{model.SlimeRolloutExternal: 1, model.SlimeSGLangConfig: 1}, model.CodeSlimeGroups},
		{map[model.SlimeKey]int{model.SlimeTrainOnly: 1, model.SlimeRolloutOnly: 1, model.SlimeRolloutNumGPUs: 8}, model.CodeSlimeModes},
		{map[model.SlimeKey]int{model.SlimeRolloutOnly: 1, model.SlimeRolloutNumGPUs: 16, model.SlimeRolloutGPUsPerEngine: 2, model.SlimeDPSize: 5000}, model.CodeSlimePortRange},
	} {
		r, ds := slimeCheck(t, slimeCfg(c.kv), uniformTopo(4, 8))
		if r != nil || len(ds) == 0 || ds[0].Code != c.code {
			t.Errorf("%v: %+v, want %s", c.kv, ds, c.code)
		}
	}
	// Two inventory nodes with one address plan overlapping ports.
	topo := uniformTopo(2, 8)
	topo.Nodes[1].IP = topo.Nodes[0].IP
	r, ds := slimeCheck(t, slimeCfg(map[model.SlimeKey]int{model.SlimeRolloutOnly: 1, model.SlimeRolloutNumGPUs: 16, model.SlimeRolloutGPUsPerEngine: 8}), topo)
	if r != nil || ds[0].Code != model.CodeSlimePortOverlap {
		t.Errorf("overlap: %+v", ds)
	}
}
