package grammar

import (
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

// FuzzParseSlimeFlags: any string parses without panicking; every span
// lies inside the string; accepted values are within 1..MaxSlimeValue.
func FuzzParseSlimeFlags(f *testing.F) {
	for _, s := range []string{
		"--actor-num-nodes 2 --actor-num-gpus-per-node 8 --rollout-num-gpus 8 --rollout-num-gpus-per-engine 2",
		"--colocate --actor-num-nodes=1", "--colocate=true", "--colocate false", "'", `"\`, "--rollout-num-gpus",
		"--rollout-num-gpus 1_0", "a \\\n b", "--x -- --colocate", "--rollout-num-gpus=", "\xff--colocate",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cfg, ds := ParseSlimeFlags(s, DefaultLimits)
		lines := 1
		for i := 0; i < len(s); i++ {
			if s[i] == '\n' {
				lines++
			}
		}
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
		for k, v := range cfg.Values {
			if !v.Set {
				continue
			}
			check(v.Span, "value")
			info := model.SlimeKey(k).Info()
			if info.Bool && v.Value != 1 || !info.Bool && (v.Value < 1 || v.Value > MaxSlimeValue) {
				t.Fatalf("%s accepted as %d from %q", info.Flag, v.Value, s)
			}
		}
	})
}
