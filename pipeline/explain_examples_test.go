package pipeline_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

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
		model.CodeFileRead:      "a file that cannot be read, not a config",
		model.CodeSolverBudget:  "needs a time budget too small for any example (pipeline tests set one)",
		model.CodeInternal:      "a bug in rlsolve: no config triggers it by design",
		model.NoteSearchPath:    "needs a folder of configs above the example; grammar's composition tests trigger it",
		model.CodePlanDocument:  "a plan document read back (plan --diff), not a config; render's reader tests trigger it",
		model.NoteSolveBound:    "needs a search that time cuts short, which no example can promise; solver's tests trigger it with a tiny step budget",
		model.WarnRayGPUsNVML:   "raised by topology --ray's probe of a live cluster; topology's live-import tests trigger it",
		model.CodeSolvedRefused: "reached only when solve's model of a class lacks a rule check has; no known input does (the solve properties and FuzzSolve look for one)",
	}
	for _, e := range diag.Codes() {
		if _, skip := elsewhere[e.Code]; skip {
			continue
		}
		if len(e.Code) > 6 && (e.Code[5:7] == "07" || e.Code[5:7] == "08" || e.Code[5:7] == "09" || e.Code == "RLS-E0604") {
			continue // slime, suggest, launch and topology merge test their own examples
		}
		found := false
		if solveFlags, ok := solveExample(e.Example); ok {
			o := pipeline.Solve("example.yaml", []byte(e.Example), solveOptions(t, solveFlags))
			for _, d := range o.Diagnostics {
				found = found || d.Code == e.Code
			}
			if !found {
				t.Errorf("%s (%s): its explain example does not trigger it in solve", e.Code, e.Title)
			}
			continue
		}
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

// solveExample reads the flags of an example solve runs, as in
// `# rlsolve solve example.yaml --gpus-per-node 8`.
func solveExample(example string) ([]string, bool) {
	first, _, _ := strings.Cut(example, "\n")
	args, ok := strings.CutPrefix(first, "# rlsolve solve example.yaml")
	return strings.Fields(args), ok
}

// solveOptions turns an example's flags (--gpus-per-node N,
// --solver-budget D, --without-node N) into solve's options.
func solveOptions(t *testing.T, flags []string) pipeline.SolveOptions {
	opt := pipeline.SolveOptions{Options: pipeline.Options{GPUsPerNode: -1}}
	for i := 0; i+1 < len(flags); i += 2 {
		switch flags[i] {
		case "--gpus-per-node":
			n, err := strconv.Atoi(flags[i+1])
			if err != nil {
				t.Fatalf("example flag %s %s: %v", flags[i], flags[i+1], err)
			}
			opt.GPUsPerNode = n
		case "--solver-budget":
			d, err := time.ParseDuration(flags[i+1])
			if err != nil {
				t.Fatalf("example flag %s %s: %v", flags[i], flags[i+1], err)
			}
			opt.SolverBudget = d
		case "--without-node":
			n, err := strconv.Atoi(flags[i+1])
			if err != nil {
				t.Fatalf("example flag %s %s: %v", flags[i], flags[i+1], err)
			}
			opt.Without = append(opt.Without, n)
		default:
			t.Fatalf("example flag %s: only --gpus-per-node, --solver-budget and --without-node are read", flags[i])
		}
	}
	return opt
}
