package pipeline

import (
	"github.com/rlsolve/rlsolve/internal/textedit"
	"github.com/rlsolve/rlsolve/model"
)

// verifyPlanFixes keeps the fixes of the plan's warnings that checking the
// edited config confirms: no error, and the warning gone from its line.
// The solver verifies the rules' fixes; these warnings come from the plan,
// so the whole check judges their fixes.
func verifyPlanFixes(ds model.Diagnostics, file string, data []byte, opt Options) {
	if opt.verifying {
		return // a fix's own check proposes fixes, it does not judge them
	}
	opt.verifying, opt.Policy = true, nil
	for i := range ds {
		d := &ds[i]
		var kept []model.Fix
		for _, f := range d.Help {
			if len(f.Edits) == 0 || fixHolds(d, f, file, data, opt) {
				kept = append(kept, f)
			}
		}
		d.Help = kept
	}
}

// fixHolds checks the config with f's edits made.
func fixHolds(d *model.Diagnostic, f model.Fix, file string, data []byte, opt Options) bool {
	for _, e := range f.Edits {
		if e.Span.File != file {
			return false
		}
	}
	edited, err := textedit.Apply(data, f.Edits)
	if err != nil {
		return false
	}
	again := CheckBytes(file, edited, opt)
	if again.Failed() {
		return false
	}
	for _, nd := range again.Diagnostics {
		if nd.Code == d.Code && nd.Primary.Line == d.Primary.Line {
			return false
		}
	}
	return true
}

// verifyErrorFixes drops the fixes of the rules' errors that trade the
// error for another: the solver keeps a fix that leaves fewer conflicts,
// but an offered fix must add none (issue 25: TP 3 on 128 GPUs was
// offered 129 GPUs, past the last one). Checking the edited config, it
// has fewer errors of d's code and no more of any other (by code: a fix
// that deletes a line moves the errors below it).
func verifyErrorFixes(ds model.Diagnostics, file string, data []byte, opt Options) {
	if opt.verifying {
		return
	}
	opt.verifying, opt.Policy = true, nil
	had := ErrorCounts(ds)
	for i := range ds {
		d := &ds[i]
		if d.Severity != model.SeverityError {
			continue
		}
		var kept []model.Fix
		for _, f := range d.Help {
			if len(f.Edits) == 0 || fixAddsNoError(d, f, had, file, data, opt) {
				kept = append(kept, f)
			}
		}
		d.Help = kept
	}
}

// ErrorCounts counts the errors of ds by code.
func ErrorCounts(ds model.Diagnostics) map[string]int {
	n := map[string]int{}
	for _, d := range ds {
		if d.Severity == model.SeverityError {
			n[d.Code]++
		}
	}
	return n
}

// FixAdds names what applying a fix for an error of code did, given the
// error counts before and after: "" when it removed one such error and
// added none.
func FixAdds(code string, before, after map[string]int) string {
	if after[code] >= before[code] {
		return "leaves " + code
	}
	for c, n := range after {
		if n > before[c] {
			return "adds " + c
		}
	}
	return ""
}

func fixAddsNoError(d *model.Diagnostic, f model.Fix, had map[string]int, file string, data []byte, opt Options) bool {
	for _, e := range f.Edits {
		if e.Span.File != file {
			return true // a fix to a composed file: --fix-shared judges it
		}
	}
	edited, err := textedit.Apply(data, f.Edits)
	if err != nil {
		return false
	}
	return FixAdds(d.Code, had, ErrorCounts(CheckBytes(file, edited, opt).Diagnostics)) == ""
}
