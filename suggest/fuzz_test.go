package suggest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadSuggest: no config makes Load or Suggest panic, suggestions
// come best first with non-negative costs, and refusals are located in
// the config.
func FuzzLoadSuggest(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "conformance", "autoplace.json"))
	if err != nil {
		f.Fatal(err)
	}
	var cases []struct {
		Inputs struct {
			Config json.RawMessage `json:"config"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		f.Fatal(err)
	}
	for i, c := range cases {
		if i%5 == 0 {
			f.Add([]byte(c.Inputs.Config), uint8(8), uint8(4))
		}
	}
	for _, s := range []string{"", "[]", "a: b", "cluster: 3", "profile_data: {actor_cost: 1e308, rollout_cost: 1e308, inference_cost: 1e308}",
		"runner: {task_type: embodied}\ndata: {env_num: 0}", "runner: {task_type: embodied}\ndata: {env_num: 7}\nprofile_data: {env_profile_data: {}, rollout_profile_data: {1: 1}, actor_cost: 1}",
		"a: &x ${a}\nb: *x\ndata: {rollout_batch_size: ${a}}", "actor: {model: {tensor_model_parallel_size: 1073741824}}",
		"data: {rollout_batch_size: 1073741824}\nalgorithm: {group_size: 1073741824, n_minibatches: 3}",
		"cluster: {num_nodes: 1, component_placement: {actor,rollout,reward: 0-99999999}}"} {
		f.Add([]byte(s), uint8(16), uint8(8))
	}
	f.Fuzz(func(t *testing.T, data []byte, gpus, per uint8) {
		spec, _ := Load("fuzz.yaml", data)
		if spec == nil || gpus == 0 || per == 0 {
			return
		}
		n := int(gpus) % 64
		p := int(per)%8 + 1
		if n == 0 {
			return
		}
		n -= n % p
		if n == 0 {
			return
		}
		cl, err := UniformCluster(n, p)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Suggest(spec, cl, Options{Top: 2})
		if err != nil {
			return
		}
		// A refusal is said in the user's file, never the generated one.
		for _, r := range res.Refusals {
			if r.Diagnostic.Code == "" || r.Diagnostic.Primary.File == checkedName {
				t.Fatalf("refusal %+v", r)
			}
		}
		for i, s := range res.Suggestions {
			if s.TotalCost < 0 || i > 0 && s.TotalCost < res.Suggestions[i-1].TotalCost {
				t.Fatalf("costs %v", res.Suggestions)
			}
		}
	})
}
