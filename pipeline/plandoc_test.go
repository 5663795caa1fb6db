package pipeline_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/render"
)

// A plan document reads back to its workers; a bad one is RLS-E0130; a
// config or a missing file is no document.
func TestReadPlanRecords(t *testing.T) {
	config := filepath.Join("..", "examples", "single-node", "train.yaml")
	o := pipeline.CheckFile(config, pipeline.Options{GPUsPerNode: -1})
	var b bytes.Buffer
	if err := render.WriteJSON(&b, o.RenderInput(), true); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "plan.json"), filepath.Join(dir, "bad.json")
	if err := os.WriteFile(good, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(`{"format_version": "9"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, doc, failed, err := pipeline.ReadPlanRecords(good, nil)
	if !doc || failed != nil || err != nil || recs == nil || len(recs.Components) == 0 {
		t.Errorf("plan.json: %v %v %v %v", recs, doc, failed, err)
	}
	_, doc, failed, err = pipeline.ReadPlanRecords(bad, nil)
	if !doc || err != nil || failed == nil || failed.Diagnostics[0].Code != "RLS-E0130" || failed.File != bad {
		t.Errorf("bad.json: %v %+v %v", doc, failed, err)
	}
	if _, doc, failed, err = pipeline.ReadPlanRecords(config, nil); doc || failed != nil || err != nil {
		t.Errorf("a config: %v %v %v", doc, failed, err)
	}
	if _, doc, _, err = pipeline.ReadPlanRecords(filepath.Join(dir, "none.json"), nil); doc || err == nil {
		t.Errorf("a missing file: %v %v", doc, err)
	}
	if _, _, failed, _ = pipeline.ReadPlanRecords("-", bytes.NewReader([]byte("{"))); failed == nil || failed.File != "<stdin>" {
		t.Errorf("bad stdin: %+v", failed)
	}
}
