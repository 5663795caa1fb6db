package proptest

import (
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/memory"
	"github.com/rlsolve/rlsolve/pipeline"
)

// Every memory explanation's example triggers its own code through the
// memory package (until check emits memory codes, when the pipeline's
// explain test takes over), and every finding carries located drivers.
func TestMemoryExplainExamples(t *testing.T) {
	elsewhere := map[string]string{
		"RLS-E1006": "a --mem-profile or config.json file: memory's reader tests",
		"RLS-N1001": "a note the check emits when memory is not checked",
		"RLS-N1002": "a note the check emits with the architecture's source",
	}
	for _, e := range diag.Codes() {
		if !strings.HasPrefix(e.Code, "RLS-E10") && !strings.HasPrefix(e.Code, "RLS-W10") && !strings.HasPrefix(e.Code, "RLS-N10") {
			continue
		}
		if _, skip := elsewhere[e.Code]; skip {
			continue
		}
		t.Run(e.Code, func(t *testing.T) {
			o := pipeline.CheckBytes("example.yaml", []byte(e.Example), pipeline.Options{GPUsPerNode: -1})
			if o.Diagnostics.HasErrors() {
				t.Fatalf("the example is not a valid placement: %v", o.Diagnostics)
			}
			run, err := runMemory(o, memory.DefaultProfile())
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range run.findings {
				d := f.Diagnostic()
				found = found || f.Code == e.Code
				if !d.Primary.Known() {
					t.Errorf("%s has no located driver: %+v", f.Code, f)
				}
			}
			if !found {
				t.Errorf("%s (%s): its example gives %v", e.Code, e.Title, run.codes())
				for _, f := range run.findings {
					t.Logf("%s %s", f.Code, f.Summary)
				}
			}
		})
	}
}
