package pipeline_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
)

// fixCase is an invalid config to round-trip through FixFile: a folder
// (copied to a temporary one) and its config and inventory files.
type fixCase struct{ dir, config, inventory string }

func fixCases(t *testing.T) []fixCase {
	var cs []fixCase
	golden, _ := filepath.Glob(filepath.Join("testdata", "golden", "*"))
	for _, d := range golden {
		cs = append(cs, fixCase{d, "config.yaml", "inventory.yaml"})
	}
	examples, _ := filepath.Glob(filepath.Join("..", "examples", "invalid-*"))
	for _, d := range examples {
		if _, err := os.Stat(filepath.Join(d, "train.yaml")); err == nil {
			cs = append(cs, fixCase{d, "train.yaml", "inventory.yaml"})
		}
	}
	if len(cs) < 20 {
		t.Fatalf("only %d invalid inputs", len(cs))
	}
	return cs
}

// copyDir copies a folder's files (and its subfolders') to a temporary
// folder and returns it.
func copyDir(t *testing.T, src string) string {
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o777)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o666)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func options(t *testing.T, dir, inventory string) pipeline.Options {
	opt := pipeline.Options{GPUsPerNode: -1}
	if inventory == "" {
		return opt
	}
	if _, err := os.Stat(filepath.Join(dir, inventory)); err == nil {
		inv, bad := pipeline.LoadInventory(filepath.Join(dir, inventory), grammar.DefaultLimits)
		if bad != nil {
			t.Fatalf("%s: %v", inventory, bad.Diagnostics)
		}
		opt.Inventory = inv
	}
	return opt
}

// TestFixRoundTrip: `check --fix` turns every golden invalid config and
// invalid example whose every error has a fix into a valid file.
// (TestFixCoverage says why the codes of the others have no fix.)
func TestFixRoundTrip(t *testing.T) {
	fixed := 0
	for _, c := range fixCases(t) {
		t.Run(filepath.Base(c.dir), func(t *testing.T) {
			dir := copyDir(t, c.dir)
			opt := options(t, dir, c.inventory)
			file := filepath.Join(dir, c.config)
			before := pipeline.CheckFile(file, opt)
			if !before.Failed() {
				t.Fatalf("%s is valid", c.dir)
			}
			for _, d := range before.Diagnostics {
				if d.Severity == model.SeverityError && !hasEdits(d) {
					t.Skipf("%s has no fix here (%s)", d.Code, d.Summary)
				}
			}
			rep, err := pipeline.FixFile(file, "", opt, pipeline.FixOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Final.Failed() {
				t.Fatalf("still invalid after %d fixes: %v", len(rep.Applied), rep.Final.Diagnostics)
			}
			if len(rep.Files) != 1 || rep.Files[0] != file {
				t.Errorf("wrote %v, want only %s", rep.Files, file)
			}
			fixed++
		})
	}
	t.Logf("%d invalid inputs fixed", fixed)
	if fixed < 15 {
		t.Errorf("only %d invalid inputs fixed", fixed)
	}
}

func hasEdits(d model.Diagnostic) bool {
	for _, f := range d.Help {
		if len(f.Edits) > 0 {
			return true
		}
	}
	return false
}

// TestFixComposed: with a config composed from its defaults list, each
// edit goes to the file its span names, with --fix-shared: here the TP
// size in the model group's file, the rest byte for byte as it was.
// Without it, the group file is left as it is and the report says why.
func TestFixComposed(t *testing.T) {
	dir := copyDir(t, filepath.Join("..", "examples", "composed-defaults"))
	file := filepath.Join(dir, "train.yaml")
	src, _ := os.ReadFile(file)
	// One GPU for the actor, whose TP size 2 comes from model/qwen2.5-1.5b.yaml.
	edited := strings.Replace(string(src), "    actor,rollout,reward: all\n", "    actor: 0\n    rollout,reward: 1-15\n", 1)
	if edited == string(src) {
		t.Fatal("the example's placement changed; update the test")
	}
	if err := os.WriteFile(file, []byte(edited), 0o666); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "model", "qwen2.5-1.5b.yaml")
	oldModel, _ := os.ReadFile(model)
	opt := options(t, dir, "inventory.yaml")
	rep, err := pipeline.FixFile(file, "", opt, pipeline.FixOptions{})
	if err != nil || len(rep.Files) != 0 || !rep.Final.Failed() {
		t.Fatalf("without --fix-shared: wrote %v, %v", rep.Files, err)
	}
	if len(rep.Skipped) != 1 || !strings.Contains(rep.Skipped[0], model+", a file the defaults list composes") || !strings.Contains(rep.Skipped[0], "--fix-shared") {
		t.Errorf("skipped %q", rep.Skipped)
	}
	if now, _ := os.ReadFile(model); string(now) != string(oldModel) {
		t.Fatalf("%s written without --fix-shared", model)
	}
	rep, err = pipeline.FixFile(file, "", opt, pipeline.FixOptions{Shared: true})
	if err != nil || rep.Final.Failed() {
		t.Fatalf("FixFile: %v, %v", err, rep.Final.Diagnostics)
	}
	if len(rep.Files) != 1 || rep.Files[0] != model {
		t.Fatalf("wrote %v, want %s", rep.Files, model)
	}
	newModel, _ := os.ReadFile(model)
	want := strings.Replace(string(oldModel), "tensor_model_parallel_size: 2", "tensor_model_parallel_size: 1", 1)
	if string(newModel) != want {
		t.Errorf("model file:\n%s\nwant:\n%s", newModel, want)
	}
	if now, _ := os.ReadFile(file); string(now) != edited {
		t.Errorf("train.yaml changed")
	}
}
