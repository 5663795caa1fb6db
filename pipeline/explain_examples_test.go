package pipeline_test

import (
	"testing"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/strategies"
)

// Every `rlsolve explain` example of a check of RLinf configs triggers its
// own code, so that the explanations stay true. Codes that other front
// ends raise (slime, suggest, launch, topology, file reads) or that only
// direct library calls reach are listed, with why.
func TestExplainExamplesTrigger(t *testing.T) {
	elsewhere := map[string]string{
		model.CodeFileRead:       "a file that cannot be read, not a config",
		model.CodeNodeIndexRange: "Go library's Node strategy; configs get RLS-E0411 first",
		model.CodeHardwareRange:  "Go library's strategies; configs get RLS-E0203 first",
	}
	for _, e := range diag.Codes() {
		if _, skip := elsewhere[e.Code]; skip {
			continue
		}
		if len(e.Code) > 6 && (e.Code[5:7] == "07" || e.Code[5:7] == "08" || e.Code[5:7] == "09" || e.Code == "RLS-E0604") {
			continue // slime, suggest, launch and topology merge test their own examples
		}
		if len(e.Code) > 6 && e.Code[5:7] == "10" {
			continue // memory: proptest/memory_examples_test.go until check emits them
		}
		found := false
		for _, mode := range []strategies.Mode{strategies.ModeDetect, strategies.ModeModelParallel} {
			o := pipeline.CheckBytes("example.yaml", []byte(e.Example), pipeline.Options{GPUsPerNode: -1, Mode: mode})
			for _, d := range o.Diagnostics {
				found = found || d.Code == e.Code
			}
		}
		if !found {
			t.Errorf("%s (%s): its explain example does not trigger it", e.Code, e.Title)
		}
	}
}
