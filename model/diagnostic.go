package model

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
