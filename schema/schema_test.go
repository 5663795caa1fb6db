package schema_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
	"github.com/rlsolve/rlsolve/schema"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

func compile(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	data, err := schema.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s schema is not JSON: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	url := "mem:///" + name + ".schema.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s schema does not compile: %v", name, err)
	}
	return s
}

// toJSON reads YAML as an editor's language server does (YAML 1.2) and
// returns the JSON instance the schema applies to.
func toJSON(t *testing.T, src []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(src, &v); err != nil {
		t.Fatalf("YAML: %v", err)
	}
	b, err := json.Marshal(normalize(v))
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

func normalize(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			out[k] = normalize(x)
		}
		return out
	case map[any]any:
		out := map[string]any{}
		for k, x := range v {
			out[fmt.Sprint(k)] = normalize(x)
		}
		return out
	case []any:
		for i := range v {
			v[i] = normalize(v[i])
		}
	}
	return v
}

// TestSourcesCompile loads the two stored files side by side, as an editor
// does from a URL or a disk, so the cross-file reference must resolve.
func TestSourcesCompile(t *testing.T) {
	c := jsonschema.NewCompiler()
	for _, name := range schema.Names {
		src, ok := schema.Source(name)
		if !ok {
			t.Fatalf("no source for %s", name)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(src))
		if err != nil {
			t.Fatalf("%s.schema.json: %v", name, err)
		}
		if err := c.AddResource("file:///schemas/"+name+".schema.json", doc); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range schema.Names {
		if _, err := c.Compile("file:///schemas/" + name + ".schema.json"); err != nil {
			t.Errorf("%s.schema.json: %v", name, err)
		}
	}
	if _, err := schema.Get("nope"); err == nil {
		t.Error("Get(nope): want an error")
	}
	// The bundled cluster schema refers to nothing outside itself.
	b, _ := schema.Cluster()
	if strings.Contains(string(b), `.schema.json#`) {
		t.Error("bundled cluster schema still refers to another file")
	}
}

// TestExamples validates every example config and inventory.
func TestExamples(t *testing.T) {
	cluster, inventory := compile(t, "cluster"), compile(t, "inventory")
	files, err := filepath.Glob(filepath.Join("..", "examples", "*", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := cluster
		if filepath.Base(f) == "inventory.yaml" {
			s = inventory
		} else if filepath.Base(f) != "train.yaml" {
			continue
		}
		n++
		if err := s.Validate(toJSON(t, data)); err != nil {
			t.Errorf("%s does not validate:\n%v", f, err)
		}
	}
	if n < 10 {
		t.Errorf("validated only %d example files", n)
	}
}

const base = `cluster:
  num_nodes: 2
  component_placement:
    actor: 0-7
`

// TestValid covers shapes the examples do not: a bare section, an
// inventory inside the config, every robot type, interpolations.
func TestValid(t *testing.T) {
	cluster, inventory := compile(t, "cluster"), compile(t, "inventory")
	for name, src := range map[string]string{
		"bare section":        "num_nodes: 1\ncomponent_placement:\n  actor: all\n",
		"int placement":       "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: 0\n",
		"defaults list":       "defaults:\n  - env/maniskill@env.train\n  - model: [a, b]\n  - optional override db: null\n  - _self_\n" + base,
		"interpolated size":   "cluster:\n  num_nodes: ${n}\n  component_placement: {}\nn: 2\n",
		"inventory in config": base + "inventory:\n  nodes:\n    - ranks: 0-1\n      accelerators: 8\n",
		"node_group list":     "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: {node_group: [a, b], placement: all}\n",
		"int label":           base + "  node_groups:\n    - label: 4090\n      node_ranks: 0\n      ignore_hardware: true\n",
		"every robot": base + `  node_groups:
    - {label: a, node_ranks: 0, hardware: {type: DualFranka, configs: [{node_rank: 0, left_robot_ip: "::1", right_robot_ip: 10.0.0.2}]}}
    - {label: b, node_ranks: 0, hardware: {type: GimArm, configs: [{node_rank: 0, arm_variant: gim_arm}]}}
    - {label: c, node_ranks: 1, hardware: {type: DOSW1, configs: [{node_rank: 1, left_arm_port: 1}]}}
    - {label: d, node_ranks: 1, hardware: {type: Turtle2, configs: [{node_rank: 1}]}}
    - {label: e, node_ranks: 1, hardware: {type: Franka, configs: []}}
`,
	} {
		if err := cluster.Validate(toJSON(t, []byte(src))); err != nil {
			t.Errorf("%s: rejected:\n%v", name, err)
		}
	}
	for name, src := range map[string]string{
		"bare nodes": "nodes:\n  - rank: 0\n    accelerators: {count: 4, type: AMD_GPU}\n    devices: [{index: 0, uuid: GPU-1, nvlink: [1]}]\n",
		"names list": "inventory:\n  nodes:\n    - ranks: 0-1\n      hostnames: [a, b]\n      ips: 10.0.0.[1-2]\n      accelerators: 0\n      hardware: {Franka: 1}\n",
	} {
		if err := inventory.Validate(toJSON(t, []byte(src))); err != nil {
			t.Errorf("inventory %s: rejected:\n%v", name, err)
		}
	}
}

// TestInvalid: configs the schema rejects, each of which rlsolve also
// reports (an error or a warning), so the editor and the checker agree.
func TestInvalid(t *testing.T) {
	cluster := compile(t, "cluster")
	group := func(s string) string { return base + "  node_groups:\n" + s }
	for name, src := range map[string]string{
		"no num_nodes":           "cluster:\n  component_placement:\n    actor: 0-7\n",
		"num_nodes 0":            "cluster:\n  num_nodes: 0\n  component_placement: {}\n",
		"num_nodes string":       "cluster:\n  num_nodes: two\n  component_placement: {}\n",
		"misspelt cluster key":   base + "  node_group: []\n",
		"placement list":         "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: [0, 1]\n",
		"placement mapping only": "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: {node_group: a}\n",
		"group key typo":         group("    - {label: a, node_rank: 0}\n"),
		"reserved label":         group("    - {label: cluster, node_ranks: 0}\n"),
		"env_vars mapping":       group("    - {label: a, node_ranks: 0, env_configs: [{node_ranks: 0, env_vars: {A: 1}}]}\n"),
		"env var two keys":       group("    - {label: a, node_ranks: 0, env_configs: [{node_ranks: 0, env_vars: [{A: 1, B: 2}]}]}\n"),
		"env config no ranks":    group("    - {label: a, node_ranks: 0, env_configs: [{env_vars: [{A: 1}]}]}\n"),
		"robot type case":        group("    - {label: a, node_ranks: 0, hardware: {type: franka, configs: []}}\n"),
		"robot field typo":       group("    - {label: a, node_ranks: 0, hardware: {type: Franka, configs: [{node_rank: 0, robot_ipp: 10.0.0.1}]}}\n"),
		"robot ip placeholder":   group("    - {label: a, node_ranks: 0, hardware: {type: Franka, configs: [{node_rank: 0, robot_ip: ROBOT_IP}]}}\n"),
		"robot node_rank string": group("    - {label: a, node_ranks: 0, hardware: {type: Turtle2, configs: [{node_rank: \"0\"}]}}\n"),
		"gimarm variant":         group("    - {label: a, node_ranks: 0, hardware: {type: GimArm, configs: [{node_rank: 0, arm_variant: big}]}}\n"),
		"hardware and type":      group("    - {label: a, node_ranks: 0, hardware_type: Franka, hardware: {type: Franka, configs: []}}\n"),
		"hardware ignored":       group("    - {label: a, node_ranks: 0, ignore_hardware: true, hardware: {type: Franka, configs: []}}\n"),
		"hardware no configs":    group("    - {label: a, node_ranks: 0, hardware: {type: Franka}}\n"),
		"actor tp 0":             base + "actor:\n  model:\n    tensor_model_parallel_size: 0\n",
		"inventory no accel":     base + "inventory:\n  nodes:\n    - ranks: 0-1\n",
		"inventory accel type":   base + "inventory:\n  nodes:\n    - ranks: 0-1\n      accelerators: {type: GPU, count: 8}\n",
		"inventory rank ranks":   base + "inventory:\n  nodes:\n    - {rank: 0, ranks: 0-1, accelerators: 8}\n",
		"inventory robot":        base + "inventory:\n  nodes:\n    - {ranks: 0-1, accelerators: 8, hardware: {Robot: 1}}\n",
		"inventory node key":     base + "inventory:\n  nodes:\n    - {ranks: 0-1, accelerator: 8}\n",
		"camera serial string":   group("    - {label: a, node_ranks: 0, hardware: {type: Franka, configs: [{node_rank: 0, robot_ip: 10.0.0.1, camera_serials: \"3221\"}]}}\n"),
		"switch mapping":         base + "  recreate_nccl_groups: {on: true}\n",
		"interpreter list":       group("    - {label: a, node_ranks: 0, env_configs: [{node_ranks: 0, python_interpreter_path: [/usr/bin/python3]}]}\n"),
		"defaults mapping":       "defaults: {model: a}\n" + base,
		"no cluster":             "defaults: []\nrunner: {}\n",
	} {
		if err := cluster.Validate(toJSON(t, []byte(src))); err == nil {
			t.Errorf("%s: the schema accepts it", name)
		}
		_, ds := grammar.LoadConfig("c.yaml", []byte(src), grammar.DefaultLimits)
		if ds.Count(model.SeverityError)+ds.Count(model.SeverityWarning) == 0 {
			t.Errorf("%s: the schema rejects it but rlsolve reports nothing: the two disagree", name)
		}
	}
}

// definitions is the bundled cluster schema's definitions.
func definitions(t *testing.T) map[string]any {
	t.Helper()
	b, err := schema.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s["definitions"].(map[string]any)
}

// propertyNames lists the properties of a definition, or of a branch of
// it (anyOf index).
func propertyNames(t *testing.T, def map[string]any) []string {
	t.Helper()
	props, ok := def["properties"].(map[string]any)
	if !ok {
		t.Fatalf("definition has no properties: %v", def)
	}
	var out []string
	for k := range props {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var validList = regexp.MustCompile(`\(valid: ([^)]*)\)`)

// grammarKeys returns the keys grammar accepts at the place where src has
// the unknown key zzz, from its unknown-field diagnostic.
func grammarKeys(t *testing.T, src string, inventory bool) []string {
	t.Helper()
	var ds model.Diagnostics
	if inventory {
		_, ds = grammar.LoadInventory("i.yaml", []byte(src), grammar.DefaultLimits)
	} else {
		_, ds = grammar.LoadConfig("c.yaml", []byte(src), grammar.DefaultLimits)
	}
	for _, d := range ds {
		if d.Code == model.CodeUnknownField && strings.Contains(d.Summary, "`zzz`") {
			m := validList.FindStringSubmatch(d.Summary)
			if m == nil {
				t.Fatalf("no valid-key list in %q", d.Summary)
			}
			keys := strings.Split(m[1], ", ")
			sort.Strings(keys)
			return keys
		}
	}
	t.Fatalf("grammar did not reject the unknown key zzz in:\n%s\n%v", src, ds)
	return nil
}

// TestKeysMatchGrammar holds the schema's keys to exactly those grammar
// accepts, for every mapping where grammar rejects unknown keys.
func TestKeysMatchGrammar(t *testing.T) {
	defs := definitions(t)
	group := func(s string) string { return base + "  node_groups:\n" + s }
	cases := []struct {
		def, src  string
		inventory bool
	}{
		{"clusterNodeGroup", group("    - {label: a, node_ranks: 0, zzz: 1}\n"), false},
		{"clusterEnvConfig", group("    - {label: a, node_ranks: 0, env_configs: [{node_ranks: 0, zzz: 1}]}\n"), false},
		{"clusterHardware", group("    - {label: a, node_ranks: 0, hardware: {type: Franka, configs: [], zzz: 1}}\n"), false},
		{"inventoryNode", "nodes:\n  - {accelerators: 1, zzz: 1}\n", true},
	}
	for _, rt := range model.RobotTypes {
		cases = append(cases, struct {
			def, src  string
			inventory bool
		}{"clusterRobot" + rt, group("    - {label: a, node_ranks: 0, hardware: {type: " + rt + ", configs: [{node_rank: 0, zzz: 1}]}}\n"), false})
	}
	for _, c := range cases {
		def, ok := defs[c.def].(map[string]any)
		if !ok {
			t.Errorf("no definition %s", c.def)
			continue
		}
		got, want := propertyNames(t, def), grammarKeys(t, c.src, c.inventory)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: the schema has keys %v, grammar accepts %v", c.def, got, want)
		}
	}
	// The accelerators mapping is the second branch of its anyOf.
	acc := defs["inventoryAccelerators"].(map[string]any)["anyOf"].([]any)[1].(map[string]any)
	got := propertyNames(t, acc)
	want := grammarKeys(t, "nodes:\n  - {accelerators: {count: 1, zzz: 1}}\n", true)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("accelerators: the schema has keys %v, grammar accepts %v", got, want)
	}

	// Under cluster: grammar warns about unknown keys (RLinf ignores them)
	// but lists no valid set: every schema key must pass without a warning.
	for _, k := range propertyNames(t, defs["clusterSection"].(map[string]any)) {
		src := "cluster:\n  num_nodes: 1\n  component_placement: {}\n"
		if k != "num_nodes" && k != "component_placement" {
			src += "  " + k + ": null\n"
		}
		_, ds := grammar.LoadConfig("c.yaml", []byte(src), grammar.DefaultLimits)
		for _, d := range ds {
			if d.Code == model.WarnUnknownKey {
				t.Errorf("the schema allows cluster.%s, but rlsolve warns: %s", k, d.Summary)
			}
		}
	}
	// Robot types: the schema's enum is the model's list.
	enum := defs["clusterHardware"].(map[string]any)["properties"].(map[string]any)["type"].(map[string]any)["enum"].([]any)
	if fmt.Sprint(enum) != fmt.Sprint(model.RobotTypes) {
		t.Errorf("hardware types: schema %v, rlsolve %v", enum, model.RobotTypes)
	}
}

// TestRequirements: the requirement mappings `rlsolve solve` reads (the
// issue's and design.md's, in flow and block style) validate; a mapping
// with a misspelt key (beside a placement too), a count of zero, or
// nothing a requirement needs does not, and rlsolve reports each; a
// placement beside requirement keys (what solve writes) validates.
func TestRequirements(t *testing.T) {
	cluster := compile(t, "cluster")
	cp := func(s string) string {
		return "cluster:\n  num_nodes: 6\n  node_groups:\n    - {label: a800, node_ranks: 0-1}\n  component_placement:\n" + s
	}
	for name, src := range map[string]string{
		"the issue's": cp(`    actor:     {gpus: 16, node_group: a800}
    reward:    {with: actor}
    rollout:   {gpus: 8, node_group: "4090", gpus_per_process: 2}
    inference: {gpus: 4, apart_from: [actor, rollout]}
    env:       {node_group: franka, processes: 2}
    agent:     {node_group: node, processes: 50}
`),
		"block style":           cp("    actor:\n      nodes: 2\n      processes: 4\n      node_group: [a800]\n    critic:\n      gpus: 2\n      apart_from:\n        - actor\n"),
		"with a one-name list":  cp("    actor: {gpus: 8}\n    reward: {with: [actor]}\n"),
		"apart_from as a name":  cp("    actor: {gpus: 8}\n    critic: {gpus: 2, apart_from: \"actor\"}\n"),
		"mixed with placements": cp("    actor: 0-7\n    rollout: {node_group: a800, placement: 8-15}\n    reward: {with: actor}\n"),
		"placement and gpus":    cp("    actor: {gpus: 8, placement: 0-7}\n"),
	} {
		if err := cluster.Validate(toJSON(t, []byte(src))); err != nil {
			t.Errorf("%s: rejected:\n%v", name, err)
		}
	}
	for name, src := range map[string]string{
		"misspelt key":            cp("    actor: {gpus: 8, gpuz: 1}\n"),
		"zero gpus":               cp("    actor: {gpus: 0}\n"),
		"placement and gpuz":      cp("    actor: {gpus: 8, placement: 0-7, gpuz: 1}\n"),
		"with two components":     cp("    actor: {gpus: 8}\n    critic: {gpus: 2}\n    reward: {with: [actor, critic]}\n"),
		"apart_from alone":        cp("    actor: {gpus: 8}\n    critic: {apart_from: actor}\n"),
		"gpus_per_process a word": cp("    actor: {gpus: 8, gpus_per_process: two}\n"),
	} {
		if err := cluster.Validate(toJSON(t, []byte(src))); err == nil {
			t.Errorf("%s: the schema accepts it", name)
		}
		cfg, ds := grammar.LoadConfig("c.yaml", []byte(src), grammar.DefaultLimits)
		if ds.HasErrors() {
			continue
		}
		// What the grammar reads, solve refuses before placing.
		inv := &model.Inventory{}
		for i := 0; i < 6; i++ {
			inv.Nodes = append(inv.Nodes, model.Node{Rank: i, AccelType: model.AccelNVGPU, AccelCount: 8})
		}
		if sp := rules.BuildSpace(cfg, inv, rules.SpaceOptions{Class: model.ClassHybrid}); !sp.Diagnostics.HasErrors() {
			t.Errorf("%s: the schema rejects it but rlsolve reports nothing: the two disagree", name)
		}
	}
	// The requirement's keys are those grammar accepts there.
	def := definitions(t)["clusterRequirement"].(map[string]any)
	got := propertyNames(t, def)
	want := grammarKeys(t, cp("    actor: {gpus: 8, zzz: 1}\n"), false)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("clusterRequirement: the schema has keys %v, grammar accepts %v", got, want)
	}
}
