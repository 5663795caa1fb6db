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
// offered 129 GPUs, past the last one). Checking the edited config, every
// error must be one the config had, by code and line, and d's gone.
func verifyErrorFixes(ds model.Diagnostics, file string, data []byte, opt Options) {
	if opt.verifying {
		return
	}
	opt.verifying, opt.Policy = true, nil
	had := map[[2]any]bool{}
	for _, d := range ds {
		if d.Severity == model.SeverityError {
			had[[2]any{d.Code, d.Primary.Line}] = true
		}
	}
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

func fixAddsNoError(d *model.Diagnostic, f model.Fix, had map[[2]any]bool, file string, data []byte, opt Options) bool {
	for _, e := range f.Edits {
		if e.Span.File != file {
			return true // a fix to a composed file: --fix-shared judges it
		}
	}
	edited, err := textedit.Apply(data, f.Edits)
	if err != nil {
		return false
	}
	for _, nd := range CheckBytes(file, edited, opt).Diagnostics {
		if nd.Severity != model.SeverityError {
			continue
		}
		if nd.Code == d.Code && nd.Primary.Line == d.Primary.Line || !had[[2]any{nd.Code, nd.Primary.Line}] {
			return false
		}
	}
	return true
}
