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
