package model

import (
	"fmt"
	"sort"
)

// Severity orders diagnostics: errors make a config invalid, warnings are
// accepted unless --strict, notes only inform.
type Severity int

const (
	SeverityNote Severity = iota
	SeverityWarning
	SeverityError
)

func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	default:
		return "note"
	}
}

// Label is a secondary span with what it contributes to the problem.
type Label struct {
	Span    Span
	Message string
}

// Edit replaces the text of Span with NewText.
type Edit struct {
	Span    Span
	NewText string
}

// Fix is one concrete way out: a sentence and the edits that perform it.
type Fix struct {
	Message string
	Edits   []Edit
}

// Diagnostic is one problem, located: a stable code, a primary span, the
// other facts that take part (Labels), why the rule applies, and fixes.
type Diagnostic struct {
	Code     string
	Severity Severity
	Summary  string
	Primary  Span
	// PrimaryLabel annotates the primary span in code frames.
	PrimaryLabel string
	Labels       []Label
	Why          string
	Help         []Fix
	// Denied names the setting that made this warning or note an error
	// ("--deny RLS-W0105", "--strict"); empty otherwise.
	Denied string
}

// Diagnostics is a list with helpers used by every stage.
type Diagnostics []Diagnostic

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == SeverityError {
			return true
		}
	}
	return false
}

// Count returns how many diagnostics have severity s.
func (ds Diagnostics) Count(s Severity) int {
	n := 0
	for _, d := range ds {
		if d.Severity == s {
			n++
		}
	}
	return n
}

// Add appends a diagnostic and returns it for further detail (labels,
// why, fixes): the one builder every stage uses.
func (ds *Diagnostics) Add(sev Severity, code string, at Span, label, format string, args ...any) *Diagnostic {
	*ds = append(*ds, Diagnostic{Code: code, Severity: sev, Summary: fmt.Sprintf(format, args...), Primary: at, PrimaryLabel: label})
	return &(*ds)[len(*ds)-1]
}

// Errorf adds an error.
func (ds *Diagnostics) Errorf(code string, at Span, label, format string, args ...any) *Diagnostic {
	return ds.Add(SeverityError, code, at, label, format, args...)
}

// Warnf adds a warning.
func (ds *Diagnostics) Warnf(code string, at Span, label, format string, args ...any) *Diagnostic {
	return ds.Add(SeverityWarning, code, at, label, format, args...)
}

// Notef adds a note.
func (ds *Diagnostics) Notef(code string, at Span, label, format string, args ...any) *Diagnostic {
	return ds.Add(SeverityNote, code, at, label, format, args...)
}

// Sort orders diagnostics as they appear in their files (by file, line,
// column), keeping the order of those at one place, so that problems found
// by different stages read top to bottom.
func (ds Diagnostics) Sort() {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i].Primary, ds[j].Primary
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}
