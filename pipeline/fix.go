package pipeline

import (
	"fmt"
	"os"

	"github.com/rlsolve/rlsolve/internal/textedit"
	"github.com/rlsolve/rlsolve/model"
)

// maxFixRounds bounds `check --fix`: a fix can reveal a problem that the
// one it removed hid, which the next round fixes.
const maxFixRounds = 4

// Applied is one fix written to the files: the diagnostic it was for and
// the fix.
type Applied struct {
	Diagnostic model.Diagnostic
	Fix        model.Fix
}

// FixReport is what FixFile did: the fixes written, round by round, and
// the check of the files as they are now.
type FixReport struct {
	Applied []Applied
	// Skipped says why fixes were left out (an edit of the command line's
	// overrides, edits that overlap an earlier fix's).
	Skipped []string
	// Files are the files written.
	Files []string
	// Final is the check after the last round.
	Final *Outcome
}

// FixFile checks a config and writes the first fix of each diagnostic
// that has one (fixes are verified by the solver, or are edits the reader
// proposes), in the files their edits name: the config, or the files its
// defaults list composes. Each file is replaced atomically. It checks
// again and repeats while fixes apply, at most maxFixRounds times.
func FixFile(file string, slimeFlags string, opt Options) (*FixReport, error) {
	rep := &FixReport{}
	written := map[string]bool{}
	for round := 0; ; round++ {
		o, _ := Check(file, slimeFlags, opt)
		rep.Final = o
		if round == maxFixRounds || o.IOError || o.Budget || o.Internal {
			return rep, nil
		}
		edits, applied, skipped := chooseFixes(o.Diagnostics)
		rep.Skipped = append(rep.Skipped, skipped...)
		if len(edits) == 0 {
			return rep, nil
		}
		files, err := textedit.ApplyFiles(edits)
		for _, f := range files {
			if !written[f] {
				written[f] = true
				rep.Files = append(rep.Files, f)
			}
		}
		if err != nil {
			return rep, err
		}
		rep.Applied = append(rep.Applied, applied...)
	}
}

// chooseFixes picks the first fix with edits of each diagnostic whose
// edits all name files on disk and overlap no fix picked before.
func chooseFixes(ds model.Diagnostics) ([]model.Edit, []Applied, []string) {
	var edits []model.Edit
	var applied []Applied
	var skipped []string
	for _, d := range ds {
		for _, f := range d.Help {
			if len(f.Edits) == 0 {
				continue
			}
			if why := editable(f.Edits); why != "" {
				skipped = append(skipped, fmt.Sprintf("%s at %s: %s", d.Code, d.Primary, why))
				break
			}
			fresh, clash := newEdits(edits, f.Edits)
			if clash {
				skipped = append(skipped, fmt.Sprintf("%s at %s: its fix overlaps an earlier fix; run --fix again", d.Code, d.Primary))
				break
			}
			edits = append(edits, fresh...)
			applied = append(applied, Applied{Diagnostic: d, Fix: f})
			break
		}
	}
	return edits, applied, skipped
}

// editable says why edits cannot be written ("" when they can): every
// one must name a regular file (not the command line, standard input or
// a --slime string).
func editable(edits []model.Edit) string {
	for _, e := range edits {
		if st, err := os.Stat(e.Span.File); err != nil || !st.Mode().IsRegular() || !e.Span.Known() {
			return fmt.Sprintf("its fix edits %s, which is not a file", e.Span)
		}
	}
	return ""
}

// newEdits is the edits of add that have does not hold already, and
// whether one overlaps an edit of have.
func newEdits(have, add []model.Edit) ([]model.Edit, bool) {
	var out []model.Edit
	for _, e := range add {
		dup := false
		for _, h := range have {
			switch {
			case h == e:
				dup = true
			case overlaps(h.Span, e.Span):
				return nil, true
			}
		}
		if !dup {
			out = append(out, e)
		}
	}
	return out, false
}

// overlaps reports whether two spans of one file share a character, or
// are the same span (two edits of one place, whose order would matter).
func overlaps(a, b model.Span) bool {
	if a.File != b.File {
		return false
	}
	if a == b {
		return true
	}
	before := func(l1, c1, l2, c2 int) bool { return l1 < l2 || l1 == l2 && c1 < c2 }
	// They are apart when one ends at or before the other starts.
	aEndsFirst := !before(b.Line, b.Col, a.EndLine, a.EndCol)
	bEndsFirst := !before(a.Line, a.Col, b.EndLine, b.EndCol)
	return !aEndsFirst && !bEndsFirst
}
