package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

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
	// Diff is, with FixOptions.Diff, the unified diff of the first
	// round's fixes, which nothing wrote.
	Diff string
	// Final is the check after the last round.
	Final *Outcome
}

// FixOptions say what `check --fix` may write.
type FixOptions struct {
	// Shared lets a fix edit a file the config's defaults list composes
	// (a Hydra group file, possibly outside the config's folder through
	// hydra.searchpath), which other configs may compose too. It is
	// written only when every config beside this one that composes the
	// file gains no error from the fix.
	Shared bool
	// Write says which files may be written at all (read-only ones).
	Write textedit.WriteOptions
	// Diff writes nothing: FixReport.Diff shows the first round's edits
	// (a later round's depend on the files the first one writes).
	Diff bool
}

// FixFile checks a config and writes the first fix of each diagnostic
// that has one (fixes are verified by the solver, or are edits the reader
// proposes) into the config, or, with fo.Shared, into the files its
// defaults list composes. A file is written only while it holds what the
// check read (textedit.ApplyFiles). It checks again and repeats while
// fixes apply, at most maxFixRounds times. --quiet hides warnings, it does
// not spare them: the rounds fix warnings too, and only the final check
// is quiet.
func FixFile(file string, slimeFlags string, opt Options, fo FixOptions) (*FixReport, error) {
	loud := opt
	loud.Policy = opt.Policy.Loud()
	rep, err := fixRounds(file, slimeFlags, loud, fo)
	if opt.Policy != nil && opt.Policy.Quiet && rep.Final != nil && !rep.Final.IOError {
		rep.Final, _ = Check(file, slimeFlags, opt)
	}
	return rep, err
}

// fixRounds is FixFile's loop: check, write the fixes, again.
func fixRounds(file string, slimeFlags string, opt Options, fo FixOptions) (*FixReport, error) {
	rep := &FixReport{}
	written := map[string]bool{}
	allowed := func(es []model.Edit) string { return editable(es, file, fo.Shared) }
	for round := 0; ; round++ {
		o, _ := Check(file, slimeFlags, opt)
		rep.Final = o
		if round == maxFixRounds || o.IOError || o.Budget || o.Internal {
			return rep, nil
		}
		edits, applied, skipped := chooseFixes(o.Diagnostics, allowed)
		rep.skip(skipped)
		if len(edits) == 0 {
			return rep, nil
		}
		if fo.Shared {
			if err := verifyShared(file, edits, o.Sources, opt); err != nil {
				return rep, err
			}
		}
		if fo.Diff {
			rep.Applied = applied
			return rep, rep.diff(edits, o.Sources)
		}
		files, err := textedit.ApplyFiles(edits, o.Sources, fo.Write)
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

// diff is what fixes would write, as a unified diff per file.
func (r *FixReport) diff(edits []model.Edit, read map[string][]byte) error {
	files, by := textedit.ByFile(edits)
	for _, f := range files {
		d, err := textedit.Diff(f, read[f], by[f])
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		r.Diff += d
	}
	return nil
}

// skip records why fixes were left out, each reason once (a later round
// leaves the same fix out again).
func (r *FixReport) skip(why []string) {
	for _, w := range why {
		if !slices.Contains(r.Skipped, w) {
			r.Skipped = append(r.Skipped, w)
		}
	}
}

// chooseFixes picks the first fix with edits of each diagnostic whose
// edits allowed accepts ("" for yes, else why not) and that overlaps no
// fix picked before.
func chooseFixes(ds model.Diagnostics, allowed func([]model.Edit) string) ([]model.Edit, []Applied, []string) {
	var edits []model.Edit
	var applied []Applied
	var skipped []string
	for _, d := range ds {
		for _, f := range d.Help {
			if len(f.Edits) == 0 {
				continue
			}
			if why := allowed(f.Edits); why != "" {
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
// a --slime string), and, unless shared, the config itself: a file its
// defaults list composes is a building block other configs may share.
func editable(edits []model.Edit, config string, shared bool) string {
	for _, e := range edits {
		if st, err := os.Stat(e.Span.File); err != nil || !st.Mode().IsRegular() || !e.Span.Known() {
			return fmt.Sprintf("its fix edits %s, which is not a file", e.Span)
		}
		if !shared && !sameFile(e.Span.File, config) {
			return fmt.Sprintf("its fix edits %s, a file the defaults list composes, which other configs may compose too; "+
				"it was not written: re-run with --fix-shared to write it once every config in %s (and its subfolders) that composes it still passes check",
				e.Span.File, folderName(config))
		}
	}
	return ""
}

// folderName names the config's folder in messages.
func folderName(config string) string {
	if dir := filepath.Dir(config); dir != "." {
		return dir
	}
	return "the current folder"
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
