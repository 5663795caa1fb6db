package diag

import (
	"fmt"
	"io"

	"github.com/rlsolve/rlsolve/model"
)

// Short writes one line per diagnostic, file:line:col: severity[CODE]: summary,
// the form editors and CI logs link to. Without a position it is
// file: severity[CODE]: summary.
func Short(w io.Writer, ds []model.Diagnostic) {
	for _, d := range ds {
		head := d.Severity.String()
		if d.Code != "" {
			head += "[" + d.Code + "]"
		}
		denied := ""
		if d.Denied != "" {
			denied = " (denied by " + d.Denied + ")"
		}
		fmt.Fprintf(w, "%s: %s: %s%s\n", Printable(d.Primary.String()), head, Printable(d.Summary), Printable(denied))
	}
}

// ShortTotal is the line after Short's across files, in the words of a
// file's summary line: "3 files: 2 errors, 1 note", or "3 files: ok"
// (allowed: the codes the policy dropped across them).
func ShortTotal(w io.Writer, ds []model.Diagnostic, files int, allowed []string) {
	SummaryAllowed(w, ds, plural(files, "file"), allowed)
}
