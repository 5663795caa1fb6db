package pipeline

import (
	"errors"
	"io"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/render"
)

// PlanName is how messages and diff headings call a plan's file: "-" is
// "<stdin>".
func PlanName(file string) string {
	if file == "-" {
		return "<stdin>"
	}
	return file
}

// ReadPlanRecords reads the workers of the plan document in file ("-":
// stdin). doc is false when file holds no plan document
// (render.OpenPlanDocument's rule; err then says why it could not be
// opened, if it could not). A document that cannot be read is RLS-E0130,
// in bad (exit 1), whether plan --diff or solve --from reads it.
func ReadPlanRecords(file string, stdin io.Reader) (recs *model.PlanRecords, doc bool, bad *Outcome, err error) {
	r, closeFile, err := render.OpenPlanDocument(file, stdin)
	if r == nil {
		return nil, false, nil, err
	}
	defer closeFile()
	name := PlanName(file)
	d, err := render.ReadPlanDocument(r, name)
	var de *render.DocumentError
	if errors.As(err, &de) {
		return nil, true, &Outcome{File: name, Diagnostics: model.Diagnostics{de.Diagnostic()}}, nil
	}
	if err != nil {
		return nil, true, nil, err
	}
	return d.Records(), true, nil, nil
}
