package render

import (
	"bufio"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/rlsolve/rlsolve/diag"
)

// writeTable writes a header and rows held in memory, aligned as
// writeAligned does: every table rlsolve prints is laid out here.
func writeTable(w io.Writer, header []string, rows [][]string) error {
	return writeAligned(w, header, len(rows), func(j int, cells []string) ([]string, error) {
		return append(cells, rows[j]...), nil
	})
}

// printLine writes a line of text and a line break; its string arguments,
// names from the input, go through diag.Printable (see writeAligned).
func printLine(w io.Writer, format string, args ...any) {
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = diag.Printable(s)
		}
	}
	fmt.Fprintf(w, format+"\n", args...)
}

// writeAligned writes a header and n rows of cells, each column but the
// last padded to its widest cell plus two spaces, as text/tabwriter lays
// them out. Cells are printed through diag.Printable: a name holding an
// escape sequence or a line break is shown escaped, never run. It reads the rows twice (widths, then text) instead of holding
// them: a component of a million workers prints without its table in
// memory. row appends row j's cells to cells.
func writeAligned(w io.Writer, header []string, n int, row func(j int, cells []string) ([]string, error)) error {
	widths := make([]int, len(header))
	measure := func(cells []string) {
		for c := 0; c < len(cells)-1 && c < len(widths); c++ {
			widths[c] = max(widths[c], utf8.RuneCountInString(diag.Printable(cells[c])))
		}
	}
	measure(header)
	cells := make([]string, 0, len(header))
	var err error
	for j := range n {
		if cells, err = row(j, cells[:0]); err != nil {
			return err
		}
		measure(cells)
	}
	bw := bufio.NewWriter(w)
	line := func(cells []string) {
		for c, s := range cells {
			s = diag.Printable(s)
			bw.WriteString(s)
			if c < len(cells)-1 && c < len(widths) {
				for pad := widths[c] + 2 - utf8.RuneCountInString(s); pad > 0; pad-- {
					bw.WriteByte(' ')
				}
			}
		}
		bw.WriteByte('\n')
	}
	line(header)
	for j := range n {
		if cells, err = row(j, cells[:0]); err != nil {
			return err
		}
		line(cells)
	}
	return bw.Flush()
}
