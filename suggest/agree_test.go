package suggest_test

import (
	"fmt"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/suggest"
)

// check and suggest read a config through the same reader: the keys both
// read (TP sizes) get the same value, or the same error at the same place,
// whether written plainly, in YAML 1.1's surprising forms or through
// interpolations and resolvers. suggest reads a file without a cluster
// section, so that what it reports is its own reading.
func TestCheckAndSuggestAgree(t *testing.T) {
	for _, tp := range []string{"4", "1_0", "0x10", "010", "yes", `"4"`, "${sizes.tp}", "${subtract:${sizes.big}, ${sizes.tp}}", "${sizes.missing}", "???"} {
		common := fmt.Sprintf("sizes: {tp: 2, big: 10}\nrunner: {task_type: reasoning}\nactor:\n  model:\n    tensor_model_parallel_size: %s\n", tp)
		cfg, cds := grammar.LoadConfig("t.yaml", []byte(common+"cluster:\n  num_nodes: 4\n  component_placement:\n    actor,rollout,reward: all\n"), grammar.DefaultLimits)
		spec, sds := suggest.Load("t.yaml", []byte(common))
		checkErr, suggestErr := firstError(cds), firstError(sds)
		switch {
		case checkErr != nil || suggestErr != nil:
			if checkErr == nil || suggestErr == nil || checkErr.Code != suggestErr.Code || checkErr.Primary != suggestErr.Primary {
				t.Errorf("tp %s: check says %v, suggest says %v", tp, checkErr, suggestErr)
			}
		case cfg.ModelParallel.ActorTP.Value != spec.Reasoning.ActorTP:
			t.Errorf("tp %s: check reads %d, suggest %d", tp, cfg.ModelParallel.ActorTP.Value, spec.Reasoning.ActorTP)
		}
	}
}

func firstError(ds model.Diagnostics) *model.Diagnostic {
	for i := range ds {
		if ds[i].Severity == model.SeverityError {
			return &ds[i]
		}
	}
	return nil
}
