package yamlpos

import (
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

// Each code has one wording, whichever front end finds the problem.
func TestDiagnosticWordings(t *testing.T) {
	at := model.Span{File: "c.yaml", Line: 2, Col: 3, EndLine: 2, EndCol: 5}
	d := parse(t, "a: [1]\n")
	for _, c := range []struct {
		diag    model.Diagnostic
		code    string
		summary string
	}{
		{*d.WrongType(d.Path("a"), "expected a scalar", "a", "a scalar", "a list"), model.CodeWrongType,
			"a must be a scalar, but got a list"},
		{Limit{What: "c.yaml", Size: "20", Max: 10, Unit: " bytes"}.Diagnostic(at, ""), model.CodeLimit,
			"c.yaml is 20 bytes; rlsolve reads at most 10 bytes"},
		{Limit{What: "the YAML nesting", Max: 8, Unit: " levels"}.Diagnostic(at, "too deep"), model.CodeLimit,
			"the YAML nesting is over the limit; rlsolve reads at most 8 levels"},
		{Limit{What: "num_nodes", Size: "17", Max: 16}.Diagnostic(at, ""), model.CodeLimit,
			"num_nodes is 17; rlsolve reads at most 16"},
		{Mandatory(at, "never chosen", "the config group trainer", "a config must be chosen for it"), model.CodeMandatoryMissing,
			"the config group trainer is `???`: a config must be chosen for it"},
	} {
		if c.diag.Code != c.code || c.diag.Severity != model.SeverityError || c.diag.Summary != c.summary {
			t.Errorf("%s %v %q, want %s error %q", c.diag.Code, c.diag.Severity, c.diag.Summary, c.code, c.summary)
		}
	}
}

// A problem about a node is recorded once; one about no node each time.
func TestRecordOncePerNode(t *testing.T) {
	d := parse(t, "a: [1]\n")
	n := d.Path("a")
	d.WrongType(n, "", "a", "a scalar", "a list")
	if _, ok := d.Scalar(n, "a"); ok {
		t.Fatal("a list read as a scalar")
	}
	lim := Limit{What: "x", Max: 1}.Diagnostic(model.Span{}, "")
	d.Record(nil, lim)
	d.Record(nil, lim)
	if got := codes(d.Diags); len(got) != 3 || got[0] != model.CodeWrongType || got[1] != model.CodeLimit || got[2] != model.CodeLimit {
		t.Errorf("codes %v, want one wrong type and two limits", got)
	}
}
