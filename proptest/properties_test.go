package proptest

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/rules"
	"github.com/rlsolve/rlsolve/solver"
	"github.com/rlsolve/rlsolve/strategies"
)

// Property tests of the whole check. See gopter_test.go for the seed and
// count (RLSOLVE_PROPTEST_SEED, RLSOLVE_PROPTEST_COUNT) and gen_test.go for
// the generators.

// ptStats counts what the generated cases were, so that a run shows that
// both valid and invalid configs were common.
type ptStats struct {
	cases, grammarErr, valid, invalid int
	knownBugs                         int
	codes                             map[string]int
}

func (s *ptStats) String() string {
	var cs []string
	for c, n := range s.codes {
		cs = append(cs, fmt.Sprintf("%s:%d", c, n))
	}
	sort.Strings(cs)
	return fmt.Sprintf("%d cases: %d with grammar errors, %d valid, %d invalid by placement rules, %d known bugs; solver codes %s",
		s.cases, s.grammarErr, s.valid, s.invalid, s.knownBugs, strings.Join(cs, " "))
}

func ptErrors(ds model.Diagnostics) string {
	var out []string
	for _, d := range ds {
		if d.Severity == model.SeverityError {
			out = append(out, fmt.Sprintf("%s %s: %s", d.Code, d.Primary, d.Summary))
		}
	}
	return strings.Join(out, "\n  ")
}

// configOnly are the rules about the config that expansion cannot see: a
// config they reject still expands (RLinf, too, fails on them only when it
// reads the config or starts the cluster, not in its strategies).
var configOnly = []string{model.CodeDuplicateLabel, model.CodeEnvNodeDuplicated, model.CodeEnvVarDuplicated,
	model.CodeHardwareConflict, model.CodeMPMissing, model.CodeMPNotContiguous, model.CodeMPMode, model.CodeMPCollocatedExtra,
	model.CodeMPTPDivisible, model.CodeMPTPTooLarge, model.CodeMPRecompute, model.CodeMPAutoOrder, model.CodeMPSizes,
	model.CodeResourceOrder, model.CodeDuplicateResource, model.CodeProcessOrder, model.CodeDuplicateProcess,
	model.CodeMixedTypedUntyped, model.CodeGroupsOverlap, model.CodeInventoryNodes, model.CodeActorParallel}

// TestPropExpandExactlyWhenAccepted: the solver is the only judge. For
// random configs, expansion (which judges nothing) succeeds whenever the
// solver accepts, and fails whenever the solver rejects for a reason
// expansion can see (configOnly lists those it cannot); valid plans obey
// every rule (TestPropValidPlansObeyRules).
func TestPropExpandExactlyWhenAccepted(t *testing.T) {
	st := &ptStats{codes: map[string]int{}}
	props := gopter.NewProperties(propParams(t))
	props.Property("expansion succeeds exactly when the solver accepts", prop.ForAll(func(s ptSpec) string {
		c := ptRender(s)
		st.cases++
		cfg, gds := grammar.LoadConfig("gen.yaml", []byte(c.YAML), grammar.DefaultLimits)
		if cfg == nil || cfg.NumNodes <= 0 || gds.HasErrors() {
			st.grammarErr++
			return ""
		}
		res, err := solver.Check(rules.Build(cfg, c.Inv, rules.Options{Class: c.Mode}), solver.Options{NoFixes: true})
		if err != nil {
			return fmt.Sprintf("solver error %v on\n%s", err, c.YAML)
		}
		_, xerr := strategies.Expand(cfg, c.Inv, strategies.Options{Class: c.Mode})
		accepted := !res.Diagnostics.HasErrors()
		for _, d := range res.Diagnostics {
			st.codes[d.Code]++
		}
		if accepted {
			st.valid++
		} else {
			st.invalid++
		}
		switch {
		case accepted && xerr != nil:
			return fmt.Sprintf("the solver accepts, expansion fails: %v (class %s)\nconfig:\n%s", xerr, c.Mode, c.YAML)
		case !accepted && xerr == nil && !ptOnlyConfigRules(res.Diagnostics):
			return fmt.Sprintf("the solver rejects, expansion succeeds (class %s)\nsolver errors:\n  %s\nconfig:\n%s", c.Mode, ptErrors(res.Diagnostics), c.YAML)
		}
		return ""
	}, ptGenAny()))
	propRun(t, props)
	t.Log(st)
}

// ptOnlyConfigRules reports whether some error is of a rule expansion cannot
// see.
func ptOnlyConfigRules(ds model.Diagnostics) bool {
	for _, d := range ds {
		if d.Severity == model.SeverityError && slices.Contains(configOnly, d.Code) {
			return true
		}
	}
	return false
}

// TestPropValidPlansObeyRules: when the pipeline says a config is valid,
// its plan obeys every placement rule.
func TestPropValidPlansObeyRules(t *testing.T) {
	valid := map[model.PlacementMode]int{}
	props := gopter.NewProperties(propParams(t))
	props.Property("valid plans obey the rules", prop.ForAll(func(s ptSpec) string {
		c := ptRender(s)
		o := pipeline.CheckBytes("gen.yaml", []byte(c.YAML), pipeline.Options{Inventory: c.Inv, GPUsPerNode: -1, Class: c.Mode})
		if o.Diagnostics.HasErrors() {
			return ""
		}
		if o.Result != nil && o.Result.Plan != nil {
			valid[o.Result.Plan.Mode]++
		}
		if why := ptPlanViolation(o); why != "" {
			return why + "\nconfig:\n" + c.YAML
		}
		return ""
	}, ptGenAny()))
	propRun(t, props)
	t.Logf("valid configs checked, by placement mode: %v", valid)
}

// ptPlanViolation returns the first rule a valid outcome's plan breaks.
func ptPlanViolation(o *pipeline.Outcome) string {
	if o.Result == nil || o.Result.Plan == nil {
		return "no plan for a valid config"
	}
	cl := o.Result.Cluster
	plan := o.Result.Plan
	for ci := range plan.Components {
		cp := &plan.Components[ci]
		ps := cp.Placements.Slice()
		if len(ps) == 0 {
			return fmt.Sprintf("%s: no workers", cp.Name)
		}
		switch cp.Strategy.Kind {
		case model.StrategyFlexible:
			lists := cp.Strategy.HardwareRanks()
			if len(ps) != len(lists) {
				return fmt.Sprintf("%s: %d workers for %d processes", cp.Name, len(ps), len(lists))
			}
			r, missing := cl.Resolve(cp.Strategy.NodeGroups)
			if missing != "" {
				return fmt.Sprintf("%s: group %q missing", cp.Name, missing)
			}
			for i, hw := range lists {
				for _, h := range hw {
					if h < 0 || h >= r.Total {
						return fmt.Sprintf("%s: process %d has hardware rank %d of %d", cp.Name, i, h, r.Total)
					}
					if r.Locate(h).Node != r.Locate(hw[0]).Node {
						return fmt.Sprintf("%s: process %d's hardware %v spans nodes", cp.Name, i, hw)
					}
				}
			}
		case model.StrategyNode:
			if n := len(cp.Strategy.NodeRanks()); len(ps) != n {
				return fmt.Sprintf("%s: %d workers for %d node processes", cp.Name, len(ps), n)
			}
		case model.StrategyPacked:
			st := cp.Strategy
			nhpp := max(st.HardwarePerProcess, 1)
			if want := (st.End - st.Start + 1) / nhpp; len(ps) != want {
				return fmt.Sprintf("%s: %d workers, Packed(%d,%d,nhpp=%d) launches %d", cp.Name, len(ps), st.Start, st.End, nhpp, want)
			}
		}
		lastNode := -1
		perNode := map[int][]int{}
		for i := range ps {
			p := &ps[i]
			if p.Rank != i {
				return fmt.Sprintf("%s: worker %d has rank %d", cp.Name, i, p.Rank)
			}
			if p.ClusterNodeRank < 0 || p.ClusterNodeRank >= len(cl.Nodes) {
				return fmt.Sprintf("%s: worker %d on node %d of %d", cp.Name, i, p.ClusterNodeRank, len(cl.Nodes))
			}
			if p.ClusterNodeRank < lastNode {
				return fmt.Sprintf("%s: worker %d on node %d after node %d", cp.Name, i, p.ClusterNodeRank, lastNode)
			}
			if p.ClusterNodeRank != lastNode && lastNode >= 0 && p.PlacementNodeRank != ps[i-1].PlacementNodeRank+1 {
				return fmt.Sprintf("%s: worker %d placement_node_rank %d after %d", cp.Name, i, p.PlacementNodeRank, ps[i-1].PlacementNodeRank)
			}
			lastNode = p.ClusterNodeRank
			perNode[p.ClusterNodeRank] = append(perNode[p.ClusterNodeRank], i)
			node := &cl.Nodes[p.ClusterNodeRank]
			all := cl.AllVisible(p.ClusterNodeRank)
			switch p.HardwareType {
			case "":
				if len(p.LocalHardwareRanks) != 0 || !slices.Equal(p.VisibleAccelerators, all) {
					return fmt.Sprintf("%s: node worker %d has hardware %v, visible %v", cp.Name, i, p.LocalHardwareRanks, p.VisibleAccelerators)
				}
			default:
				count := cl.Count(p.ClusterNodeRank, p.HardwareType)
				if len(p.LocalHardwareRanks) == 0 {
					return fmt.Sprintf("%s: worker %d has no hardware", cp.Name, i)
				}
				// (A group named twice, "g,g", can give one worker the
				// same device twice, as RLinf does: ranks are unique per
				// resolver, not per node.)
				for _, h := range p.LocalHardwareRanks {
					if h < 0 || h >= count {
						return fmt.Sprintf("%s: worker %d has local %s %v on node %d with %d", cp.Name, i, p.HardwareType, p.LocalHardwareRanks, p.ClusterNodeRank, count)
					}
				}
				if p.IsolateAccelerator && p.HardwareType == model.HardwareAccelerator {
					want := make([]string, len(p.LocalHardwareRanks))
					for k, h := range p.LocalHardwareRanks {
						want[k] = strconv.Itoa(h)
					}
					if !slices.Equal(p.VisibleAccelerators, want) || p.LocalAcceleratorRank != p.LocalHardwareRanks[0] {
						return fmt.Sprintf("%s: isolated worker %d sees %v (local accelerator %d) but has GPUs %v", cp.Name, i, p.VisibleAccelerators, p.LocalAcceleratorRank, p.LocalHardwareRanks)
					}
				} else if !slices.Equal(p.VisibleAccelerators, all) {
					return fmt.Sprintf("%s: worker %d on %s sees %v, not all of node %d's GPUs", cp.Name, i, p.HardwareType, p.VisibleAccelerators, p.ClusterNodeRank)
				}
			}
			distinct := map[string]bool{}
			for _, v := range p.VisibleAccelerators {
				distinct[v] = true
			}
			if len(distinct) > node.AccelCount {
				return fmt.Sprintf("%s: worker %d sees %d GPUs on a node with %d", cp.Name, i, len(distinct), node.AccelCount)
			}
			// Group env vars reach the worker.
			env := cl.Env(cp, i)
			for k, v := range cl.GroupEnv(p.NodeGroupLabel, p.ClusterNodeRank) {
				if env[k] != v {
					return fmt.Sprintf("%s: worker %d lacks its group's %s=%s", cp.Name, i, k, v)
				}
			}
		}
		for node, ws := range perNode {
			for k, i := range ws {
				if ps[i].LocalRank != k || ps[i].LocalWorldSize != len(ws) {
					return fmt.Sprintf("%s: worker %d on node %d has local_rank %d / local_world_size %d, want %d / %d",
						cp.Name, i, node, ps[i].LocalRank, ps[i].LocalWorldSize, k, len(ws))
				}
			}
		}
	}
	if why := ptMPViolation(plan); why != "" {
		return why
	}
	for _, g := range o.Config.NodeGroups {
		keys := map[string]bool{}
		for _, ec := range g.EnvConfigs {
			for _, v := range ec.EnvVars {
				if keys[v.Key] {
					return fmt.Sprintf("group %q sets %s twice", g.Label, v.Key)
				}
				keys[v.Key] = true
			}
		}
	}
	return ""
}

// ptGPUSet is the (node, GPU) pairs a component's workers see.
func ptGPUSet(cp *model.ComponentPlan) map[[2]int]bool {
	out := map[[2]int]bool{}
	for _, p := range cp.Placements.All() {
		for _, h := range p.LocalHardwareRanks {
			out[[2]int{p.ClusterNodeRank, h}] = true
		}
	}
	return out
}

// ptMPViolation: collocated actor and rollout cover the same GPUs;
// disaggregated actor, rollout and inference are disjoint.
func ptMPViolation(plan *model.Plan) string {
	actor, rollout := plan.Component("actor"), plan.Component("rollout")
	infer := plan.Component("inference")
	if infer == nil {
		infer = plan.Component("actor_inference")
	}
	switch plan.Mode {
	case model.ModeCollocated:
		if actor == nil || rollout == nil {
			return "collocated plan without actor or rollout"
		}
		if a, r := ptGPUSet(actor), ptGPUSet(rollout); !reflect.DeepEqual(a, r) {
			return fmt.Sprintf("collocated actor GPUs %v differ from rollout GPUs %v", a, r)
		}
	case model.ModeDisaggregated:
		sets := []*model.ComponentPlan{actor, rollout, infer}
		for i := range sets {
			for j := i + 1; j < len(sets); j++ {
				if sets[i] == nil || sets[j] == nil {
					continue
				}
				b := ptGPUSet(sets[j])
				for k := range ptGPUSet(sets[i]) {
					if b[k] {
						return fmt.Sprintf("disaggregated %s and %s share GPU %v", sets[i].Name, sets[j].Name, k)
					}
				}
			}
		}
	}
	return ""
}

// TestPropIndependentConflicts: a config with several known-invalid parts,
// each in its own component or group, reports each as its own conflict.
func TestPropIndependentConflicts(t *testing.T) {
	props := gopter.NewProperties(propParams(t))
	picks := ptSlice(2, 4, gen.IntRange(0, len(ptInjections)-1), reflect.TypeOf(0))
	props.Property("independent conflicts are reported separately", prop.ForAll(func(p []int) string {
		y, codes := ptIndependent(p)
		cfg, _ := grammar.LoadConfig("ind.yaml", []byte(y), grammar.DefaultLimits)
		if cfg == nil {
			return "no config from\n" + y
		}
		inv := &model.Inventory{Source: "proptest", Nodes: []model.Node{{Rank: 0, AccelCount: 4}, {Rank: 1, AccelCount: 4}}}
		res, err := solver.Check(rules.Build(cfg, inv, rules.Options{Class: model.ClassHybrid}), solver.Options{})
		if err != nil {
			return err.Error()
		}
		if n := res.Diagnostics.Count(model.SeverityError); n < len(codes) {
			return fmt.Sprintf("%d conflicts for %d injected (%v):\n  %s\nconfig:\n%s", n, len(codes), codes, ptErrors(res.Diagnostics), y)
		}
		for _, code := range codes {
			found := false
			for _, d := range res.Diagnostics {
				found = found || d.Code == code
			}
			if !found {
				return fmt.Sprintf("injected %s not reported (%v):\n  %s\nconfig:\n%s", code, codes, ptErrors(res.Diagnostics), y)
			}
		}
		o := pipeline.CheckBytes("ind.yaml", []byte(y), pipeline.Options{Inventory: inv, GPUsPerNode: -1, Class: model.ClassHybrid})
		for _, code := range codes {
			n := 0
			for _, d := range o.Diagnostics {
				if d.Code == code && d.Severity == model.SeverityError {
					n++
				}
			}
			if n != 1 {
				return fmt.Sprintf("pipeline reports injected %s %d times, want once:\n  %s\nconfig:\n%s", code, n, ptErrors(o.Diagnostics), y)
			}
		}
		return ""
	}, picks))
	propRun(t, props)
}

// TestPropGeneratorMix keeps the generator honest: both valid and invalid
// configs are common, in both modes.
func TestPropGeneratorMix(t *testing.T) {
	for _, mp := range []bool{false, true} {
		g := ptGenSpec(mp)
		params := gopter.DefaultGenParameters()
		params.Rng.Seed(propSeed(t))
		valid, total := 0, 200
		for i := 0; i < total; i++ {
			v, ok := g(params).Retrieve()
			if !ok {
				t.Fatal("generator gave no value")
			}
			c := ptRender(v.(ptSpec))
			o := pipeline.CheckBytes("gen.yaml", []byte(c.YAML), pipeline.Options{Inventory: c.Inv, GPUsPerNode: -1, Class: c.Mode})
			if !o.Diagnostics.HasErrors() {
				valid++
			}
		}
		t.Logf("model-parallel=%v: %d of %d generated configs valid", mp, valid, total)
		if valid < total/5 || valid > total*4/5 {
			t.Errorf("model-parallel=%v: %d of %d valid; the generator should make both common", mp, valid, total)
		}
	}
}

// TestSolverRegressions are configs the property tests once found the
// solver accepting although RLinf refuses them; each must stay an error.
func TestSolverRegressions(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, code string
		gpus             []int
	}{
		// Model-parallel placement packs components onto GPUs: a cluster
		// without any is refused (RLinf's Packed needs hardware).
		{"MP without GPUs", "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: \"0\"\n    rollout: \"0\"\n    reward: \"0\"\n",
			model.CodeNeedsHardware, []int{0}},
		// In AUTO mode the TP sanity check (semantics §5.2 step 5) still applies.
		{"AUTO TP too large", "cluster:\n  num_nodes: 1\n  auto_scheduler: true\n  component_placement:\n    actor: \"0\"\n    rollout: \"1\"\n    reward: \"1\"\n" +
			"rollout:\n  tensor_parallel_size: 2\n", model.CodeMPTPTooLarge, []int{2}},
		// AUTO places rollout with Packed(nhpp = len // dp): 5 GPUs at TP 2
		// give dp 2 and nhpp 2, which Packed refuses (5 % 2 != 0).
		{"AUTO rollout not divisible", "cluster:\n  num_nodes: 1\n  auto_scheduler: true\n  component_placement:\n    actor: \"0\"\n    rollout: \"1-5\"\n    reward: \"1\"\n" +
			"rollout:\n  tensor_parallel_size: 2\n", model.CodePackedDivisible, []int{6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := &model.Inventory{Source: "regression"}
			for i, g := range tc.gpus {
				inv.Nodes = append(inv.Nodes, model.Node{Rank: i, AccelType: model.AccelNVGPU, AccelCount: g})
			}
			o := pipeline.CheckBytes("bug.yaml", []byte(tc.yaml), pipeline.Options{Inventory: inv, GPUsPerNode: -1, Class: model.ClassModelParallel})
			found := false
			for _, d := range o.Diagnostics {
				found = found || d.Code == tc.code && d.Severity == model.SeverityError
			}
			if !found {
				t.Errorf("want %s, got:\n  %s", tc.code, ptErrors(o.Diagnostics))
			}
		})
	}
}
