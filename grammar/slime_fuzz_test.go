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

// FuzzShellLex: the lexer never panics; every word's bytes come from
// inside the word's extent in the input, in order, and its expansions lie
// in its text.
func FuzzShellLex(f *testing.F) {
	for _, s := range slimeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cmds, err := shellLex(s)
		if err != nil {
			if err.Off < 0 || err.Off >= len(s) {
				t.Fatalf("error offset %d outside %q", err.Off, s)
			}
			return
		}
		last := -1
		for _, c := range cmds {
			for _, w := range c.Words {
				if len(w.Offs) != len(w.Text) || w.Off < 0 || w.End > len(s) || w.Off > w.End || w.Off < last {
					t.Fatalf("word %+v of %q", w, s)
				}
				last = w.Off
				prev := w.Off
				for _, o := range w.Offs {
					if o < prev || o >= w.End {
						t.Fatalf("word %q byte at %d outside [%d, %d) or out of order in %q", w.Text, o, w.Off, w.End, s)
					}
					prev = o
				}
				end := 0
				for _, e := range w.Exps {
					if e.From < end || e.To < e.From || e.To > len(w.Text) {
						t.Fatalf("expansion %+v of %q", e, w.Text)
					}
					end = e.To
				}
			}
		}
	})
}
