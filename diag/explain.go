package diag

import (
	"fmt"
	"io"
	"strings"
)

// WriteCodes writes every code with its title, one a line (`rlsolve
// explain` without a code).
func WriteCodes(w io.Writer) {
	for _, e := range Codes() {
		fmt.Fprintf(w, "%s  %s\n", e.Code, e.Title)
	}
}

// WriteExplanation writes e as `rlsolve explain CODE` prints it: the code
// and title, the text, and the example indented by four spaces.
func WriteExplanation(w io.Writer, e Explanation) {
	example := "    " + strings.ReplaceAll(e.Example, "\n", "\n    ")
	fmt.Fprintf(w, "%s: %s\n\n%s\n\nExample:\n\n%s\n", e.Code, e.Title, e.Text, example)
}
