package pipeline_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/pipeline"
)

// A folder stands for its configs, said once on the log; a folder
// without any is an error.
func TestExpandDirs(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"a.yaml":   "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: 0-7\n",
		"inv.yaml": "inventory:\n  nodes:\n    - ranks: 0\n      accelerators: {count: 8}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var log bytes.Buffer
	got, err := pipeline.ExpandDirs([]string{"x.yaml", dir}, &log)
	if err != nil || len(got) != 2 || got[0] != "x.yaml" || got[1] != filepath.Join(dir, "a.yaml") {
		t.Fatalf("ExpandDirs: %v %v", got, err)
	}
	if !strings.Contains(log.String(), "checking 1 config(s)") || !strings.Contains(log.String(), "1 inventory file(s) left out: "+filepath.Join(dir, "inv.yaml")) {
		t.Errorf("log %q", log.String())
	}
	if _, err := pipeline.ExpandDirs([]string{t.TempDir()}, nil); err == nil || !strings.Contains(err.Error(), "holds no *.yaml") {
		t.Errorf("an empty folder: %v", err)
	}
}

func TestStdinOnce(t *testing.T) {
	for _, tc := range []struct {
		files []string
		slime string
		ok    bool
	}{
		{[]string{"-"}, "", true}, {nil, "@-", true}, {[]string{"a.yaml"}, "-", true},
		{[]string{"-", "-"}, "", false}, {[]string{"-"}, "@-", false},
	} {
		if err := pipeline.StdinOnce(tc.files, tc.slime); (err == nil) != tc.ok {
			t.Errorf("%v %q: %v", tc.files, tc.slime, err)
		}
	}
}

// CheckAll checks each file and keeps what it read for code frames;
// WriteCheck writes the outcomes in each format.
func TestCheckAllWriteCheck(t *testing.T) {
	good := filepath.Join("..", "examples", "single-node", "train.yaml")
	bad := filepath.Join("..", "examples", "invalid-overlap", "train.yaml")
	src := diag.MapSources(map[string][]byte{})
	outs := pipeline.CheckAll([]string{good, bad}, "", options(t, filepath.Dir(bad), "inventory.yaml"), src)
	if len(outs) != 2 || outs[0].Failed() || !outs[1].Failed() {
		t.Fatalf("outcomes %v", outs)
	}
	if len(src.Files[bad]) == 0 {
		t.Error("the sources lack the invalid config")
	}
	for format, want := range map[string]string{
		"text":  "error[",
		"short": "2 files: 1 error",
		"json":  `"valid": false`,
		"sarif": `"ruleId"`,
	} {
		var stdout, stderr bytes.Buffer
		err := pipeline.WriteCheck(outs, src, pipeline.CheckOutput{Format: format, Stdout: &stdout, Stderr: &stderr, ToolVersion: "v0"})
		if got := stdout.String() + stderr.String(); err != nil || !strings.Contains(got, want) {
			t.Errorf("%s: %v, want %q in\n%s", format, err, want, got)
		}
	}
}

// FixAll fixes each file and says what it fixed; with Diff it writes
// nothing and prints the diff.
func TestFixAll(t *testing.T) {
	var fixable string
	for _, c := range fixCases(t) {
		if strings.HasPrefix(filepath.Base(c.dir), "invalid-overlap") {
			fixable = c.dir
		}
	}
	if fixable == "" {
		t.Skip("no invalid-overlap example to fix")
	}
	dir := copyDir(t, fixable)
	file := filepath.Join(dir, "train.yaml")
	before, _ := os.ReadFile(file)
	opt := options(t, dir, "inventory.yaml")
	var out, log bytes.Buffer
	outs, err := pipeline.FixAll([]string{file}, opt, pipeline.FixOptions{Diff: true}, &out, &log)
	if err != nil || len(outs) != 1 || !strings.HasPrefix(out.String(), "--- ") || !strings.Contains(log.String(), "would fix ") {
		t.Fatalf("--diff: %v, out %q, log %q", err, out.String(), log.String())
	}
	if now, _ := os.ReadFile(file); !bytes.Equal(now, before) {
		t.Error("--diff wrote the file")
	}
	out.Reset()
	log.Reset()
	outs, err = pipeline.FixAll([]string{file}, opt, pipeline.FixOptions{}, &out, &log)
	if err != nil || outs[0].Failed() || out.Len() != 0 || !strings.Contains(log.String(), "fixed ") {
		t.Errorf("fix: %v, out %q, log %q, %v", err, out.String(), log.String(), outs[0].Diagnostics)
	}
}

// --slime's text is read once; a file that cannot be read is an I/O
// failure (exit 2) located at its name.
func TestReadSlimeCommandOnce(t *testing.T) {
	text, _, bad := pipeline.ReadSlimeCommand("--actor-num-nodes 1", nil)
	if bad != nil || text != "--actor-num-nodes 1" {
		t.Errorf("flags: %q %v", text, bad)
	}
	text, _, bad = pipeline.ReadSlimeCommand("@-", strings.NewReader("--colocate"))
	if bad != nil || !strings.Contains(text, "--colocate") {
		t.Errorf("@-: %q %v", text, bad)
	}
	missing := filepath.Join(t.TempDir(), "none.sh")
	if _, _, bad := pipeline.ReadSlimeCommand("@"+missing, nil); bad == nil || !bad.IOError || !bad.Failed() {
		t.Errorf("a missing file: %+v", bad)
	}
}

// plan counts a valid config's diagnostics in one line unless asked for
// them in full, and shows nothing when quiet.
func TestWritePlanDiagnostics(t *testing.T) {
	file := filepath.Join("..", "examples", "single-node", "train.yaml")
	o := pipeline.CheckFile(file, pipeline.Options{GPUsPerNode: -1})
	if o.Failed() || len(o.Diagnostics) == 0 {
		t.Fatalf("want a valid config with notes: %v", o.Diagnostics)
	}
	src := diag.MapSources(map[string][]byte{})
	var full, counted, quiet bytes.Buffer
	pipeline.WritePlanDiagnostics(&full, o, src, pipeline.PlanDiagnostics{Full: true})
	pipeline.WritePlanDiagnostics(&counted, o, src, pipeline.PlanDiagnostics{})
	pipeline.WritePlanDiagnostics(&quiet, o, src, pipeline.PlanDiagnostics{Quiet: true})
	if !strings.Contains(full.String(), "note[") || quiet.Len() != 0 {
		t.Errorf("full %q, quiet %q", full.String(), quiet.String())
	}
	if !strings.HasSuffix(counted.String(), "; `rlsolve check` shows them (or plan --diagnostics)\n") || strings.Contains(counted.String(), "note[") {
		t.Errorf("counted %q", counted.String())
	}
}
