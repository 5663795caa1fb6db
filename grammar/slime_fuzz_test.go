package grammar

import (
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

// slimeSeeds are flag strings and pasted launch commands shaped like the
// ones slime's scripts run (their placement flags; the rest is filler).
var slimeSeeds = []string{
	"--actor-num-nodes 2 --actor-num-gpus-per-node 8 --rollout-num-gpus 8 --rollout-num-gpus-per-engine 2",
	"--colocate --actor-num-nodes=1", "--colocate=true", "--colocate false", "'", `"\`, "--rollout-num-gpus",
	"--rollout-num-gpus 1_0", "a \\\n b", "--x -- --colocate", "--rollout-num-gpus=", "\xff--colocate",
	"ray job submit --address=\"http://127.0.0.1:8265\" \\\n   --runtime-env-json='{\n     \"env_vars\": {\"A\": \"1\"}\n   }' \\\n" +
		"   -- python3 train.py \\\n   --actor-num-nodes 1 \\\n   --actor-num-gpus-per-node ${NUM_GPUS} \\\n   --colocate \\\n   ${MODEL_ARGS[@]} \\\n   \"${SGLANG_ARGS[@]}\"",
	"ray job submit --address=http://127.0.0.1:8265 $'--runtime-env-json={\\n  \"a\": \"0\"\\n}' -- python3 train_async.py --actor-num-nodes 4 " +
		"--actor-num-gpus-per-node 8 --colocate --rollout-num-gpus-per-engine 64 --sglang-dp-size 64 --prefill-num-servers 1 --sglang-ep-size 64",
	"ray job submit -- python3 \"$(cd \"$(dirname -- \"$0\")\" && pwd)/train.py\" --actor-num-nodes \"${ACTOR_NUM_NODES}\" --rollout-num-gpus 64 --sglang-config \"${CFG}\"",
	"CUDA_DEVICE_MAX_CONNECTIONS=1 python -m slime.train --debug-rollout-only --rollout-num-gpus 0 --rollout-external-engine-addrs a:1 b:2 # tail",
	"cat > f <<EOF\n--colocate\nEOF\ntorchrun --standalone x.py --load-debug-rollout-data /d.pt > log 2>&1 &",
	"ARGS=(\n --a 1\n) && python3 train.py `echo --colocate` $((1+2)) <(x)",
}

// FuzzParseSlimeFlags: any string parses without panicking; every span
// lies inside the string; accepted values are within their bounds.
func FuzzParseSlimeFlags(f *testing.F) {
	for _, s := range slimeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cfg, ds := ParseSlimeFlags(s, DefaultLimits)
		lines := 1 + strings.Count(s, "\n")
		check := func(sp model.Span, what string) {
			if !sp.Known() {
				return
			}
			if sp.File != SlimeSource || sp.Line < 1 || sp.Line > lines || sp.Col < 1 || sp.Col > len(s)+2 || sp.EndLine < sp.Line || sp.EndLine > lines {
				t.Fatalf("%s span %+v outside %q", what, sp, s)
			}
		}
		for _, d := range ds {
			check(d.Primary, d.Code)
			for _, l := range d.Labels {
				check(l.Span, d.Code+" label")
			}
		}
		if cfg == nil {
			if !ds.HasErrors() {
				t.Fatalf("no config and no error for %q", s)
			}
			return
		}
		for name, v := range cfg.Flags { // every flag kept, within the input
			if strings.HasPrefix(name, "-") {
				t.Fatalf("flag %q kept with its dashes", name)
			}
			check(v.Span, "flag "+name)
		}
		for k, v := range cfg.Values {
			if !v.Set {
				continue
			}
			check(v.Span, "value")
			info := model.SlimeKey(k).Info()
			least := 1
			if info.Zero {
				least = 0
			}
			if (info.Bool || info.Text) && v.Value != 1 || !info.Bool && !info.Text && (v.Value < least || v.Value > MaxSlimeValue) {
				t.Fatalf("%s accepted as %d from %q", info.Flag, v.Value, s)
			}
		}
	})
}

// FuzzSlimeScript: any text evaluates in the sandbox without panicking;
// every traced argument of the text itself lies inside it, and its exact
// bytes are the argument's.
func FuzzSlimeScript(f *testing.F) {
	for _, s := range slimeSeeds {
		f.Add(s)
	}
	f.Add("A=(--colocate $N)\npython3 train.py \"${A[@]}\" ${X:-4}")
	f.Add("f(){ f; }; f")
	f.Fuzz(func(t *testing.T, s string) {
		ev := evalScript("fuzz.sh", s, ScriptOptions{})
		for _, c := range ev.cmds {
			for _, w := range c.Words {
				if w.Ext != nil {
					t.Fatalf("word %q from another file %v", w.Text, *w.Ext)
				}
				if w.Off < 0 || w.End > len(s) || w.Off > w.End {
					t.Fatalf("word %q at [%d, %d) outside %d bytes", w.Text, w.Off, w.End, len(s))
				}
				for i, o := range w.Offs {
					if o < 0 || o >= len(s) || s[o] != w.Text[i] {
						t.Fatalf("byte %d of %q is not written at %d", i, w.Text, o)
					}
				}
			}
		}
	})
}
