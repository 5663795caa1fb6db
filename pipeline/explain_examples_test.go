package pipeline_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
)

// Every `rlsolve explain` example of a check of RLinf configs triggers its
// own code, so that the explanations stay true. Codes that other front
// ends raise (slime, suggest, launch, topology, file reads) or that only
// direct library calls reach are listed, with why.
func TestExplainExamplesTrigger(t *testing.T) {
	elsewhere := map[string]string{
		model.CodeFileRead:     "a file that cannot be read, not a config",
		model.CodeSolverBudget: "needs a time budget too small for any example (pipeline tests set one)",
		model.CodeInternal:     "a bug in rlsolve: no config triggers it by design",
		model.NoteSearchPath:   "needs a folder of configs above the example; grammar's composition tests trigger it",
		model.CodePlanDocument: "a plan document read back (plan --diff), not a config; render's reader tests trigger it",
	}
	for _, e := range diag.Codes() {
		if _, skip := elsewhere[e.Code]; skip {
			continue
		}
		if len(e.Code) > 6 && (e.Code[5:7] == "07" || e.Code[5:7] == "08" || e.Code[5:7] == "09" || e.Code == "RLS-E0604") {
			continue // slime, suggest, launch and topology merge test their own examples
		}
		found := false
		ovs := exampleOverrides(t, e.Example)
		profile := ""
		if e.Code == model.CodeMemoryInput { // its example is checked with a memory profile that cannot be used
			profile = filepath.Join(t.TempDir(), "bad.yaml")
			if err := os.WriteFile(profile, []byte("cuda_context: 1\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, mode := range []model.PlacementClass{model.PlacementClass(""), model.ClassModelParallel} {
			o := pipeline.CheckBytes("example.yaml", []byte(e.Example), pipeline.Options{GPUsPerNode: -1, Class: mode, Overrides: ovs, MemProfile: profile})
			for _, d := range o.Diagnostics {
				found = found || d.Code == e.Code
			}
		}
		if !found {
			t.Errorf("%s (%s): its explain example does not trigger it", e.Code, e.Title)
		}
	}
}

// exampleOverrides reads the overrides an example's first line gives, as
// in `# rlsolve check example.yaml cluster.num_nodes=2`.
func exampleOverrides(t *testing.T, example string) grammar.Overrides {
	first, _, _ := strings.Cut(example, "\n")
	args, ok := strings.CutPrefix(first, "# rlsolve check example.yaml ")
	if !ok {
		return grammar.Overrides{}
	}
	ovs, err := grammar.ParseOverrides(strings.Fields(args))
	if err != nil {
		t.Fatalf("example overrides %q: %v", args, err)
	}
	return ovs
}
