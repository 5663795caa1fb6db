package pipeline_test

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/internal/textedit"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
)

// fixInput is one input whose diagnostics' fixes are applied and checked
// again: an RLinf config (with its inventory) or a slime flag string.
type fixInput struct {
	name  string // what spans call the text
	text  []byte
	inv   *model.Inventory
	slime bool
	// class and ovs are the --mode and the overrides it is checked with.
	class model.PlacementClass
	ovs   grammar.Overrides
}

func (in fixInput) check(text []byte) model.Diagnostics {
	opt := pipeline.Options{GPUsPerNode: -1, Inventory: in.inv, Class: in.class, Overrides: in.ovs}
	switch {
	case in.slime:
		return pipeline.CheckSlime(string(text), "", opt).Diagnostics
	case grammar.IsSlimeDoc(text):
		return pipeline.CheckSlimeBytes("", in.name, text, opt).Diagnostics
	}
	return pipeline.CheckBytes(in.name, text, opt).Diagnostics
}

// fixInputs gathers the golden configs, the shipped examples (FuzzCheck's
// seeds), the explain examples, and the fuzz corpora of the config and
// slime parsers.
func fixInputs(t *testing.T) []fixInput {
	var ins []fixInput
	dirs, _ := filepath.Glob(filepath.Join("testdata", "golden", "*"))
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, "config.yaml"))
		if err != nil {
			continue
		}
		in := fixInput{name: "config.yaml", text: data}
		if inv, err := os.ReadFile(filepath.Join(dir, "inventory.yaml")); err == nil {
			in.inv, _ = grammar.LoadInventory("inventory.yaml", inv, grammar.DefaultLimits)
		}
		ins = append(ins, in)
	}
	examples, _ := filepath.Glob(filepath.Join("..", "examples", "*", "train.yaml"))
	for _, f := range examples {
		if data, err := os.ReadFile(f); err == nil {
			ins = append(ins, fixInput{name: f, text: data})
		}
	}
	for _, e := range diag.Codes() {
		ovs := exampleOverrides(t, e.Example)
		for _, class := range []model.PlacementClass{"", model.ClassModelParallel} {
			ins = append(ins, fixInput{name: "example.yaml", text: []byte(e.Example), class: class, ovs: ovs})
		}
	}
	for _, corpus := range []string{"FuzzCheck", "FuzzLoadSuggest"} {
		for _, v := range fuzzCorpus(t, filepath.Join("..", "proptest", "testdata", "fuzz", corpus)) {
			ins = append(ins, fixInput{name: "fuzz.yaml", text: []byte(v)})
		}
	}
	for _, v := range fuzzCorpus(t, filepath.Join("..", "grammar", "testdata", "fuzz", "FuzzParseSlimeFlags")) {
		ins = append(ins, fixInput{name: grammar.SlimeSource, text: []byte(v), slime: true})
	}
	return ins
}

// fuzzCorpus reads the first value of each file of a Go fuzz corpus.
func fuzzCorpus(t *testing.T, dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	var out []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if v, ok := corpusValue(sc.Text()); ok {
				out = append(out, v)
				break
			}
		}
	}
	return out
}

// corpusValue reads a string or []byte line of a Go fuzz corpus file.
func corpusValue(line string) (string, bool) {
	for _, p := range []string{"string(", "[]byte("} {
		if lit, ok := strings.CutPrefix(line, p); ok {
			s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
			return s, err == nil
		}
	}
	return "", false
}

// apply performs a fix's edits on text; false when an edit points
// elsewhere or does not apply.
func apply(text []byte, name string, f model.Fix) ([]byte, bool) {
	for _, e := range f.Edits {
		if e.Span.File != name {
			return nil, false
		}
	}
	out, err := textedit.Apply(text, f.Edits)
	return out, err == nil
}

// movedColumn is where a column on the primary's line lands after the
// edits on that line before it.
func movedColumn(p model.Span, f model.Fix) int {
	col := p.Col
	for _, e := range f.Edits {
		if e.Span.Line == p.Line && e.Span.EndLine == p.Line && e.Span.EndCol <= p.Col {
			col += len(e.NewText) - (e.Span.EndCol - e.Span.Col)
		}
	}
	return col
}

// knownFailing are fixes of other front ends that do not pass yet, with
// why; the test logs them instead of failing.
var knownFailing = map[string]string{
	model.CodeSlimeMissing: "slime: the fix appends the flag after a pasted command's `--`, where flags are dropped (issue 12.6)",
}

// TestFixesPassCheck applies every fix that a check of the inputs
// suggests and checks the result again: the problem the fix was for (its
// code, at its place) must be gone.
func TestFixesPassCheck(t *testing.T) {
	applied := 0
	for _, in := range fixInputs(t) {
		for _, d := range in.check(in.text) {
			for _, f := range d.Help {
				if len(f.Edits) == 0 {
					continue
				}
				text, ok := apply(in.text, in.name, f)
				if !ok {
					continue
				}
				applied++
				col := movedColumn(d.Primary, f)
				for _, again := range in.check(text) {
					at := again.Primary.File == d.Primary.File && again.Primary.Line == d.Primary.Line && again.Primary.Col == col
					switch {
					case at && again.Code == d.Code && knownFailing[d.Code] != "":
						t.Logf("known: the fix %q for %s at %s leaves it (%s)", f.Message, d.Code, d.Primary, knownFailing[d.Code])
					case at && again.Code == d.Code:
						t.Errorf("%s: the fix %q for %s at %s leaves it: %s\n--- fixed input\n%s", in.name, f.Message, d.Code, d.Primary, again.Summary, text)
					case at && again.Severity == model.SeverityError:
						t.Logf("the fix %q for %s at %s leaves another error there: %s %s", f.Message, d.Code, d.Primary, again.Code, again.Summary)
					}
				}
			}
		}
	}
	if applied < 20 {
		t.Errorf("only %d fixes applied: the inputs lost their fixes", applied)
	}
	t.Logf("%d fixes applied and checked again", applied)
}
