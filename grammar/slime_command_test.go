package grammar

import (
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

// A launch command pasted as a script runs it: slime's flags are read
// after the program, whatever wraps it.
func TestParseSlimeCommandWrappers(t *testing.T) {
	submit := `ray job submit --address="http://127.0.0.1:8265" \
   --runtime-env-json='{
     "env_vars": {"PYTHONPATH": "/root/Megatron-LM/", "X": "--colocate"}
   }' \
   -- python3 train.py \
   --actor-num-nodes 2 \
   --actor-num-gpus-per-node 8 \
   --colocate \
   --hf-checkpoint /root/Qwen3-4B \
   --rollout-num-gpus-per-engine 2 \
   --sglang-mem-fraction-static 0.7   # the rest is tuning
`
	for _, c := range []struct {
		name, in string
		want     map[model.SlimeKey]int
	}{
		{"ray job submit", submit, map[model.SlimeKey]int{model.SlimeActorNumNodes: 2, model.SlimeActorGPUsPerNode: 8, model.SlimeColocate: 1, model.SlimeRolloutGPUsPerEngine: 2}},
		{"python -m", "python -m slime.train --rollout-num-gpus 4 --debug-rollout-only", map[model.SlimeKey]int{model.SlimeRolloutNumGPUs: 4, model.SlimeRolloutOnly: 1}},
		{"torchrun", "torchrun --nproc-per-node 8 --standalone train_async.py --actor-num-nodes 1 --colocate", map[model.SlimeKey]int{model.SlimeActorNumNodes: 1, model.SlimeColocate: 1}},
		{"env and -u", "CUDA_DEVICE_MAX_CONNECTIONS=1 PYTHONPATH=/x python3 -u /root/slime/train.py --rollout-num-gpus 0 --colocate", map[model.SlimeKey]int{model.SlimeRolloutNumGPUs: 0, model.SlimeColocate: 1}},
		{"script path in $(...)", `python3 "$(cd "$(dirname -- "$0")" && pwd)/train.py" --actor-num-nodes 3`, map[model.SlimeKey]int{model.SlimeActorNumNodes: 3}},
		{"several commands", "cd /root/slime && export A=1\npkill -9 ray; ray job submit -- python3 train.py --actor-num-nodes 4", map[model.SlimeKey]int{model.SlimeActorNumNodes: 4}},
		// A flag string: a .py value after a placement flag is no program.
		{"flags with a .py value", "--actor-num-nodes 2 --custom-generate-function-path gen.py --colocate", map[model.SlimeKey]int{model.SlimeActorNumNodes: 2, model.SlimeColocate: 1}},
		// Without a program, the flags after the wrapper's `--` are read.
		{"wrapper without program", "ray job submit --address x -- --actor-num-nodes 2", map[model.SlimeKey]int{model.SlimeActorNumNodes: 2}},
		// As set -x traces it: a leading +, quoted and $'...' words.
		{"set -x trace", "+ ray job submit --address=http://127.0.0.1:8265 '--runtime-env-json={\n  \"A\": \"1\"\n}' -- python3 train.py --actor-num-nodes 2 --colocate",
			map[model.SlimeKey]int{model.SlimeActorNumNodes: 2, model.SlimeColocate: 1}},
		{"bash -x", `ray job submit $'--runtime-env-json={\n "a": 1\n}' -- python3 train.py --actor-num-gpus-per-node 4 --sglang-data-parallel-size 2`, map[model.SlimeKey]int{model.SlimeActorGPUsPerNode: 4, model.SlimeDPSize: 2}},
		{"new flags", "python3 train.py --prefill-num-servers 1 --rollout-external-engine-addrs 10.0.0.1:30000 10.0.0.2:30000 --load-debug-rollout-data /d/{rollout_id}.pt",
			map[model.SlimeKey]int{model.SlimePrefillServers: 1, model.SlimeRolloutExternal: 1, model.SlimeLoadDebugRollout: 1}},
		{"switch alias", "--rollout-external --actor-num-nodes 1", map[model.SlimeKey]int{model.SlimeRolloutExternal: 1, model.SlimeActorNumNodes: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, ds := ParseSlimeFlags(c.in, DefaultLimits)
			if cfg == nil || ds.HasErrors() || ds.Count(model.SeverityWarning) > 0 {
				t.Fatalf("%+v", ds)
			}
			for k := range model.SlimeNumKeys {
				v := cfg.Values[k]
				w, ok := c.want[k]
				if v.Set != ok || v.Value != w && !k.Info().Text {
					t.Errorf("%s = %+v, want %d (set %v)", k.Info().Flag, v, w, ok)
				}
			}
		})
	}
	cfg, _ := ParseSlimeFlags(submit, DefaultLimits)
	v := cfg.Values[model.SlimeActorGPUsPerNode]
	if v.Span.Line != 7 || v.Span.Col != 4 || v.ValueSpan.Col != 30 {
		t.Errorf("spans %+v / %+v", v.Span, v.ValueSpan)
	}
	cfg, _ = ParseSlimeFlags("python3 train.py --rollout-external-engine-addrs a:1 b:2 --colocate", DefaultLimits)
	if v := cfg.Values[model.SlimeRolloutExternal]; v.Arg != "a:1 b:2" || !cfg.Values[model.SlimeColocate].Set {
		t.Errorf("addresses %+v", v)
	}
}

// A placement flag's value left to the shell is an error naming the flag,
// the variable and where; unexpanded words that may hold flags warn.
func TestParseSlimeCommandExpansions(t *testing.T) {
	in := "ray job submit -- python3 train.py \\\n   --actor-num-nodes 1 \\\n   --actor-num-gpus-per-node ${NUM_GPUS} \\\n   --rollout-num-gpus=\"$(nproc)\" \\\n   ${SGLANG_ARGS[@]} \\\n   \"${PERF_ARGS[@]}\" $EXTRA --hf-checkpoint ${MODEL_DIR}"
	_, ds := ParseSlimeFlags(in, DefaultLimits)
	var errs, warns []model.Diagnostic
	for _, d := range ds {
		switch d.Severity {
		case model.SeverityError:
			errs = append(errs, d)
		case model.SeverityWarning:
			warns = append(warns, d)
		}
	}
	if len(errs) != 1 || len(warns) != 1 {
		t.Fatalf("%+v", ds)
	}
	if d := errs[0]; d.Code != model.CodeSlimeValue || d.Primary.Line != 3 || d.Primary.Col != 30 || d.Primary.EndCol != 41 ||
		!strings.Contains(d.Summary, "--actor-num-gpus-per-node (line 3, column 4) depends on the variable NUM_GPUS (--slime line 3, column 30), which the script never sets") ||
		!strings.Contains(d.Help[0].Message, "--env NUM_GPUS=VALUE") {
		t.Errorf("variable: %+v", d)
	}
	if w := warns[0]; w.Code != model.WarnSlimeUnexpanded || w.Primary.Line != 5 || w.Primary.Col != 4 || len(w.Labels) != 2 ||
		!strings.Contains(w.Summary, "expands `SGLANG_ARGS`, `PERF_ARGS`, `EXTRA` (line 5, column 4), which the script never sets") {
		t.Errorf("unexpanded: %+v", w)
	}
	// --sglang-config's file defines the engines: its name must be known.
	if _, ds := ParseSlimeFlags("python3 train.py --sglang-config ${CFG} --colocate", DefaultLimits); !ds.HasErrors() || !strings.Contains(ds[0].Summary, "depends on the variable CFG") {
		t.Errorf("--sglang-config ${CFG}: %+v", ds)
	}
}

func TestParseSlimeCommandErrors(t *testing.T) {
	for _, c := range []struct {
		in, code, msg string
	}{
		{"python3 train.py --rollout-external-engine-addrs --colocate", model.CodeSlimeFlag, "--rollout-external-engine-addrs (column 18) expects a value"},
		{"python3 train.py --rollout-external=1", model.CodeSlimeFlag, "--rollout-external (column 18) takes no value"},
		{"python3 train.py --prefill-num-servers 0", model.CodeSlimeValue, "must be at least 1, but is 0"},
		{"python3 train.py --prefil-num-servers 1", model.CodeSlimeFlag, "did you mean --prefill-num-servers?"},
		{"ray job submit -- python3 train.py \\\n --x \"a", model.CodeSlimeScript, `cannot be parsed: reached EOF without closing quote "`},
	} {
		_, ds := ParseSlimeFlags(c.in, DefaultLimits)
		if len(ds) == 0 || ds[0].Code != c.code || !strings.Contains(ds[0].Summary, c.msg) {
			t.Errorf("%q: %+v, want %s %q", c.in, ds, c.code, c.msg)
		}
	}
}

// A line after the command that looks like more of its arguments, but is
// not joined by a `\`, is a separate command: warned, with the fix.
func TestParseSlimeCommandMissingContinuation(t *testing.T) {
	in := "ray job submit -- python3 train.py \\\n   --colocate \\\n   --x $((4 * 2))\n   ${SGLANG_ARGS[@]} \\\n   --actor-num-nodes 2\n"
	cfg, ds := ParseSlimeFlags(in, DefaultLimits)
	var w *model.Diagnostic
	for i := range ds {
		if ds[i].Code == model.WarnSlimeSplitCommand {
			w = &ds[i]
		}
	}
	if w == nil || w.Primary.Line != 4 || w.Primary.Col != 4 || !strings.Contains(w.Summary, "the command ends at line 3, column 18 without a `\\`") ||
		len(w.Help) != 1 || len(w.Help[0].Edits) != 1 || w.Help[0].Edits[0].Span.Line != 3 || w.Help[0].Edits[0].Span.Col != 18 {
		t.Fatalf("%+v", ds)
	}
	if cfg.Values[model.SlimeActorNumNodes].Set || !cfg.Values[model.SlimeColocate].Set {
		t.Errorf("the split-off flags are not slime's: %+v", cfg.Values)
	}
	// A next command that is a program is just another command.
	if _, ds := ParseSlimeFlags("python3 train.py --colocate\necho done", DefaultLimits); len(ds) != 0 {
		t.Errorf("%+v", ds)
	}
}
