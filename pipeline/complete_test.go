package pipeline_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/pipeline"
)

// Completion offers a config's components and a component's ranks (the
// nearest name's for a typo), nothing for what does not read or plan.
func TestCompletionLists(t *testing.T) {
	file := filepath.Join("..", "examples", "disaggregated-8node", "train.yaml")
	names := pipeline.ConfigComponents(file)
	if len(names) < 2 {
		t.Fatalf("components %v", names)
	}
	opt := pipeline.Options{GPUsPerNode: -1}
	all := pipeline.WorkerRanks(file, names[0], opt, 1000)
	if len(all) == 0 || all[0] != "0" {
		t.Fatalf("ranks of %s: %v", names[0], all)
	}
	if got := pipeline.WorkerRanks(file, names[0], opt, 1); len(got) != 1 {
		t.Errorf("a limit of 1 gave %v", got)
	}
	typo := names[0][:len(names[0])-1] + "x"
	if got := pipeline.WorkerRanks(file, typo, opt, 1000); strings.Join(got, ",") != strings.Join(all, ",") {
		t.Errorf("the typo %s: %v, want %s's", typo, got, names[0])
	}
	missing := filepath.Join(t.TempDir(), "none.yaml")
	if pipeline.ConfigComponents(missing) != nil || pipeline.WorkerRanks(missing, "actor", opt, 10) != nil {
		t.Error("a missing config offers something")
	}
}
