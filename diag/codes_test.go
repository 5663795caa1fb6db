package diag

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

// modelCodes reads every "RLS-..." constant from model/codes*.go (codes.go
// and one codes_<topic>.go per feature), so that a code added there without
// an explanation fails this package's tests.
func modelCodes(t *testing.T) map[string]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "model", "codes*.go"))
	codes := map[string]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		collectCodes(f, codes)
	}
	if len(codes) < 50 {
		t.Fatalf("found only %d codes in model/codes*.go", len(codes))
	}
	return codes
}

func collectCodes(f *ast.File, codes map[string]string) {
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, v := range vs.Values {
				lit, ok := v.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				s, err := strconv.Unquote(lit.Value)
				if err == nil && strings.HasPrefix(s, "RLS-") {
					codes[s] = vs.Names[i].Name
				}
			}
		}
	}
}

func TestEveryCodeExplained(t *testing.T) {
	codes := modelCodes(t)
	for code, name := range codes {
		if _, ok := Explain(code); !ok {
			t.Errorf("%s (%s) has no explanation", code, name)
		}
	}
	seen := map[string]bool{}
	for _, e := range explanations {
		if seen[e.Code] {
			t.Errorf("%s explained twice", e.Code)
		}
		seen[e.Code] = true
		if _, ok := codes[e.Code]; !ok {
			t.Errorf("%s is explained but not defined in model/codes.go", e.Code)
		}
	}
}

func TestExplanationsComplete(t *testing.T) {
	all := Codes()
	if len(all) != len(explanations) {
		t.Fatalf("Codes() has %d, registry %d", len(all), len(explanations))
	}
	if !sort.SliceIsSorted(all, func(i, j int) bool { return all[i].Code < all[j].Code }) {
		t.Error("Codes() not sorted")
	}
	for _, e := range all {
		if e.Code == "" || e.Title == "" || e.Text == "" || e.Example == "" {
			t.Errorf("%s: empty field in %+v", e.Code, e)
		}
		if !strings.Contains(e.Example, "cluster:") {
			t.Errorf("%s: example has no cluster: section", e.Code)
		}
		if strings.Contains(e.Example, "\t") {
			t.Errorf("%s: tab in YAML example", e.Code)
		}
		if strings.HasSuffix(e.Title, ".") {
			t.Errorf("%s: title ends with a period", e.Code)
		}
		got, ok := Explain(e.Code)
		if !ok || got != e {
			t.Errorf("Explain(%s) = %+v, %v", e.Code, got, ok)
		}
	}
}

func TestExplainSpelling(t *testing.T) {
	for _, in := range []string{"RLS-E0201", "rls-e0201", "E0201", "e0201", " Rls-E0201 "} {
		e, ok := Explain(in)
		if !ok || e.Code != "RLS-E0201" {
			t.Errorf("Explain(%q) = %q, %v", in, e.Code, ok)
		}
	}
	for _, in := range []string{"", "RLS-", "E9999", "RLS-RLS-E0201", "0201"} {
		if _, ok := Explain(in); ok {
			t.Errorf("Explain(%q) found something", in)
		}
	}
}

// A code raised for more than one cause explains each of them: a user
// reading --explain for a finding must find the case the finding names.
func TestExplanationCoversEveryCase(t *testing.T) {
	for _, tc := range []struct {
		code, cause, phrase string
	}{
		{model.WarnMemoryLogits, "micro-batch at its cap", "tokens/CP × vocab/TP × 4 bytes"},
		{model.WarnMemoryLogits, "unbounded sample", "sample longer than the cap"},
		{model.WarnMemoryLogits, "multi-turn context", "multi-turn trajectory bounded only by the context length"},
		{model.WarnMemoryLogits, "fix for the unbounded case", "Cap every sample's length"},
	} {
		e, ok := Explain(tc.code)
		if !ok {
			t.Fatalf("%s not explained", tc.code)
		}
		if !strings.Contains(e.Text, tc.phrase) {
			t.Errorf("%s (%s): explanation lacks %q", tc.code, tc.cause, tc.phrase)
		}
	}
}
