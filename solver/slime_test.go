package solver

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
)

// slimeFlags builds a config as the flag parser would: each flag at its
// own column of one line, so that spans identify flags.
func slimeFlags(t *testing.T, pairs ...any) *model.SlimeConfig {
	t.Helper()
	c := &model.SlimeConfig{Source: "--slime", Appendable: true}
	col := 1
	for i := 0; i < len(pairs); i += 2 {
		k, v := pairs[i].(model.SlimeKey), pairs[i+1].(int)
		text := fmt.Sprintf("%s %d", k.Info().Flag, v)
		if k.Info().Bool {
			text = k.Info().Flag
		}
		sp := model.Span{File: "--slime", Line: 1, Col: col, EndLine: 1, EndCol: col + len(text)}
		c.Values[k] = model.SlimeValue{Set: true, Value: v, Span: sp, ValueSpan: sp, Text: text}
		col += len(text) + 1
	}
	c.Span = model.Span{File: "--slime", Line: 1, Col: 1, EndLine: 1, EndCol: col}
	c.End = model.Span{File: "--slime", Line: 1, Col: col, EndLine: 1, EndCol: col}
	return c
}

func topo(n, g int) *model.SlimeTopology {
	nodes := make([]model.Node, n)
	for i := range nodes {
		nodes[i] = model.Node{Rank: i, IP: fmt.Sprintf("10.0.0.%d", i+1), AccelCount: g}
	}
	return model.NewSlimeTopology(nodes, nil)
}

// flagsOf names the flags a diagnostic points at (primary and labels).
func flagsOf(cfg *model.SlimeConfig, d model.Diagnostic) []string {
	var out []string
	for k := range model.SlimeNumKeys {
		v := cfg.Values[k]
		if !v.Set {
			continue
		}
		hit := d.Primary == v.Span
		for _, l := range d.Labels {
			hit = hit || l.Span == v.Span
		}
		if hit {
			out = append(out, k.Info().Flag)
		}
	}
	sort.Strings(out)
	return out
}

func TestSlimeMinimalConflicts(t *testing.T) {
	S := func(xs ...string) string { sort.Strings(xs); return strings.Join(xs, " ") }
	for _, c := range []struct {
		name  string
		cfg   []any
		topo  *model.SlimeTopology
		code  string
		flags string
		// pointer is a flag shown but not in the minimal set (the one the
		// fix changes, wrong whatever its value).
		pointer string
	}{
		{"fit", []any{model.SlimeActorNumNodes, 2, model.SlimeRolloutNumGPUs, 24, model.SlimeRolloutGPUsPerEngine, 2, model.SlimeNumGPUsPerNode, 8},
			topo(4, 8), model.CodeSlimeFit, S("--actor-num-nodes", "--rollout-num-gpus"), ""},
		{"divides", []any{model.SlimeActorNumNodes, 1, model.SlimeRolloutNumGPUs, 6, model.SlimeRolloutGPUsPerEngine, 4},
			topo(4, 8), model.CodeSlimeEngineDivides, S("--rollout-num-gpus", "--rollout-num-gpus-per-engine"), ""},
		{"prefill leaves no decode", []any{model.SlimeRolloutOnly, 1, model.SlimeRolloutNumGPUs, 8, model.SlimeRolloutGPUsPerEngine, 4, model.SlimePrefillServers, 2},
			topo(1, 8), model.CodeSlimeGroups, S("--prefill-num-servers", "--rollout-num-gpus", "--rollout-num-gpus-per-engine"), ""},
		{"two sources of engines", []any{model.SlimeRolloutExternal, 1, model.SlimePrefillServers, 1, model.SlimeActorNumNodes, 1},
			topo(2, 8), model.CodeSlimeGroups, S("--prefill-num-servers", "--rollout-external-engine-addrs"), ""},
		{"modes", []any{model.SlimeTrainOnly, 1, model.SlimeRolloutOnly, 1, model.SlimeRolloutNumGPUs, 8},
			topo(1, 8), model.CodeSlimeModes, S("--debug-train-only", "--debug-rollout-only"), ""},
		// An 8-GPU engine on two 4-GPU nodes: slime, assuming 8 GPUs per
		// node, starts it as one SGLang node.
		{"node size, default", []any{model.SlimeRolloutOnly, 1, model.SlimeRolloutNumGPUs, 8, model.SlimeRolloutGPUsPerEngine, 8},
			topo(2, 4), model.CodeSlimeNodeSize, S("--debug-rollout-only", "--rollout-num-gpus", "--rollout-num-gpus-per-engine"), ""},
		// A 4-GPU engine on one 4-GPU node: slime, told 2 GPUs per node,
		// splits it into two SGLang nodes.
		{"node size, given", []any{model.SlimeRolloutOnly, 1, model.SlimeRolloutNumGPUs, 8, model.SlimeRolloutGPUsPerEngine, 4, model.SlimeNumGPUsPerNode, 2},
			topo(2, 4), model.CodeSlimeNodeSize, S("--debug-rollout-only", "--num-gpus-per-node", "--rollout-num-gpus", "--rollout-num-gpus-per-engine"), ""},
		{"straddle", []any{model.SlimeActorGPUsPerNode, 4, model.SlimeRolloutNumGPUs, 8, model.SlimeRolloutGPUsPerEngine, 8},
			topo(4, 8), model.CodeSlimeStraddle, S("--actor-num-gpus-per-node", "--rollout-num-gpus", "--rollout-num-gpus-per-engine"), ""},
		{"ports", []any{model.SlimeRolloutOnly, 1, model.SlimeRolloutNumGPUs, 16, model.SlimeRolloutGPUsPerEngine, 2, model.SlimeDPSize, 5000},
			topo(2, 8), model.CodeSlimePortRange, S("--debug-rollout-only", "--rollout-num-gpus", "--sglang-dp-size"), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := slimeFlags(t, c.cfg...)
			res, err := Check(rules.Slime(cfg, c.topo, rules.SlimeOptions{}), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Diagnostics) != 1 {
				t.Fatalf("want one conflict, got %+v", res.Diagnostics)
			}
			d := res.Diagnostics[0]
			if d.Code != c.code || strings.Join(flagsOf(cfg, d), " ") != c.flags {
				t.Errorf("%s %v (%s), want %s %s", d.Code, flagsOf(cfg, d), d.Summary, c.code, c.flags)
			}
			// The set alone, with every other flag at its default, has
			// the conflict; without any one of its flags it does not.
			var set []model.SlimeKey
			for k := range model.SlimeNumKeys {
				if v := cfg.Values[k]; v.Set && strings.Contains(" "+c.flags+" ", " "+k.Info().Flag+" ") && k.Info().Flag != c.pointer {
					set = append(set, k)
				}
			}
			only := func(keep []model.SlimeKey) *model.SlimeConfig {
				o := *cfg
				for k := range model.SlimeNumKeys {
					if !slices.Contains(keep, k) {
						o.Values[k] = model.SlimeValue{}
					}
				}
				return &o
			}
			if !hasCode(t, only(set), c.topo, c.code) {
				t.Errorf("the set alone has no %s", c.code)
			}
			for i := range set {
				rest := append(append([]model.SlimeKey(nil), set[:i]...), set[i+1:]...)
				if hasCode(t, only(rest), c.topo, c.code) {
					t.Errorf("still %s without %s", c.code, set[i].Info().Flag)
				}
			}
		})
	}
}

func hasCode(t *testing.T, cfg *model.SlimeConfig, tp *model.SlimeTopology, code string) bool {
	t.Helper()
	res, err := Check(rules.Slime(cfg, tp, rules.SlimeOptions{}), Options{NoFixes: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res.Diagnostics {
		if d.Code == code {
			return true
		}
	}
	return false
}

// Independent mistakes are reported separately, each with its own flags;
// fixes are kept only when they remove the conflict.
func TestSlimeIndependentConflictsAndFixes(t *testing.T) {
	cfg := slimeFlags(t, model.SlimeColocate, 1, model.SlimeRolloutNumGPUs, 6, model.SlimeRolloutGPUsPerEngine, 4, model.SlimePrefillServers, 2)
	res, err := Check(rules.Slime(cfg, topo(1, 8), rules.SlimeOptions{}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]model.Diagnostic{}
	for _, d := range res.Diagnostics {
		codes[d.Code] = d
	}
	if len(res.Diagnostics) != 2 || codes[model.CodeSlimeGroups].Code == "" || codes[model.CodeSlimeEngineDivides].Code == "" {
		t.Fatalf("%+v", res.Diagnostics)
	}
	div := codes[model.CodeSlimeEngineDivides]
	if len(div.Help) == 0 || len(div.Help[0].Edits) != 1 || div.Help[0].Edits[0].NewText != "4" {
		t.Errorf("divides fixes %+v", div.Help)
	}
	pre := codes[model.CodeSlimeGroups]
	if len(pre.Help) == 0 || pre.Help[0].Message != "drop `--prefill-num-servers 2`" {
		t.Errorf("prefill fixes %+v", pre.Help)
	}
	// A missing flag is added at the end of the string.
	cfg = slimeFlags(t, model.SlimeRolloutOnly, 1, model.SlimeRolloutNumGPUs, 4, model.SlimeRolloutGPUsPerEngine, 4)
	res, _ = Check(rules.Slime(cfg, topo(2, 2), rules.SlimeOptions{}), Options{})
	if len(res.Diagnostics) != 1 || res.Diagnostics[0].Primary != cfg.End || len(res.Diagnostics[0].Help) != 1 ||
		res.Diagnostics[0].Help[0].Edits[0].NewText != " --num-gpus-per-node 2" {
		t.Errorf("%+v", res.Diagnostics)
	}
}

func TestSlimeValidHasNoConflict(t *testing.T) {
	cfg := slimeFlags(t, model.SlimeActorNumNodes, 2, model.SlimeActorGPUsPerNode, 8, model.SlimeRolloutNumGPUs, 8, model.SlimeRolloutGPUsPerEngine, 2)
	res, err := Check(rules.Slime(cfg, topo(3, 8), rules.SlimeOptions{}), Options{})
	if err != nil || len(res.Diagnostics) != 0 {
		t.Fatalf("%v %+v", err, res.Diagnostics)
	}
}
