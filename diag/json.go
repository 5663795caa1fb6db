package diag

import (
	"encoding/json"
	"io"

	"github.com/rlsolve/rlsolve/model"
)

// FormatVersion is the version of the JSON documents check and plan print.
// Scripts rely on their shape; change it only with the shape.
const FormatVersion = "1"

// JSONPosition is a point in a file; line and column count from 1.
type JSONPosition struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// JSONRange is a span. Start and End are absent when only the file is known
// (for example a file that cannot be read); End is exclusive.
type JSONRange struct {
	Filename string        `json:"filename"`
	Start    *JSONPosition `json:"start,omitempty"`
	End      *JSONPosition `json:"end,omitempty"`
}

// JSONFact is one member of a conflict's core: what it says and where.
type JSONFact struct {
	Message string     `json:"message"`
	Range   *JSONRange `json:"range,omitempty"`
}

// JSONEdit replaces the text of Range with NewText.
type JSONEdit struct {
	Range   *JSONRange `json:"range,omitempty"`
	NewText string     `json:"new_text"`
}

// JSONFix is one way out, with the edits that perform it.
type JSONFix struct {
	Message string     `json:"message"`
	Edits   []JSONEdit `json:"edits"`
}

// JSONDiagnostic is one diagnostic of the check envelope (design.md).
type JSONDiagnostic struct {
	Code     string     `json:"code"`
	Severity string     `json:"severity"`
	Summary  string     `json:"summary"`
	Range    *JSONRange `json:"range,omitempty"`
	// Core is the primary fact followed by every label: the minimal set of
	// facts that make the problem.
	Core  []JSONFact `json:"core"`
	Why   string     `json:"why,omitempty"`
	Fixes []JSONFix  `json:"fixes"`
	// DeniedBy names the setting that made a warning or note an error
	// (--deny CODE, --strict, .rlsolve.yaml, a `# rlsolve:` comment).
	DeniedBy string `json:"denied_by,omitempty"`
}

// CheckReport is the document `check --output json` prints.
type CheckReport struct {
	FormatVersion string           `json:"format_version"`
	Valid         bool             `json:"valid"`
	Diagnostics   []JSONDiagnostic `json:"diagnostics"`
}

// JSON converts diagnostics to their JSON form, never nil, so that it
// marshals as [] and can be embedded in other documents (plan's
// "diagnostics").
func JSON(ds []model.Diagnostic) []JSONDiagnostic {
	return toJSON(ds)
}

// CheckEnvelope returns the versioned document of `check --output json`: a
// CheckReport whose diagnostics marshal as [] when there are none.
func CheckEnvelope(valid bool, ds []model.Diagnostic) any {
	return CheckReport{FormatVersion: FormatVersion, Valid: valid, Diagnostics: toJSON(ds)}
}

// WriteCheckEnvelope writes CheckEnvelope to w, indented by two spaces.
func WriteCheckEnvelope(w io.Writer, valid bool, ds []model.Diagnostic) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(CheckEnvelope(valid, ds))
}

func toJSON(ds []model.Diagnostic) []JSONDiagnostic {
	out := make([]JSONDiagnostic, 0, len(ds))
	for _, d := range ds {
		jd := JSONDiagnostic{
			Code:     d.Code,
			Severity: d.Severity.String(),
			Summary:  d.Summary,
			Range:    jsonRange(d.Primary, ""),
			Why:      d.Why,
			DeniedBy: d.Denied,
			Core:     []JSONFact{},
			Fixes:    []JSONFix{},
		}
		msg := d.PrimaryLabel
		if msg == "" {
			msg = d.Summary
		}
		jd.Core = append(jd.Core, JSONFact{Message: msg, Range: jd.Range})
		for _, l := range d.Labels {
			jd.Core = append(jd.Core, JSONFact{Message: l.Message, Range: jsonRange(l.Span, d.Primary.File)})
		}
		for _, f := range d.Help {
			jf := JSONFix{Message: f.Message, Edits: []JSONEdit{}}
			for _, e := range f.Edits {
				jf.Edits = append(jf.Edits, JSONEdit{Range: jsonRange(e.Span, d.Primary.File), NewText: e.NewText})
			}
			jd.Fixes = append(jd.Fixes, jf)
		}
		out = append(out, jd)
	}
	return out
}

// Range is a span in the documents' form (nil when nothing is known).
func Range(sp model.Span) *JSONRange { return jsonRange(sp, "") }

// jsonRange returns nil when nothing is known of sp. A known span without a
// file is taken to be in defaultFile, the primary span's file.
func jsonRange(sp model.Span, defaultFile string) *JSONRange {
	if sp.File == "" && sp.Known() {
		sp.File = defaultFile
	}
	if !sp.Known() {
		if sp.File == "" {
			return nil
		}
		return &JSONRange{Filename: sp.File}
	}
	sp = norm(sp)
	return &JSONRange{
		Filename: sp.File,
		Start:    &JSONPosition{Line: sp.Line, Column: sp.Col},
		End:      &JSONPosition{Line: sp.EndLine, Column: sp.EndCol},
	}
}
