package pipeline

import (
	"fmt"
	"io"
	"strings"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/model"
)

// PlanDiagnostics is how plan shows a valid config's warnings and notes.
type PlanDiagnostics struct {
	Full  bool // every one in full (plan --diagnostics)
	Quiet bool // none
	Color bool
}

// WritePlanDiagnostics writes a valid config's warnings and notes: in full
// with Full, else as one line that counts them, so that a user who ran
// check first sees each once; a warning that the real layout may differ
// from the plan is always shown in full.
func WritePlanDiagnostics(w io.Writer, o *Outcome, src diag.Sources, p PlanDiagnostics) {
	switch {
	case p.Full:
		diag.Text(w, o.Diagnostics, src, p.Color)
	case p.Quiet || len(o.Diagnostics) == 0:
	default:
		var shown model.Diagnostics
		for _, d := range o.Diagnostics {
			if model.ChangesLayout(d.Code) {
				shown = append(shown, d)
			}
		}
		diag.Text(w, shown, src, p.Color)
		var b strings.Builder
		diag.SummaryAllowed(&b, o.Diagnostics, o.File, o.Allowed)
		fmt.Fprintf(w, "%s; `rlsolve check` shows them (or plan --diagnostics)\n", strings.TrimSuffix(b.String(), "\n"))
	}
}
