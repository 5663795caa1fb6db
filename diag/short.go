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
