package pipeline_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/internal/textedit"
	"github.com/rlsolve/rlsolve/pipeline"
)

// unquoted is a config whose one fix quotes the actor's placement: a
// second fix at the first one's positions in the fixed text corrupts it.
const unquoted = "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: 1:0\n    rollout: 2-7\n"

// beforeWrite runs f once, at the next write's lock, and not for writes
// f makes itself.
func beforeWrite(t *testing.T, f func(target string)) {
	t.Cleanup(func() { textedit.TestHookBeforeLock = nil })
	textedit.TestHookBeforeLock = func(target string) {
		textedit.TestHookBeforeLock = nil
		f(target)
	}
}

// TestFixSecondWriter: a config saved by an editor after check read it
// is left as the editor saved it, and FixFile says it changed.
func TestFixSecondWriter(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.yaml")
	must(t, os.WriteFile(file, []byte(unquoted), 0o644))
	saved := unquoted + "# saved by an editor\n"
	beforeWrite(t, func(target string) { must(t, os.WriteFile(target, []byte(saved), 0o644)) })
	rep, err := pipeline.FixFile(file, "", pipeline.Options{GPUsPerNode: 8}, pipeline.FixOptions{})
	var changed *textedit.ChangedError
	if !errors.As(err, &changed) || len(rep.Applied) != 0 {
		t.Fatalf("FixFile: %v, applied %v; want a ChangedError and nothing applied", err, rep.Applied)
	}
	if got, _ := os.ReadFile(file); string(got) != saved {
		t.Errorf("the editor's save was lost: %q", got)
	}
}

// TestFixTwiceAtOnce: a second `check --fix` that fixes the file between
// the first one's read and write: the first refuses, the file is fixed
// once (never `"1:0"0"`).
func TestFixTwiceAtOnce(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.yaml")
	must(t, os.WriteFile(file, []byte(unquoted), 0o644))
	opt := pipeline.Options{GPUsPerNode: 8}
	var second error
	beforeWrite(t, func(string) { _, second = pipeline.FixFile(file, "", opt, pipeline.FixOptions{}) })
	_, first := pipeline.FixFile(file, "", opt, pipeline.FixOptions{})
	var changed *textedit.ChangedError
	if second != nil || !errors.As(first, &changed) {
		t.Fatalf("second run: %v, first: %v; want the second to fix and the first to refuse", second, first)
	}
	got, _ := os.ReadFile(file)
	if want := strings.Replace(unquoted, "1:0", `"1:0"`, 1); string(got) != want {
		t.Errorf("file %q, want %q", got, want)
	}
}

// sharedFixture is the composed-defaults example with the actor on one
// GPU (the fix lowers TP in the model group's file) and, beside it, two
// collocated configs that compose the same model file: other.yaml, and
// more/deep.yaml, which reaches it through hydra.searchpath. Their memory
// estimate only holds with TP 2; with deny, they deny that warning.
func sharedFixture(t *testing.T, deny bool) (dir, file, modelFile string) {
	dir = copyDir(t, filepath.Join("..", "examples", "composed-defaults"))
	file = filepath.Join(dir, "train.yaml")
	src, err := os.ReadFile(file)
	must(t, err)
	one := strings.Replace(string(src), "    actor,rollout,reward: all\n", "    actor: 0\n    rollout,reward: 1-15\n", 1)
	must(t, os.WriteFile(file, []byte(one), 0o644))
	collocated := string(src)
	if deny {
		collocated = "# rlsolve: deny RLS-W1001 -- a collocated run must fit its memory\n" + collocated
	}
	must(t, os.WriteFile(filepath.Join(dir, "other.yaml"), []byte(collocated), 0o644))
	must(t, os.Mkdir(filepath.Join(dir, "more"), 0o755))
	deep := strings.Replace(collocated, "hydra:\n", "hydra:\n  searchpath:\n    - file://"+filepath.ToSlash(dir)+"\n", 1)
	must(t, os.WriteFile(filepath.Join(dir, "more", "deep.yaml"), []byte(deep), 0o644))
	return dir, file, filepath.Join(dir, "model", "qwen2.5-1.5b.yaml")
}

// TestFixSharedRefused: with --fix-shared, a fix to a group file that
// other configs composing it would newly fail is refused, naming them;
// nothing is written.
func TestFixSharedRefused(t *testing.T) {
	dir, file, modelFile := sharedFixture(t, true)
	before, _ := os.ReadFile(modelFile)
	rep, err := pipeline.FixFile(file, "", options(t, dir, "inventory.yaml"), pipeline.FixOptions{Shared: true})
	var shared *pipeline.SharedError
	if !errors.As(err, &shared) || len(rep.Files) != 0 {
		t.Fatalf("FixFile: %v, wrote %v; want a SharedError and nothing written", err, rep.Files)
	}
	if len(shared.Configs) != 2 || !strings.HasPrefix(shared.Configs[0], filepath.Join(dir, "more", "deep.yaml")+" (RLS-W1001") ||
		!strings.HasPrefix(shared.Configs[1], filepath.Join(dir, "other.yaml")+" (RLS-W1001") {
		t.Errorf("configs %q, want more/deep.yaml and other.yaml with their new error", shared.Configs)
	}
	if now, _ := os.ReadFile(modelFile); string(now) != string(before) {
		t.Errorf("%s written", modelFile)
	}
}

// TestFixSharedChecked: when the configs that compose the group file
// gain only a warning, it is written with --fix-shared.
func TestFixSharedChecked(t *testing.T) {
	dir, file, modelFile := sharedFixture(t, false)
	rep, err := pipeline.FixFile(file, "", options(t, dir, "inventory.yaml"), pipeline.FixOptions{Shared: true})
	if err != nil || len(rep.Files) != 1 || rep.Files[0] != modelFile || rep.Final.Failed() {
		t.Fatalf("FixFile: %v, wrote %v", err, rep.Files)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
