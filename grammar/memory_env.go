package grammar

import (
	"slices"

	"github.com/rlsolve/rlsolve/model"
)

// vllmEnvKey is the variable that picks vLLM's engine. vLLM reads it as
// bool(int(os.getenv("VLLM_USE_V1", "1"))) (vllm/envs.py): V1 unless 0.
const vllmEnvKey = "VLLM_USE_V1"

// vllmV1 reads VLLM_USE_V1 for component from env_configs: RLinf sets a
// group's variables in the workers placed through that group's label (D8),
// vLLM's among them. Unset means vLLM's default, V1. Where groups disagree
// V1 stands: its free-memory check at start is the stricter verdict. A
// value other than 0 or 1 is left to the default (vLLM cannot parse it).
// Model-parallel placement ignores node_group (D9); the class is decided
// after this read, and the pipeline drops the value there (groupEnvDropped).
func vllmV1(cfg *model.Config, component string) model.BoolFact {
	f := model.BoolFact{Value: true, Key: vllmEnvKey}
	for _, g := range cfg.NodeGroups {
		if !slices.Contains(placedThrough(cfg, component), g.Label) {
			continue
		}
		for _, e := range g.EnvConfigs {
			for _, v := range e.EnvVars {
				if v.Key != vllmEnvKey || v.Value != "0" && v.Value != "1" {
					continue
				}
				if !f.Set || v.Value == "1" && !f.Value {
					f.Set, f.Value, f.Span = true, v.Value == "1", v.ValueSpan
				}
			}
		}
	}
	return f
}

// placedThrough are the node group labels component is placed through,
// its entry's node_group; none where it is placed through RLinf's default
// group, whose workers get no group's env_configs.
func placedThrough(cfg *model.Config, component string) []string {
	for _, e := range cfg.Components {
		if slices.Contains(e.Names, component) {
			return e.NodeGroups
		}
	}
	return nil
}
