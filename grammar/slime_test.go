package grammar

import (
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

func TestParseSlimeFlagsValues(t *testing.T) {
	s := "--actor-num-nodes 2 --actor-num-gpus-per-node=8 --rollout-num-gpus '8' --rollout-num-gpus-per-engine \"2\" --colocate"
	cfg, ds := ParseSlimeFlags(s, DefaultLimits)
	if len(ds) != 0 {
		t.Fatalf("diagnostics: %+v", ds)
	}
	want := map[model.SlimeKey]int{model.SlimeActorNumNodes: 2, model.SlimeActorGPUsPerNode: 8, model.SlimeRolloutNumGPUs: 8,
		model.SlimeRolloutGPUsPerEngine: 2, model.SlimeColocate: 1}
	for k := range model.SlimeNumKeys {
		v := cfg.Values[k]
		w, ok := want[k]
		if v.Set != ok || v.Value != w {
			t.Errorf("%s = %+v, want %d (set %v)", k.Info().Flag, v, w, ok)
		}
	}
	// Spans: the whole setting and the value, at their columns.
	v := cfg.Values[model.SlimeRolloutNumGPUs]
	if v.Span.Col != 49 || v.ValueSpan.Col != 69 || v.ValueSpan.EndCol != 70 {
		t.Errorf("rollout spans %+v / %+v", v.Span, v.ValueSpan)
	}
	if got := s[v.Span.Col-1 : v.Span.EndCol-1]; got != "--rollout-num-gpus '8" {
		t.Errorf("span covers %q", got)
	}
	e := cfg.Values[model.SlimeActorGPUsPerNode]
	if got := s[e.ValueSpan.Col-1 : e.ValueSpan.EndCol-1]; got != "8" {
		t.Errorf("= value span covers %q", got)
	}
	if !cfg.Appendable || cfg.End.Col != len(s)+1 || cfg.Span.File != SlimeSource {
		t.Errorf("config spans %+v %+v", cfg.Span, cfg.End)
	}
}

// Every error names the flag and its column, and points at it.
func TestParseSlimeFlagsErrors(t *testing.T) {
	for _, c := range []struct {
		in, code, msg string
		col           int
	}{
		{"--actor-num-nodes", model.CodeSlimeFlag, "--actor-num-nodes (column 1) expects a value", 1},
		{"--rollout-num-gpus --colocate", model.CodeSlimeFlag, "--rollout-num-gpus (column 1) expects a value", 1},
		{"--colocate --actor-num-nodes x", model.CodeSlimeValue, `--actor-num-nodes (column 12) expects a whole number, but is given "x"`, 30},
		{"--actor-num-node 2", model.CodeSlimeFlag, "unknown slime flag --actor-num-node (column 1); did you mean --actor-num-nodes?", 1},
		{"--rollout_num_gpus 8", model.CodeSlimeFlag, "did you mean --rollout-num-gpus?", 1},
		{"--colocate=yes", model.CodeSlimeFlag, "--colocate (column 1) takes no value", 11},
		{"--colocate false", model.CodeSlimeFlag, `stray argument "false"`, 12},
		{"--rollout-num-gpus '8", model.CodeSlimeScript, "cannot be parsed: reached EOF without closing quote '", 20},
		{`--rollout-num-gpus "8`, model.CodeSlimeScript, `cannot be parsed: reached EOF without closing quote "`, 20},
		{"--rollout-num-gpus 1_0", model.CodeSlimeValue, "decimal digits only", 20},
		{"--rollout-num-gpus $N", model.CodeSlimeValue, "--rollout-num-gpus (column 1) depends on the variable N (--slime line 1, column 20), which the script never sets", 20},
		{"--actor-num-nodes 0", model.CodeSlimeValue, "(column 1) must be at least 1, but is 0", 19},
		{"--rollout-num-gpus -3", model.CodeSlimeValue, "(column 1) must be at least 0, but is -3", 20},
		{"--rollout-num-gpus 99999999999999999999", model.CodeSlimeValue, "accepts at most", 20},
		{"--rollout-num-gpus=", model.CodeSlimeValue, "empty value", 20},
		{"--actor-num-nodes 1 \\\n  --rollout-num-gpus x", model.CodeSlimeValue, "--rollout-num-gpus (line 2, column 3)", 22},
	} {
		_, ds := ParseSlimeFlags(c.in, DefaultLimits)
		if len(ds) == 0 {
			t.Errorf("%q: no diagnostic", c.in)
			continue
		}
		d := ds[0]
		if d.Code != c.code || !strings.Contains(d.Summary, c.msg) || d.Primary.Col != c.col || d.Severity != model.SeverityError {
			t.Errorf("%q: got %s %q at col %d, want %s %q at col %d", c.in, d.Code, d.Summary, d.Primary.Col, c.code, c.msg, c.col)
		}
	}
}

func TestParseSlimeFlagsLines(t *testing.T) {
	s := "--actor-num-nodes 1 \\\n  --rollout-num-gpus 8"
	cfg, ds := ParseSlimeFlags(s, DefaultLimits)
	if len(ds) != 0 {
		t.Fatal(ds)
	}
	v := cfg.Values[model.SlimeRolloutNumGPUs]
	if v.Span.Line != 2 || v.Span.Col != 3 || v.ValueSpan.Col != 22 {
		t.Errorf("span %+v", v.Span)
	}
}

func TestParseSlimeFlagsIgnoredAndRepeated(t *testing.T) {
	s := "python train.py --hf-checkpoint /m --rollout-num-gpus 8 --use-kl-loss --rollout-num-gpus 4"
	cfg, ds := ParseSlimeFlags(s, DefaultLimits)
	var codes []string
	for _, d := range ds {
		codes = append(codes, d.Code)
	}
	if len(ds) != 2 || ds.HasErrors() {
		t.Fatalf("got %v", codes)
	}
	if cfg.Values[model.SlimeRolloutNumGPUs].Value != 4 {
		t.Errorf("last value should win: %+v", cfg.Values[model.SlimeRolloutNumGPUs])
	}
	for _, d := range ds {
		switch d.Code {
		case model.NoteSlimeIgnored:
			if !strings.Contains(d.Summary, "read slime's flags after `train.py` (column 8); ignored 3 argument(s)") || !strings.Contains(d.Summary, "`/m`") || d.Primary.Col != 17 {
				t.Errorf("note: %q at %d", d.Summary, d.Primary.Col)
			}
		case model.WarnSlimeRepeated:
			if d.Primary.Col != 71 || len(d.Labels) != 1 || d.Labels[0].Span.Col != 36 {
				t.Errorf("repeat: %+v", d)
			}
		default:
			t.Errorf("unexpected %s", d.Code)
		}
	}
	// A near miss of a --sglang-* option is SGLang's, not a typo of ours.
	if _, ds := ParseSlimeFlags("--sglang-tp-size 2 --rollout-num-gpus 8", DefaultLimits); ds.HasErrors() {
		t.Errorf("--sglang-tp-size: %v", ds)
	}
}

func TestLoadSlimeYAML(t *testing.T) {
	src := `slime:
  actor_num_nodes: 1
  actor-num-gpus-per-node: 2
  rollout_num_gpus: 6
  rollout_num_gpus_per_engine: 2
  colocate: false
  hf_checkpoint: /m
inventory:
  nodes:
    - ranks: 0-1
      ips: 10.0.0.[1-2]
      accelerators: {count: 4}
`
	cfg, ds := LoadSlime("s.yaml", []byte(src), DefaultLimits, true)
	if cfg == nil || ds.HasErrors() {
		t.Fatalf("%v", ds)
	}
	if len(ds) != 1 || ds[0].Code != model.NoteSlimeIgnored || ds[0].Primary.Line != 7 {
		t.Errorf("diagnostics %+v", ds)
	}
	if v := cfg.Values[model.SlimeActorGPUsPerNode]; v.Value != 2 || v.ValueSpan.Line != 3 || v.ValueSpan.Col != 28 {
		t.Errorf("dashed key: %+v", v)
	}
	if v := cfg.Values[model.SlimeColocate]; !v.Set || v.Value != 0 {
		t.Errorf("colocate: %+v", v)
	}
	if cfg.Inventory == nil || len(cfg.Inventory.Nodes) != 2 || cfg.Appendable {
		t.Errorf("inventory %+v", cfg.Inventory)
	}
	if !IsSlimeDoc([]byte(src)) || IsSlimeDoc([]byte("cluster: {}\nslime: {}\n")) || IsSlimeDoc([]byte("[")) {
		t.Error("IsSlimeDoc")
	}
}

func TestLoadSlimeYAMLErrors(t *testing.T) {
	src := `slime:
  actor_num_nodes: 0
  rollout_num_gpu: 8
  colocate: 1
  sglang_dp_size: 2000000
`
	_, ds := LoadSlime("s.yaml", []byte(src), DefaultLimits, true)
	want := []struct {
		code      string
		line, col int
	}{{model.CodeSlimeValue, 2, 20}, {model.CodeSlimeFlag, 3, 3}, {model.CodeWrongType, 4, 13}, {model.CodeSlimeValue, 5, 19}}
	if len(ds) != len(want) {
		t.Fatalf("got %d diagnostics: %+v", len(ds), ds)
	}
	for i, w := range want {
		if ds[i].Code != w.code || ds[i].Primary.Line != w.line || ds[i].Primary.Col != w.col {
			t.Errorf("%d: %s at %d:%d (%s), want %s at %d:%d", i, ds[i].Code, ds[i].Primary.Line, ds[i].Primary.Col, ds[i].Summary, w.code, w.line, w.col)
		}
	}
	if _, ds := LoadSlime("s.yaml", []byte("inventory: {nodes: []}\n"), DefaultLimits, true); !ds.HasErrors() || ds[0].Code != model.CodeMissingField {
		t.Errorf("missing slime: %v", ds)
	}
}

// A flag string inside YAML is located inside the scalar.
func TestLoadSlimeYAMLString(t *testing.T) {
	src := `slime: "--rollout-num-gpus 8 --colocat"` + "\n"
	_, ds := LoadSlime("s.yaml", []byte(src), DefaultLimits, true)
	if len(ds) != 1 || ds[0].Code != model.CodeSlimeFlag || ds[0].Primary.Line != 1 || ds[0].Primary.Col != 30 || ds[0].Primary.EndCol != 39 {
		t.Fatalf("%+v", ds)
	}
	cfg, ds := LoadSlime("s.yaml", []byte("slime: --rollout-num-gpus 8\n"), DefaultLimits, true)
	if ds.HasErrors() || cfg.Values[model.SlimeRolloutNumGPUs].ValueSpan.Col != 27 {
		t.Fatalf("%v %+v", ds, cfg.Values[model.SlimeRolloutNumGPUs])
	}
}

// slime's other placement keys in YAML: counts that may be 0, a path, a
// list of addresses, and spelling aliases.
func TestLoadSlimeYAMLKeys(t *testing.T) {
	src := `slime:
  rollout_num_gpus: 0
  prefill_num_servers: 1
  sglang_config: /tmp/sglang.yaml
  rollout_external_engine_addrs: [10.0.0.1:30000, 10.0.0.2:30000]
  sglang_data_parallel_size: 2
  debug_train_only: false
`
	cfg, ds := LoadSlime("s.yaml", []byte(src), DefaultLimits, true)
	if cfg == nil || len(ds) != 0 {
		t.Fatalf("%+v", ds)
	}
	for k, want := range map[model.SlimeKey]model.SlimeValue{
		model.SlimeRolloutNumGPUs:   {Set: true, Value: 0, Text: "rollout_num_gpus: 0"},
		model.SlimePrefillServers:   {Set: true, Value: 1, Text: "prefill_num_servers: 1"},
		model.SlimeSGLangConfig:     {Set: true, Value: 1, Arg: "/tmp/sglang.yaml", Text: "sglang_config: /tmp/sglang.yaml"},
		model.SlimeRolloutExternal:  {Set: true, Value: 1, Arg: "10.0.0.1:30000 10.0.0.2:30000", Text: "rollout_external_engine_addrs: 10.0.0.1:30000 10.0.0.2:30000"},
		model.SlimeDPSize:           {Set: true, Value: 2, Text: "sglang_dp_size: 2"},
		model.SlimeTrainOnly:        {Set: true, Value: 0, Text: "debug_train_only: false"},
		model.SlimeLoadDebugRollout: {},
	} {
		got := cfg.Values[k]
		got.Span, got.ValueSpan = model.Span{}, model.Span{}
		if got != want {
			t.Errorf("%s = %+v, want %+v", k.Info().Key, got, want)
		}
	}
	s := cfg.Settings(nil)
	if !s.External || !s.SGLangConfig || s.TrainOnly || !s.RolloutSet || s.RolloutGPUs != 0 {
		t.Errorf("settings %+v", s)
	}
	cfg, ds = LoadSlime("s.yaml", []byte("slime:\n  rollout_external: true\n"), DefaultLimits, true)
	if len(ds) != 0 || !cfg.Settings(nil).External {
		t.Errorf("alias: %+v %+v", ds, cfg.Values[model.SlimeRolloutExternal])
	}
}

// Every flag is kept by its name without dashes, with its value and where
// it is written: placement flags, others, switches, `--flag=value`; a
// value the shell would expand is left out, and the last repetition wins.
func TestSlimeFlagsKept(t *testing.T) {
	s := "python3 train.py --actor-num-nodes 2 --colocate --sglang-mem-fraction-static 0.7 --bf16 --lr=1e-6 --max-tokens-per-gpu $TOKENS --micro-batch-size 1 --micro-batch-size 2"
	cfg, ds := ParseSlimeFlags(s, DefaultLimits)
	if cfg == nil || ds.HasErrors() {
		t.Fatal(ds)
	}
	want := map[string]string{"actor-num-nodes": "2", "colocate": "", "sglang-mem-fraction-static": "0.7", "bf16": "", "lr": "1e-6", "micro-batch-size": "2"}
	if len(cfg.Flags) != len(want) {
		t.Errorf("flags %v, want %v", cfg.Flags, want)
	}
	for name, text := range want {
		v, ok := cfg.Flags[name]
		if !ok || v.Text != text {
			t.Errorf("%s: %+v, want %q", name, v, text)
			continue
		}
		if got := s[v.Span.Col-1 : v.Span.EndCol-1]; !strings.HasPrefix(got, "--"+name) {
			t.Errorf("%s is located at %q", name, got)
		}
	}
	yaml := "slime:\n  actor_num_nodes: 1\n  sglang_mem_fraction_static: 0.6\n  use_dynamic_batch_size: true\n  offload_train: false\n"
	ycfg, yds := LoadSlime("s.yaml", []byte(yaml), DefaultLimits, true)
	if ycfg == nil || yds.HasErrors() {
		t.Fatal(yds)
	}
	if v := ycfg.Flags["sglang-mem-fraction-static"]; v.Text != "0.6" || v.Span.Line != 3 {
		t.Errorf("YAML key: %+v", v)
	}
	if _, on := ycfg.Flags["use-dynamic-batch-size"]; !on {
		t.Error("a YAML switch set true is not kept")
	}
	if _, off := ycfg.Flags["offload-train"]; off {
		t.Error("a YAML switch set false is kept")
	}
}
