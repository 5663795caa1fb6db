package pipeline_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// goldenName is a case folder's name: the code its first error must have,
// then a description, as in e0306-env-var-twice.
var goldenName = regexp.MustCompile(`^e(\d{4})-[a-z0-9-]+$`)

// TestGolden runs the whole check on each folder of testdata/golden and
// compares the text rendering (want.txt) and the JSON envelope (want.json)
// with what is stored. A folder holds config.yaml, optionally inventory.yaml
// (the --inventory file) and optionally codes.txt, the codes of every error
// expected, in order, one per line. Files are named relative to the folder,
// so the goldens do not depend on where the repository lives. Run with
// -update to rewrite them, then read the diff.
func TestGolden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "golden", "*"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, dir := range dirs {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		n++
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) { runGolden(t, dir, name) })
	}
	if n == 0 {
		t.Fatal("no golden cases under testdata/golden")
	}
}

func runGolden(t *testing.T, dir, name string) {
	m := goldenName.FindStringSubmatch(name)
	if m == nil {
		t.Fatalf("folder name %q does not start with the expected code, as in e0306-env-var-twice", name)
	}
	wantCode := "RLS-E" + m[1]

	const cfgFile, invFile = "config.yaml", "inventory.yaml"
	data, err := os.ReadFile(filepath.Join(dir, cfgFile))
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string][]byte{cfgFile: data}
	opt := pipeline.Options{GPUsPerNode: -1, Class: model.PlacementClass("")}
	if invData, err := os.ReadFile(filepath.Join(dir, invFile)); err == nil {
		inv, ds := grammar.LoadInventory(invFile, invData, grammar.DefaultLimits)
		if inv == nil || ds.HasErrors() {
			var b bytes.Buffer
			diag.Text(&b, ds, diag.MapSources(map[string][]byte{invFile: invData}), false)
			t.Fatalf("%s does not load:\n%s", invFile, b.String())
		}
		opt.Inventory = inv
		sources[invFile] = invData
	} else if !os.IsNotExist(err) {
		t.Fatal(err)
	}

	o := pipeline.CheckBytes(cfgFile, data, opt)
	ds := o.Diagnostics

	// The case must still mean what its name says.
	var errs []string
	for _, d := range ds {
		if d.Severity == model.SeverityError {
			errs = append(errs, d.Code)
		}
	}
	if len(errs) == 0 {
		t.Fatalf("no error diagnostics; want %s first", wantCode)
	}
	if errs[0] != wantCode {
		t.Errorf("first error is %s, want %s (all errors: %v)", errs[0], wantCode, errs)
	}
	if want, err := os.ReadFile(filepath.Join(dir, "codes.txt")); err == nil {
		if got, w := strings.Join(errs, "\n"), strings.TrimSpace(string(want)); got != w {
			t.Errorf("error codes:\n%s\nwant (codes.txt):\n%s", got, w)
		}
	} else if !os.IsNotExist(err) {
		t.Fatal(err)
	}
	// Each problem is reported once.
	seen := map[string]bool{}
	for _, d := range ds {
		k := d.Code + "@" + d.Primary.File + ":" + strconv.Itoa(d.Primary.Line) + ":" + strconv.Itoa(d.Primary.Col) + " " + d.Summary
		if seen[k] {
			t.Errorf("reported twice: %s", k)
		}
		seen[k] = true
	}

	var text bytes.Buffer
	diag.Text(&text, ds, diag.MapSources(sources), false)
	js, err := json.MarshalIndent(diag.CheckEnvelope(!o.Failed(), ds), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	js = append(js, '\n')

	compareGolden(t, filepath.Join(dir, "want.txt"), text.Bytes())
	compareGolden(t, filepath.Join(dir, "want.json"), js)
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./pipeline -run TestGolden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (run with -update and read the diff)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
