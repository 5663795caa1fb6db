package grammar_test

import (
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

// D14: one empty component name (a stray comma) is dropped with a
// warning; two fail in RLinf, so both keys are an error.
func TestD14_EmptyComponentNames(t *testing.T) {
	cfg, ds := mustLoad(t, "cluster:\n  num_nodes: 1\n  component_placement:\n    \"actor,\": 0-3\n    rollout: 4-7\n")
	wantDiag(t, ds, model.WarnEmptyComponent, model.SeverityWarning)
	if len(cfg.Components) != 2 {
		t.Errorf("components %+v", cfg.Components)
	}
	src := "cluster:\n  num_nodes: 1\n  component_placement:\n    \"actor,\": 0-3\n    \"rollout,\": 4-7\n"
	_, ds = load(src)
	d := wantDiag(t, ds, model.CodeDuplicateComponent, model.SeverityError)
	if findDiag(ds, model.WarnEmptyComponent) != nil {
		t.Error("the empty names are an error, not also a warning")
	}
	if d.Primary.Line != 5 || len(d.Labels) != 1 || d.Labels[0].Span.Line != 4 {
		t.Errorf("error at %s with labels %+v, want line 5 and a label on line 4", d.Primary, d.Labels)
	}
	if len(d.Help) != 1 || len(d.Help[0].Edits) != 1 || d.Help[0].Edits[0].NewText != `"rollout"` {
		t.Errorf("help %+v", d.Help)
	}
}

// D15: camera_serials given one serial as a scalar becomes one camera per
// character in RLinf: an error, fixed by a list of one.
func TestD15_CameraSerialsScalar(t *testing.T) {
	for _, field := range []string{"camera_serials", "left_camera_serials"} {
		typ, ip := "Franka", "robot_ip: 10.0.0.1"
		if strings.HasPrefix(field, "left") {
			typ, ip = "DualFranka", "left_robot_ip: 10.0.0.1, right_robot_ip: 10.0.0.2"
		}
		src := groupsYAML(1, "    - label: arm\n      node_ranks: 0\n      hardware:\n        type: "+typ+"\n        configs:\n          - {node_rank: 0, "+ip+", "+field+": \"322142001230\"}\n")
		cfg, ds := load(src)
		d := wantDiag(t, ds, model.CodeWrongType, model.SeverityError)
		wantAt(t, d, src, "322142001230", 0)
		if len(d.Help) != 1 || d.Help[0].Edits[0].NewText != `["322142001230"]` || d.Help[0].Edits[0].Span.Col != d.Primary.Col-1 {
			t.Errorf("%s: help %+v", field, d.Help)
		}
		if cfg != nil && len(cfg.NodeGroups) != 0 {
			t.Errorf("%s: the group was kept", field)
		}
	}
	mustLoad(t, groupsYAML(1, "    - label: arm\n      node_ranks: 0\n      hardware:\n        type: Franka\n        configs:\n          - {node_rank: 0, robot_ip: 10.0.0.1, camera_serials: [\"3221\"]}\n"))
}

// D16: a switch given a mapping or list is an error; RLinf would read it
// by truthiness.
func TestD16_SwitchNotBoolean(t *testing.T) {
	for _, v := range []string{"{enabled: true}", "[]", "[1]"} {
		for _, key := range []string{"auto_scheduler", "use_pre_process_policy", "recreate_nccl_groups"} {
			src := "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: all\n  " + key + ": " + v + "\n"
			_, ds := load(src)
			d := wantDiag(t, ds, model.CodeWrongType, model.SeverityError)
			if d.Primary.Line != 5 || !strings.Contains(d.Summary, "true or false") {
				t.Errorf("%s: %s %s", key, d.Primary, d.Summary)
			}
		}
	}
	cfg, _ := mustLoad(t, "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: all\n  auto_scheduler: True\n")
	if !cfg.ModelParallel.AutoScheduler.Value {
		t.Error("auto_scheduler: True not read")
	}
}

// D17: python_interpreter_path given a list is an error (with the one
// path as its fix); a placeholder path is a warning naming it.
func TestD17_Interpreter(t *testing.T) {
	env := func(v string) string {
		return groupsYAML(1, "    - label: g\n      node_ranks: 0\n      env_configs:\n        - node_ranks: 0\n          python_interpreter_path: "+v+"\n")
	}
	_, ds := load(env(`["/usr/bin/python3"]`))
	d := wantDiag(t, ds, model.CodeWrongType, model.SeverityError)
	if len(d.Help) != 1 || len(d.Help[0].Edits) != 1 || d.Help[0].Edits[0].NewText != `"/usr/bin/python3"` {
		t.Errorf("help %+v", d.Help)
	}
	_, ds = load(env("[/a/python3, /b/python3]"))
	if d := wantDiag(t, ds, model.CodeWrongType, model.SeverityError); len(d.Help) != 1 || len(d.Help[0].Edits) != 0 {
		t.Errorf("two paths: help %+v", d.Help)
	}
	src := env("/path/to/python")
	cfg, ds := mustLoad(t, src)
	w := wantDiag(t, ds, model.WarnPlaceholder, model.SeverityWarning)
	wantAt(t, w, src, "/path/to/python", 0)
	if !strings.Contains(w.Summary, "`/path/to/python`") || !strings.Contains(w.Summary, "python_interpreter_path") {
		t.Errorf("summary %q", w.Summary)
	}
	if cfg.NodeGroups[0].EnvConfigs[0].Interpreter != "/path/to/python" {
		t.Error("the placeholder is still the interpreter RLinf would use")
	}
}

// Placeholder paths anywhere in the config: one warning per placeholder,
// with its other places as labels. Robot IP placeholders stay an error:
// RLinf refuses them when it reads the cluster section.
func TestD17_Placeholders(t *testing.T) {
	src := "cluster:\n  num_nodes: 1\n  component_placement:\n    actor,rollout: all\nactor:\n  model:\n    model_path: /path/to/model/Qwen/\nrollout:\n  model:\n    model_path: /path/to/model/Qwen/\ndata:\n  train_data_paths: /PATH/TO/DATA\n"
	_, ds := mustLoad(t, src)
	var ws []model.Diagnostic
	for _, d := range ds {
		if d.Code == model.WarnPlaceholder {
			ws = append(ws, d)
		}
	}
	if len(ws) != 2 || ws[0].Primary.Line != 7 || len(ws[0].Labels) != 1 || ws[0].Labels[0].Span.Line != 10 || ws[1].Primary.Line != 12 {
		t.Errorf("placeholder warnings %+v", ws)
	}
	_, ds = load(groupsYAML(1, "    - label: arm\n      node_ranks: 0\n      hardware:\n        type: Franka\n        configs:\n          - {node_rank: 0, robot_ip: ROBOT_IP}\n"))
	if d := wantDiag(t, ds, model.CodeInvalidValue, model.SeverityError); !strings.Contains(d.Summary, "placeholder ROBOT_IP") {
		t.Errorf("summary %q", d.Summary)
	}
}

// `???` is reported where placement reads it, and ignored elsewhere (as
// RLinf does until it reads the key).
func TestMandatoryValue(t *testing.T) {
	src := "cluster:\n  num_nodes: ???\n  component_placement:\n    actor: all\nrunner:\n  seed: ???\n"
	_, ds := load(src)
	d := wantDiag(t, ds, model.CodeMandatoryMissing, model.SeverityError)
	wantAt(t, d, src, "???", 0)
	if findDiag(ds, model.CodeWrongType) != nil || strings.Contains(diagText(ds), "seed") {
		t.Errorf("diagnostics:%s", diagText(ds))
	}
	_, ds = load("cluster:\n  num_nodes: 1\n  component_placement: ???\n")
	wantDiag(t, ds, model.CodeMandatoryMissing, model.SeverityError)
	cfg, _ := loadWith(t, src, "cluster.num_nodes=2")
	if cfg == nil || cfg.NumNodes != 2 {
		t.Errorf("the override did not give the mandatory value: %+v", cfg)
	}
}
