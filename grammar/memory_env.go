package grammar

import "github.com/rlsolve/rlsolve/model"

// vllmEnvKey is the variable that picks vLLM's engine. vLLM reads it as
// bool(int(os.getenv("VLLM_USE_V1", "1"))) (vllm/envs.py): V1 unless 0.
const vllmEnvKey = "VLLM_USE_V1"

// vllmV1 reads VLLM_USE_V1 from the node groups' env_configs, which RLinf
// sets in the environment of the workers it starts there, vLLM's
// included. Unset means vLLM's default, V1. Where groups disagree V1
// stands: its free-memory check at start is the stricter verdict. A value
// other than 0 or 1 is left to the default (vLLM cannot parse it).
func vllmV1(groups []model.NodeGroup) model.BoolFact {
	f := model.BoolFact{Value: true, Key: vllmEnvKey}
	for _, g := range groups {
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
