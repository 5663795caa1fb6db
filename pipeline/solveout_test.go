package pipeline_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/internal/textedit"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/solver"
)

func TestParseObjective(t *testing.T) {
	for _, tc := range []struct {
		name     string
		previous bool
		obj      solver.Objective
		cost, ok bool
		err      bool
	}{
		{"", false, solver.ObjectivePack, false, true, false},
		{"", true, solver.ObjectiveKeep, false, true, false},
		{"spread", false, solver.ObjectiveSpread, false, true, false},
		{"cost", false, solver.ObjectivePack, true, true, false},
		{"keep", true, solver.ObjectiveKeep, false, true, false},
		{"keep", false, "", false, true, true},
		{"fast", false, "", false, false, false},
	} {
		obj, cost, ok, err := pipeline.ParseObjective(tc.name, tc.previous)
		if obj != tc.obj || cost != tc.cost || ok != tc.ok || (err != nil) != tc.err {
			t.Errorf("%q (previous %v): %q %v %v %v", tc.name, tc.previous, obj, cost, ok, err)
		}
	}
	if names := strings.Join(pipeline.ObjectiveNames(), " "); !strings.HasSuffix(names, " cost") || !strings.Contains(names, "keep") {
		t.Errorf("objective names %q", names)
	}
}

// WriteBack writes what WriteResult prints as yaml into the file, and
// says where each component was placed.
func TestSolvedWriteBack(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "solve", "block.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "train.yaml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s := pipeline.SolveFile(file, pipeline.SolveOptions{Options: pipeline.Options{GPUsPerNode: 8}})
	if s.Text == nil {
		t.Fatalf("nothing placed: %v", s.Diagnostics)
	}
	var printed, log bytes.Buffer
	if err := s.WriteResult(&printed, "yaml"); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteBack(textedit.WriteOptions{}, &log); err != nil {
		t.Fatal(err)
	}
	written, _ := os.ReadFile(file)
	if !bytes.Equal(written, printed.Bytes()) || !bytes.Equal(written, s.Text) {
		t.Errorf("wrote\n%s\nprinted\n%s", written, printed.Bytes())
	}
	if n := strings.Count(log.String(), " placed at "); n != len(s.Placement.Placed) || n == 0 {
		t.Errorf("log %q for %d placements", log.String(), len(s.Placement.Placed))
	}
	if !strings.HasPrefix(s.StatsLine(), "solve: ") {
		t.Errorf("stats %q", s.StatsLine())
	}
}

// Placements that hold only with the overrides are not written back.
func TestSolvedStandaloneError(t *testing.T) {
	s := &pipeline.Solved{Outcome: &pipeline.Outcome{File: "train.yaml"}}
	if err := s.StandaloneError(); err != nil {
		t.Errorf("no standalone check: %v", err)
	}
	s.Standalone = &pipeline.Outcome{Diagnostics: model.Diagnostics{
		{Severity: model.SeverityWarning, Code: "RLS-W0001", Summary: "w"},
		{Severity: model.SeverityError, Code: "RLS-E0101", Summary: "too few GPUs"}}}
	s.NeedsOverrides = []string{"cluster.num_nodes=2"}
	err := s.StandaloneError()
	if err == nil || !strings.Contains(err.Error(), "overrides cluster.num_nodes=2, which --write does not put into train.yaml") ||
		!strings.Contains(err.Error(), "(RLS-E0101: too few GPUs)") {
		t.Errorf("error %v", err)
	}
	if err := s.WriteBack(textedit.WriteOptions{}, nil); err == nil || err.Error() != s.StandaloneError().Error() {
		t.Errorf("WriteBack wrote a file that needs the overrides: %v", err)
	}
}
