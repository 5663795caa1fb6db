package grammar_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
)

// groupsYAML wraps node_groups lines into a config with num_nodes n.
func groupsYAML(n int, groups string) string {
	return "cluster:\n  num_nodes: " + itoa(n) + "\n  component_placement:\n    actor: all\n  node_groups:\n" + groups
}

// Every check of semantics §1.2-1.7: the code, and where it points (the
// nth occurrence of `at` in the source).
func TestClusterSectionErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, code, at string
		nth                 int
	}{
		// §1.2 top-level keys
		{"missing num_nodes", "cluster:\n  component_placement: {}\n", model.CodeMissingField, "cluster", 0},
		{"missing component_placement", "cluster:\n  num_nodes: 1\n", model.CodeMissingField, "cluster", 0},
		{"cluster not a mapping", "cluster: [1]\n", model.CodeWrongType, "[1]", 0},
		{"no cluster section", "trainer: {}\n", model.CodeMissingField, "trainer", 0},
		{"component_placement a list", "cluster:\n  num_nodes: 1\n  component_placement: [a]\n", model.CodeWrongType, "[a]", 0},
		{"placement mapping without placement", "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: {node_group: cluster}\n", model.CodeMissingField, "{node_group", 0},
		// §1.7 step 5: num_nodes
		{"num_nodes 0", "cluster:\n  num_nodes: 0\n  component_placement: {}\n", model.CodeInvalidValue, "0", 0},
		{"num_nodes -1", "cluster:\n  num_nodes: -1\n  component_placement: {}\n", model.CodeInvalidValue, "-1", 0},
		{"num_nodes true", "cluster:\n  num_nodes: true\n  component_placement: {}\n", model.CodeWrongType, "true", 0},
		{"num_nodes string", "cluster:\n  num_nodes: \"2\"\n  component_placement: {}\n", model.CodeWrongType, "2", 0},
		{"num_nodes float", "cluster:\n  num_nodes: 2.0\n  component_placement: {}\n", model.CodeWrongType, "2.0", 0},
		{"num_nodes too many", "cluster:\n  num_nodes: 1000000\n  component_placement: {}\n", model.CodeLimit, "1000000", 0},
		// §1.3 node_groups entries
		{"node_groups a mapping", "cluster:\n  num_nodes: 1\n  component_placement: {}\n  node_groups: {label: a}\n", model.CodeWrongType, "{label", 0},
		{"entry not a mapping", groupsYAML(1, "    - train\n"), model.CodeWrongType, "train", 0},
		{"missing label", groupsYAML(1, "    - node_ranks: 0\n"), model.CodeMissingField, "node_ranks", 0},
		{"missing node_ranks", groupsYAML(1, "    - label: a\n"), model.CodeMissingField, "label", 0},
		{"unknown field", groupsYAML(1, "    - label: a\n      node_ranks: 0\n      nodes: 1\n"), model.CodeUnknownField, "nodes: 1", 1},
		{"reserved cluster", groupsYAML(1, "    - {label: cluster, node_ranks: 0}\n"), model.CodeReservedLabel, "cluster", 1},
		{"reserved node", groupsYAML(1, "    - {label: node, node_ranks: 0}\n"), model.CodeReservedLabel, "node, n", 0},
		{"hardware and hardware_type", groupsYAML(1, "    - label: f\n      node_ranks: 0\n      hardware_type: Franka\n      hardware: {type: Franka, configs: []}\n"),
			model.CodeHardwareExclusive, "hardware_type", 0},
		{"hardware and ignore_hardware", groupsYAML(1, "    - label: f\n      node_ranks: 0\n      ignore_hardware: true\n      hardware: {type: Franka, configs: []}\n"),
			model.CodeHardwareExclusive, "true", 0},
		// §1.7 step 3: node_ranks
		{"node_ranks out of range", groupsYAML(2, "    - {label: a, node_ranks: 0-3}\n"), model.CodeNodeRanksRange, "0-3", 0},
		{"node_ranks bad format", groupsYAML(2, "    - {label: a, node_ranks: bad-format}\n"), model.CodeRankSyntax, "", 0}, // position: see TestParsePlacementWordBeforeDash
		{"node_ranks bad number", groupsYAML(2, "    - {label: a, node_ranks: 0-x}\n"), model.CodeRankSyntax, "x}", 0},
		{"node_ranks reversed", groupsYAML(4, "    - {label: a, node_ranks: 3-1}\n"), model.CodeRankReversed, "3-1", 0},
		// §1.5 hardware
		{"hardware not a mapping", groupsYAML(1, "    - {label: f, node_ranks: 0, hardware: Franka}\n"), model.CodeWrongType, "Franka", 0},
		{"hardware missing configs", groupsYAML(1, "    - {label: f, node_ranks: 0, hardware: {type: Franka}}\n"), model.CodeMissingField, "{type", 0},
		{"hardware unknown key", groupsYAML(1, "    - {label: f, node_ranks: 0, hardware: {type: Franka, configs: [], count: 1}}\n"), model.CodeUnknownField, "count", 0},
		{"unsupported type", groupsYAML(1, "    - {label: f, node_ranks: 0, hardware: {type: UnknownHardware, configs: []}}\n"), model.CodeUnsupportedHardware, "UnknownHardware", 0},
		{"config not a mapping", groupsYAML(1, "    - {label: f, node_ranks: 0, hardware: {type: Franka, configs: [BAD]}}\n"), model.CodeWrongType, "BAD", 0},
		{"config without node_rank", groupsYAML(1, "    - {label: f, node_ranks: 0, hardware: {type: Franka, configs: [{robot_ip: 10.0.0.1}]}}\n"), model.CodeMissingField, "{robot_ip", 0},
		{"config unknown field", groupsYAML(1, "    - {label: f, node_ranks: 0, hardware: {type: Franka, configs: [{node_rank: 0, unknown_field: 1}]}}\n"), model.CodeUnknownField, "unknown_field", 0},
		{"node_rank a string", groupsYAML(1, "    - {label: f, node_ranks: 0, hardware: {type: Franka, configs: [{node_rank: \"0\"}]}}\n"), model.CodeWrongType, "0\"}", 0},
		{"robot_ip placeholder", groupsYAML(1, "    - {label: f, node_ranks: 0, hardware: {type: Franka, configs: [{node_rank: 0, robot_ip: ROBOT_IP}]}}\n"), model.CodeInvalidValue, "ROBOT_IP", 0},
		{"bad arm_variant", groupsYAML(1, "    - {label: g, node_ranks: 0, hardware: {type: GimArm, configs: [{node_rank: 0, arm_variant: big}]}}\n"), model.CodeInvalidValue, "big", 0},
		{"duplicate configs", groupsYAML(1, "    - label: f\n      node_ranks: 0\n      hardware:\n        type: Franka\n        configs:\n          - {node_rank: 0, robot_ip: 10.0.0.1}\n          - {node_rank: 0, robot_ip: 10.0.0.1}\n"),
			model.CodeHardwareDuplicate, "{node_rank", 1},
		{"config node outside group", groupsYAML(2, "    - {label: f, node_ranks: 0, hardware: {type: Franka, configs: [{node_rank: 1}]}}\n"), model.CodeHardwareNodeOutside, "1}", 0},
		// §1.4 env_configs
		{"env_configs a mapping", groupsYAML(1, "    - label: a\n      node_ranks: 0\n      env_configs:\n        node_ranks: 0\n"), model.CodeWrongType, "node_ranks", 1},
		{"env_config not a mapping", groupsYAML(1, "    - {label: a, node_ranks: 0, env_configs: [x]}\n"), model.CodeWrongType, "x]", 0},
		{"env_config missing node_ranks", groupsYAML(1, "    - {label: a, node_ranks: 0, env_configs: [{env_vars: []}]}\n"), model.CodeMissingField, "{env_vars", 0},
		{"env_vars a mapping", groupsYAML(1, "    - {label: a, node_ranks: 0, env_configs: [{node_ranks: 0, env_vars: {A: 1}}]}\n"), model.CodeWrongType, "{A", 0},
		{"env var not a mapping", groupsYAML(1, "    - {label: a, node_ranks: 0, env_configs: [{node_ranks: 0, env_vars: [BAD]}]}\n"), model.CodeWrongType, "BAD", 0},
		{"env var with two keys", groupsYAML(1, "    - {label: a, node_ranks: 0, env_configs: [{node_ranks: 0, env_vars: [{A: 1, B: 2}]}]}\n"), model.CodeWrongType, "{A", 0},
		{"env ranks not a subset", groupsYAML(3, "    - {label: a, node_ranks: \"0,2\", env_configs: [{node_ranks: 1}]}\n"), model.CodeEnvRanksNotSubset, "1}", 0},
		{"env ranks out of range", groupsYAML(4, "    - {label: a, node_ranks: 0-1, env_configs: [{node_ranks: 0-3}]}\n"), model.CodeNodeRanksRange, "0-3", 0},
		// §1.6 profiling
		{"profiling without backend", "cluster:\n  num_nodes: 1\n  component_placement: {}\n  profiling: {enabled: true}\n", model.CodeMissingField, "{enabled", 0},
		{"unknown profiling backend", "cluster:\n  num_nodes: 1\n  component_placement: {}\n  profiling: {backend: perf}\n", model.CodeInvalidValue, "perf", 0},
		// duplicate keys (PyYAML under OmegaConf rejects them)
		{"duplicate key", "cluster:\n  num_nodes: 1\n  num_nodes: 2\n  component_placement: {}\n", model.CodeDuplicateKey, "num_nodes", 1},
		{"duplicate group key", groupsYAML(1, "    - label: a\n      label: b\n      node_ranks: 0\n"), model.CodeDuplicateKey, "label", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ds := load(tc.src)
			d := wantDiag(t, ds, tc.code, model.SeverityError)
			if tc.at != "" {
				wantAt(t, d, tc.src, tc.at, tc.nth)
			}
		})
	}
}

// Diagnostics that carry hints: did-you-mean and the Hydra note.
func TestClusterSectionHints(t *testing.T) {
	t.Run("unknown group field suggests node_ranks", func(t *testing.T) {
		_, ds := load(groupsYAML(1, "    - {label: a, node_rank: 0}\n"))
		d := wantDiag(t, ds, model.CodeUnknownField, model.SeverityError)
		if !hasHelp(d, "node_ranks") {
			t.Errorf("help %+v", d.Help)
		}
	})
	t.Run("hardware type is case-sensitive", func(t *testing.T) {
		_, ds := load(groupsYAML(1, "    - {label: f, node_ranks: 0, hardware: {type: franka, configs: []}}\n"))
		d := wantDiag(t, ds, model.CodeUnsupportedHardware, model.SeverityError)
		if !hasHelp(d, "Franka") {
			t.Errorf("help %+v", d.Help)
		}
	})
	t.Run("env_configs without '-'", func(t *testing.T) {
		_, ds := load(groupsYAML(1, "    - label: a\n      node_ranks: 0\n      env_configs:\n        node_ranks: 0\n"))
		if d := wantDiag(t, ds, model.CodeWrongType, model.SeverityError); !hasHelp(d, "'-'") {
			t.Errorf("help %+v", d.Help)
		}
	})
	t.Run("Hydra defaults without a cluster", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "base.yaml"), []byte("trainer: {epochs: 1}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, ds := grammar.LoadConfig(filepath.Join(dir, "train.yaml"), []byte("defaults:\n  - base\ntrainer: {}\n"), grammar.DefaultLimits)
		if d := wantDiag(t, ds, model.CodeMissingField, model.SeverityError); !strings.Contains(d.Why, "base.yaml") {
			t.Errorf("why %q should name the composed files", d.Why)
		}
	})
	t.Run("duplicate key points at the first", func(t *testing.T) {
		_, ds := load("cluster:\n  num_nodes: 1\n  num_nodes: 2\n  component_placement: {}\n")
		d := wantDiag(t, ds, model.CodeDuplicateKey, model.SeverityError)
		if len(d.Labels) != 1 || d.Labels[0].Span.Line != 2 || d.Labels[0].Span.Col != 3 {
			t.Errorf("labels %+v", d.Labels)
		}
	})
}

// D10: unknown keys under cluster are accepted with a warning; near misses
// get a did-you-mean. Keys RLinf reads elsewhere are not warned about.
func TestClusterUnknownKeys(t *testing.T) {
	src := `cluster:
  num_node: 1
  num_nodes: 1
  nsight: {}
  component_placement: {}
  auto_scheduler: false
  use_pre_process_policy: false
  net_emulation: {}
  tracer: {}
  use_wait_before_last_iter_policy: false
  recreate_nccl_groups: false
`
	_, ds := mustLoad(t, src)
	var warned []string
	for _, d := range ds {
		if d.Code == model.WarnUnknownKey {
			if d.Severity != model.SeverityWarning {
				t.Errorf("severity %s", d.Severity)
			}
			warned = append(warned, strings.Split(d.Summary, "`")[1]) // the key, quoted in the summary
		}
	}
	if !reflect.DeepEqual(warned, []string{"num_node", "nsight"}) {
		t.Errorf("warned about %v, want [num_node nsight]", warned)
	}
	d := findDiag(ds, model.WarnUnknownKey)
	wantAt(t, d, src, "num_node", 0)
	if !hasHelp(d, "num_nodes") {
		t.Errorf("help %+v", d.Help)
	}
}

// Accepted node-group forms and what they become (§1.3-1.5).
func TestClusterNodeGroupsAccepted(t *testing.T) {
	src := groupsYAML(4, `    - label: 4090
      node_ranks: 0
    - label: Node
      node_ranks: all
    - label: CLUSTER
      node_ranks: "1-2"
      ignore_hardware: true
    - label: franka
      node_ranks: 3
      hardware_type: Franka
    - label: arms
      node_ranks: "2,3"
      hardware:
        type: Franka
        configs:
          - {node_rank: 2, robot_ip: 10.10.10.1}
          - {node_rank: 2, robot_ip: 10.10.10.2}
    - label: env
      node_ranks: 0-1
      env_configs:
        - node_ranks: 0
          python_interpreter_path: 3
          env_vars:
            - OMP_NUM_THREADS: 32
        - node_ranks: 1-1
    - label: spare
      node_ranks: ""
`)
	cfg, ds := mustLoad(t, src)
	want := []struct {
		label, hw string
		ranks     []int
		ignore    bool
	}{
		{"4090", "", []int{0}, false},
		{"Node", "", []int{0, 1, 2, 3}, false},
		{"CLUSTER", "", []int{1, 2}, true},
		{"franka", "Franka", []int{3}, false},
		{"arms", "Franka", []int{2, 3}, false},
		{"env", "", []int{0, 1}, false},
		{"spare", "", []int{}, false},
	}
	if len(cfg.NodeGroups) != len(want) {
		t.Fatalf("%d groups", len(cfg.NodeGroups))
	}
	for i, w := range want {
		g := cfg.NodeGroups[i]
		ranks := g.NodeRanks
		if ranks == nil {
			ranks = []int{}
		}
		if g.Label != w.label || g.HardwareType != w.hw || !reflect.DeepEqual(ranks, w.ranks) || g.IgnoreHardware != w.ignore {
			t.Errorf("group %d: %q %q %v ignore=%v", i, g.Label, g.HardwareType, g.NodeRanks, g.IgnoreHardware)
		}
	}
	// Several robots of one type on one node, in one group, are fine.
	if hw := cfg.NodeGroups[4].Hardware; hw == nil || len(hw.Configs) != 2 || hw.Configs[1].Fields["robot_ip"] != "10.10.10.2" ||
		hw.Configs[0].Fields["camera_type"] != "realsense" {
		t.Errorf("arms hardware %+v", cfg.NodeGroups[4].Hardware)
	}
	// str() of env var values and of the interpreter path (§1.4).
	ec := cfg.NodeGroups[5].EnvConfigs
	if len(ec) != 2 || ec[0].Interpreter != "3" || !ec[0].HasInterpreter || len(ec[0].EnvVars) != 1 ||
		ec[0].EnvVars[0].Key != "OMP_NUM_THREADS" || ec[0].EnvVars[0].Value != "32" || ec[1].HasEnvVars {
		t.Errorf("env configs %+v", ec)
	}
	wantDiag(t, ds, model.WarnEmptyGroup, model.SeverityWarning)
}

// The config of RLinf's test_cluster_config.py (§7), parsed.
func TestClusterRLinfFullConfig(t *testing.T) {
	src := `cluster:
  num_nodes: 4
  component_placement:
    actor: all
  node_groups:
    - label: a800
      node_ranks: 0-1
      env_configs:
        - node_ranks: 0-1
          python_interpreter_path: /opt/a800/bin/python3
          env_vars:
            - GLOO_SOCKET_IFNAME: eth0
    - label: franka
      node_ranks: "2,3"
      hardware:
        type: Franka
        configs:
          - node_rank: 2
            robot_ip: 10.10.10.1
            camera_serials: ["322142001230"]
          - node_rank: 3
            robot_ip: 10.10.10.2
`
	cfg, _ := mustLoad(t, src)
	a, f := cfg.Group("a800"), cfg.Group("franka")
	if a == nil || f == nil {
		t.Fatal("groups missing")
	}
	if !reflect.DeepEqual(a.NodeRanks, []int{0, 1}) || a.Hardware != nil || len(a.EnvConfigs) != 1 ||
		!reflect.DeepEqual(a.EnvConfigs[0].NodeRanks, []int{0, 1}) || a.EnvConfigs[0].Interpreter != "/opt/a800/bin/python3" ||
		!reflect.DeepEqual(a.EnvConfigs[0].EnvVars[0].Key+"="+a.EnvConfigs[0].EnvVars[0].Value, "GLOO_SOCKET_IFNAME=eth0") {
		t.Errorf("a800 %+v", a)
	}
	if !reflect.DeepEqual(f.NodeRanks, []int{2, 3}) || f.HardwareType != "Franka" || len(f.Hardware.Configs) != 2 {
		t.Fatalf("franka %+v", f)
	}
	c0, c1 := f.Hardware.Configs[0], f.Hardware.Configs[1]
	if c0.NodeRank != 2 || c0.Fields["robot_ip"] != "10.10.10.1" || !reflect.DeepEqual(c0.Fields["camera_serials"], []any{"322142001230"}) ||
		c1.NodeRank != 3 || c1.Fields["robot_ip"] != "10.10.10.2" || c1.Fields["camera_serials"] != nil {
		t.Errorf("configs %+v / %+v", c0.Fields, c1.Fields)
	}
}

// OmegaConf ${a.b} interpolations to keys of the same file resolve, and a
// whole-value reference keeps the target's type.
func TestClusterInterpolation(t *testing.T) {
	src := `cluster:
  num_nodes: ${trainer.nodes}
  component_placement:
    actor: 0-${trainer.last}
trainer:
  nodes: 2
  last: 3
actor:
  model:
    tensor_model_parallel_size: 4
rollout:
  tensor_parallel_size: ${actor.model.tensor_model_parallel_size}
`
	cfg, _ := mustLoad(t, src)
	if cfg.NumNodes != 2 || cfg.Components[0].Placement != "0-3" {
		t.Errorf("num_nodes %d placement %q", cfg.NumNodes, cfg.Components[0].Placement)
	}
	if tp := cfg.ModelParallel.RolloutTP; tp.Value != 4 || !tp.Set {
		t.Errorf("rollout TP %+v", tp)
	}
}

func TestClusterInterpolationUnresolved(t *testing.T) {
	for _, tc := range []struct{ name, value, at string }{
		{"resolver", "${oc.env:NUM_NODES}", "${oc.env"},
		{"missing key", "${nope.x}", "${nope"},
		{"relative", "${.x}", "${.x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "cluster:\n  num_nodes: " + tc.value + "\n  component_placement: {}\n"
			_, ds := load(src)
			d := wantDiag(t, ds, model.CodeUnresolvedInterp, model.SeverityError)
			wantAt(t, d, src, tc.at, 0)
		})
	}
	t.Run("cycle", func(t *testing.T) {
		_, ds := load("a: ${b}\nb: ${a}\ncluster:\n  num_nodes: ${a}\n  component_placement: {}\n")
		wantDiag(t, ds, model.CodeUnresolvedInterp, model.SeverityError)
	})
}
