package yamlpos

import (
	"fmt"

	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// The diagnostics of a value that does not fit where it is read (of the
// wrong YAML type, past one of rlsolve's bounds, OmegaConf's `???` never
// given) are built here for every front end, so that each code has one
// wording wherever it is found.

// Record adds diag to the document and returns it for more detail. A
// problem about node n is recorded once (n nil: always): a value read
// twice (composed at two places, or read by check and by suggest's model)
// is reported once, and a repeat gets a detached diagnostic.
func (d *Doc) Record(n *yaml.Node, diag model.Diagnostic) *model.Diagnostic {
	if n != nil && d.reported[n] {
		return &model.Diagnostic{}
	}
	if n != nil {
		d.reported[n] = true
	}
	d.Diags = append(d.Diags, diag)
	return &d.Diags[len(d.Diags)-1]
}

// WrongType records that the value n is not of the type it must be: what
// must be want, but got is what it is.
func (d *Doc) WrongType(n *yaml.Node, label, what, want, got string) *model.Diagnostic {
	return d.Record(n, diagnostic(model.SeverityError, model.CodeWrongType, d.Span(n), label, "%s must be %s, but got %s", what, want, got))
}

// Mandatory is OmegaConf's (or Hydra's) `???` where a value is needed:
// what is `???`, and must says what has to be done about it.
func Mandatory(at model.Span, label, what, must string) model.Diagnostic {
	return diagnostic(model.SeverityError, model.CodeMandatoryMissing, at, label, "%s is `???`: %s", what, must)
}

// A Limit is an input past one of rlsolve's bounds, refused before
// anything of its size is allocated.
type Limit struct {
	What string // what is too big: a file, "the YAML nesting"
	Size string // its size without Unit; "" where reading stopped at the bound
	Max  int    // the bound
	Unit string // of Size and Max, with its leading space (" bytes"); "" for a number
}

// Error is the one wording of every limit.
func (l Limit) Error() string {
	size := "over the limit"
	if l.Size != "" {
		size = l.Size + l.Unit
	}
	return fmt.Sprintf("%s is %s; rlsolve reads at most %d%s", l.What, size, l.Max, l.Unit)
}

// Diagnostic is the error that reports l at at.
func (l Limit) Diagnostic(at model.Span, label string) model.Diagnostic {
	return diagnostic(model.SeverityError, model.CodeLimit, at, label, "%s", l.Error())
}

// Unresolved says whether diag is an interpolation rlsolve cannot
// resolve (a reader may set such a value aside instead of refusing it).
func Unresolved(diag model.Diagnostic) bool { return diag.Code == model.CodeUnresolvedInterp }
