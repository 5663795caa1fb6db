package diag

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// A diagnostic code is raised from one package: a rule is written once, in
// rules/, and every other problem is found where its input is read. This
// test reads the non-test Go source of the whole module and lists, per
// code, the packages that emit it.

// emission is one place that emits a code, or (listed) names it in a
// rule's list of the codes it raises.
type emission struct {
	code, pkg, at string
	listed        bool
}

func TestOneEmitterPerCode(t *testing.T) {
	names := map[string]bool{}
	for _, name := range modelCodes(t) {
		names[name] = true
	}
	ems := moduleEmissions(t, "..", names)
	byCode := map[string]map[string][]string{}
	for _, e := range ems {
		if e.listed {
			continue
		}
		if byCode[e.code] == nil {
			byCode[e.code] = map[string][]string{}
		}
		byCode[e.code][e.pkg] = append(byCode[e.code][e.pkg], e.at)
	}
	// The scan must see the module: the grammar's rank errors, the YAML
	// reader's wrong types, the rules' violations and the solver's codes.
	for code, pkg := range map[string]string{"CodeRankSyntax": "grammar", "CodeWrongType": "internal/yamlpos", "CodeActorParallel": "rules", "CodeUnplaceable": "solver"} {
		if _, ok := byCode[code][pkg]; !ok {
			t.Fatalf("the scan found no emission of %s in %s: it does not read the module", code, pkg)
		}
	}
	for code, pkgs := range byCode {
		got := keys(pkgs)
		if len(got) > 1 {
			var where []string
			for _, p := range got {
				where = append(where, p+" ("+strings.Join(pkgs[p], ", ")+")")
			}
			t.Errorf("%s is emitted from %d packages: %s", code, len(got), strings.Join(where, "; "))
		}
	}
}

// TestStrategiesEmitNoRuleCode: strategies expand what the solver
// accepted; a rule's code raised there would be a rule written twice.
func TestStrategiesEmitNoRuleCode(t *testing.T) {
	names := map[string]bool{}
	for _, name := range modelCodes(t) {
		names[name] = true
	}
	ems := moduleEmissions(t, "..", names)
	// A rule code is one that rules/ emits or lists as raised (the
	// memory rule raises the codes memory/ computes).
	ruleCodes := map[string]bool{}
	for _, e := range ems {
		if e.pkg == "rules" {
			ruleCodes[e.code] = true
		}
	}
	if len(ruleCodes) < 30 {
		t.Fatalf("found only %d rule codes in rules/", len(ruleCodes))
	}
	for _, e := range ems {
		if !e.listed && (e.pkg == "strategies" || strings.HasPrefix(e.pkg, "strategies/")) && ruleCodes[e.code] {
			t.Errorf("strategies emits the rule code %s at %s", e.code, e.at)
		}
	}
}

func keys(m map[string][]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// moduleEmissions reads every non-test Go file under root (testdata and
// hidden directories aside) and returns the code emissions in them.
func moduleEmissions(t *testing.T, root string, codes map[string]bool) []emission {
	t.Helper()
	var out []emission
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		out = append(out, fileEmissions(fset, f, pkg, codes)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// fileEmissions finds the references to code constants in f that emit
// them: the argument of a builder (Errorf, Notef, a local fail), the Code
// of a Diagnostic, Violation or error literal, a code assigned to a
// variable. Not emissions: the constants' declarations, comparisons and
// case labels (reading a code), map keys and diag's catalogue of
// explanations. A rule's list of the codes it raises (Codes: ...) is
// returned as listed.
func fileEmissions(fset *token.FileSet, f *ast.File, pkg string, codes map[string]bool) []emission {
	var out []emission
	var stack []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		name := ""
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && id.Name == "model" && codes[x.Sel.Name] {
				name = x.Sel.Name
			}
		case *ast.Ident:
			if pkg == "model" && codes[x.Name] {
				name = x.Name
			}
		}
		if name != "" {
			if isListed := listed(stack); isListed || emits(n, stack) {
				p := fset.Position(n.Pos())
				out = append(out, emission{code: name, pkg: pkg, at: filepath.Base(p.Filename) + ":" + strconv.Itoa(p.Line), listed: isListed})
			}
		}
		stack = append(stack, n)
		return true
	})
	return out
}

// emits says whether the code reference ref, under the ancestors stack,
// emits its code.
func emits(ref ast.Node, stack []ast.Node) bool {
	if len(stack) == 0 {
		return false
	}
	switch p := stack[len(stack)-1].(type) {
	case *ast.ValueSpec:
		return false // its declaration
	case *ast.BinaryExpr:
		return p.Op != token.EQL && p.Op != token.NEQ
	case *ast.CaseClause:
		return false
	case *ast.KeyValueExpr:
		if p.Key == ref {
			return false // a map key
		}
	}
	for _, a := range stack {
		if c, ok := a.(*ast.CompositeLit); ok && explanation(c.Type) {
			return false // diag's catalogue
		}
	}
	return true
}

// explanation says whether a literal's type is diag's Explanation or a
// list of them.
func explanation(t ast.Expr) bool {
	if at, ok := t.(*ast.ArrayType); ok {
		t = at.Elt
	}
	id, ok := t.(*ast.Ident)
	return ok && id.Name == "Explanation"
}

// listed says whether a code reference is in a rule's list of the codes it
// raises (Codes: ...).
func listed(stack []ast.Node) bool {
	for _, a := range stack {
		if kv, ok := a.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Codes" {
				return true
			}
		}
	}
	return false
}

func TestEmits(t *testing.T) {
	names := map[string]bool{"CodeX": true}
	for _, c := range []struct {
		src    string
		emit   bool
		listed bool
	}{
		{`ds.Errorf(model.CodeX, at, "", "x")`, true, false},
		{`fail(model.CodeX, "x")`, true, false},
		{`model.Diagnostic{Code: model.CodeX}`, true, false},
		{`&Violation{Code: model.CodeX, Primary: -1}`, true, false},
		{`code = model.CodeX`, true, false},
		{`d.Code == model.CodeX`, false, false},
		{`d.Code != model.CodeX`, false, false},
		{`map[string]int{model.CodeX: 1}`, false, false},
		{`&Rule{Name: "r", Codes: []string{model.CodeX}}`, false, true},
		{`[]Explanation{{Code: model.CodeX, Title: "t"}}`, false, false},
		{`append(explanations, Explanation{Code: model.CodeX})`, false, false},
	} {
		src := "package p\nfunc f() {\n" + c.src + "\n}\n"
		if strings.HasPrefix(c.src, "code =") {
			src = "package p\nfunc f() {\nvar code string\n" + c.src + "\n_ = code\n}\n"
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "x.go", src, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		ems := fileEmissions(fset, f, "p", names)
		emit := len(ems) == 1 && !ems[0].listed
		isListed := len(ems) == 1 && ems[0].listed
		if emit != c.emit || isListed != c.listed || len(ems) > 1 {
			t.Errorf("%s: emissions %+v, want emit %v, listed %v", c.src, ems, c.emit, c.listed)
		}
	}
	switchSrc := "package p\nfunc f(c string) {\nswitch c {\ncase model.CodeX:\n}\n}\n"
	fset := token.NewFileSet()
	f, _ := parser.ParseFile(fset, "x.go", switchSrc, 0)
	if ems := fileEmissions(fset, f, "p", names); len(ems) != 0 {
		t.Errorf("a case label is not an emission: %+v", ems)
	}
}
