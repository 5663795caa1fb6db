package strategies_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/strategies"
)

// nodes builds an inventory: node i has counts[i] NV_GPU devices and the IP
// 10.0.0.{i+1}, as in RLinf's test fixture (semantics §7).
func nodes(counts ...int) *model.Inventory {
	inv := &model.Inventory{Source: "test"}
	for i, c := range counts {
		inv.Nodes = append(inv.Nodes, model.Node{
			Rank: i, Hostname: fmt.Sprintf("n%d", i), IP: fmt.Sprintf("10.0.0.%d", i+1),
			AccelType: model.AccelNVGPU, AccelModel: "Mock", AccelCount: c,
		})
	}
	return inv
}

// withRobots adds robots of type typ to node i of inv.
func withRobots(inv *model.Inventory, i int, typ string, n int) *model.Inventory {
	if inv.Nodes[i].Hardware == nil {
		inv.Nodes[i].Hardware = map[string]int{}
	}
	inv.Nodes[i].Hardware[typ] = n
	return inv
}

// loadConfig parses YAML with the real grammar and fails the test on errors.
func loadConfig(t *testing.T, src string) *model.Config {
	t.Helper()
	cfg, ds := grammar.LoadConfig("test.yaml", []byte(src), grammar.DefaultLimits)
	if ds.HasErrors() || cfg == nil {
		t.Fatalf("config does not load: %s", diagText(ds))
	}
	return cfg
}

// groupsCluster builds a Cluster whose node groups come from a YAML
// node_groups list (given as the lines under `node_groups:`).
func groupsCluster(t *testing.T, inv *model.Inventory, groups string) *strategies.Cluster {
	t.Helper()
	src := fmt.Sprintf("cluster:\n  num_nodes: %d\n  component_placement: {}\n", len(inv.Nodes))
	if groups != "" {
		src += "  node_groups:\n" + groups
	}
	return strategies.NewCluster(inv, loadConfig(t, src))
}

func diagText(ds model.Diagnostics) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "\n  %s %s %s: %s", d.Severity, d.Code, d.Primary, d.Summary)
	}
	return b.String()
}

// pw is the expected value of a placement's fields; vis is the comma-joined
// visible accelerators. label and accel are checked when non-empty.
type pw struct {
	node, pnode, lacc, lrank, lws int
	vis                           string
	lhw                           []int
	label, accel                  string
}

func checkPlacements(t *testing.T, got []model.Placement, want []pw) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d placements, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		lhw := g.LocalHardwareRanks
		if lhw == nil {
			lhw = []int{}
		}
		wl := w.lhw
		if wl == nil {
			wl = []int{}
		}
		if g.Rank != i || g.ClusterNodeRank != w.node || g.PlacementNodeRank != w.pnode || g.LocalAcceleratorRank != w.lacc ||
			g.LocalRank != w.lrank || g.LocalWorldSize != w.lws || strings.Join(g.VisibleAccelerators, ",") != w.vis ||
			!reflect.DeepEqual(lhw, wl) || (w.label != "" && g.NodeGroupLabel != w.label) || (w.accel != "" && g.AcceleratorType != w.accel) {
			t.Errorf("placement %d:\n got  rank=%d node=%d pnode=%d lacc=%d lrank=%d lws=%d vis=%q lhw=%v label=%s accel=%s\n want rank=%d node=%d pnode=%d lacc=%d lrank=%d lws=%d vis=%q lhw=%v label=%s accel=%s",
				i, g.Rank, g.ClusterNodeRank, g.PlacementNodeRank, g.LocalAcceleratorRank, g.LocalRank, g.LocalWorldSize,
				strings.Join(g.VisibleAccelerators, ","), g.LocalHardwareRanks, g.NodeGroupLabel, g.AcceleratorType,
				i, w.node, w.pnode, w.lacc, w.lrank, w.lws, w.vis, wl, w.label, w.accel)
		}
	}
}

// visible returns each placement's visible accelerators, comma-joined.
func visible(ps []model.Placement) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = strings.Join(p.VisibleAccelerators, ",")
	}
	return out
}

func nodesOf(ps []model.Placement) []int {
	out := make([]int, len(ps))
	for i, p := range ps {
		out[i] = p.ClusterNodeRank
	}
	return out
}

func field(ps []model.Placement, f func(model.Placement) int) []int {
	out := make([]int, len(ps))
	for i, p := range ps {
		out[i] = f(p)
	}
	return out
}

// failureText is what a strategy's failure says for the rule behind a
// diagnostic code: strategies refuse what RLinf's would, in words (codes
// are the rules' business).
var failureText = map[string][]string{
	model.CodeSpansNodes:         {"cannot span nodes"},
	model.CodeNeedsHardware:      {"needs hardware"},
	model.CodeNoHardware:         {"no hardware found"},
	"node index":                 {"out of range for node groups"},
	model.CodeMixedHardware:      {"mix"},
	model.CodeUnknownGroup:       {"does not exist"},
	model.CodeEmptyGroup:         {"has no nodes"},
	model.CodeRankOutOfRange:     {"must be non-negative"},
	"hardware range":             {"out of range", "exceed"},
	model.CodeRankReversed:       {"at least the start"},
	model.CodePackedDivisible:    {"must be divisible"},
	model.CodeProcessHardwareDup: {"twice"},
	model.CodeEmptyRanks:         {"must not be empty", "has no hardware ranks"},
	model.CodeInvalidValue:       {"must be at least 1"},
	model.CodeGroupsOverlap:      {"both contain node"},
	model.CodeNodeOrder:          {"sorted by node"},
}

// wantFailure asserts a strategy failed for the rule behind code (and,
// when process >= -1, for that worker).
func wantFailure(t *testing.T, ps model.Placements, f *strategies.Failure, code string, process int) {
	t.Helper()
	if f == nil {
		t.Fatalf("want failure %s, got %d placements: %+v", code, ps.Len(), ps.Slice())
	}
	texts, ok := failureText[code]
	if !ok {
		t.Fatalf("no failure text for %s", code)
	}
	found := false
	for _, x := range texts {
		found = found || strings.Contains(f.Msg, x)
	}
	if !found {
		t.Errorf("failure %q does not say %q (%s)", f.Msg, texts, code)
	}
	if process >= -1 && f.Process != process {
		t.Errorf("failure for worker %d (%s), want worker %d", f.Process, f.Msg, process)
	}
}

// mustPlace(t)(strategy.Place(c, iso)) returns the placements or fails.
func mustPlace(t *testing.T) func(model.Placements, *strategies.Failure) []model.Placement {
	return func(ps model.Placements, f *strategies.Failure) []model.Placement {
		t.Helper()
		if f != nil {
			t.Fatalf("unexpected failure: %s", f.Msg)
		}
		return ps.Slice()
	}
}

// The placement classes, as --mode names them ("" infers it).
const (
	detect        = model.PlacementClass("")
	hybrid        = model.ClassHybrid
	modelParallel = model.ClassModelParallel
)

// planned is a config's plan with every diagnostic the check gives it.
type planned struct {
	Plan        *model.Plan
	Cluster     *strategies.Cluster
	Diagnostics model.Diagnostics
}

// plan checks src on inv under the class through the whole pipeline (the
// rules judge, strategies expand a valid config), as the CLI does.
func plan(t *testing.T, src string, inv *model.Inventory, class model.PlacementClass) *planned {
	t.Helper()
	cfg, ds := grammar.LoadConfig("test.yaml", []byte(src), grammar.DefaultLimits)
	if ds.HasErrors() || cfg == nil {
		t.Fatalf("config does not load: %s", diagText(ds))
	}
	o := pipeline.CheckBytes("test.yaml", []byte(src), pipeline.Options{Inventory: inv, GPUsPerNode: -1, Class: class})
	r := &planned{Diagnostics: o.Diagnostics}
	if o.Result != nil {
		r.Plan, r.Cluster = o.Result.Plan, o.Result.Cluster
	}
	return r
}

// mustPlan plans and fails on any error diagnostic.
func mustPlan(t *testing.T, src string, inv *model.Inventory, class model.PlacementClass) *planned {
	t.Helper()
	r := plan(t, src, inv, class)
	if r.Diagnostics.HasErrors() || r.Plan == nil {
		t.Fatalf("plan failed: %s", diagText(r.Diagnostics))
	}
	return r
}

// findDiag returns the first diagnostic with code, or nil.
func findDiag(ds model.Diagnostics, code string) *model.Diagnostic {
	for i := range ds {
		if ds[i].Code == code {
			return &ds[i]
		}
	}
	return nil
}

// wantDiag asserts a diagnostic with code and severity exists.
func wantDiag(t *testing.T, ds model.Diagnostics, code string, sev model.Severity) *model.Diagnostic {
	t.Helper()
	d := findDiag(ds, code)
	if d == nil {
		t.Fatalf("no %s diagnostic; got:%s", code, diagText(ds))
	}
	if d.Severity != sev {
		t.Errorf("%s has severity %s, want %s", code, d.Severity, sev)
	}
	return d
}

// comp returns a component of a plan or fails.
func comp(t *testing.T, r *planned, name string) *model.ComponentPlan {
	t.Helper()
	cp := r.Plan.Component(name)
	if cp == nil {
		t.Fatalf("no component %q in plan", name)
	}
	return cp
}

// posOf returns the 1-based line and column of the nth (0-based)
// occurrence of sub in src.
func posOf(t *testing.T, src, sub string, nth int) (int, int) {
	t.Helper()
	for li, line := range strings.Split(src, "\n") {
		for off := 0; ; {
			j := strings.Index(line[off:], sub)
			if j < 0 {
				break
			}
			if nth == 0 {
				return li + 1, off + j + 1
			}
			nth--
			off += j + 1
		}
	}
	t.Fatalf("%q not in source", sub)
	return 0, 0
}
