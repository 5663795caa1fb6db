package suggest

import (
	"errors"
	"fmt"

	"github.com/rlsolve/rlsolve/model"
)

// Counts are the GPU counts the cost model gives each component of its
// best layout in the mode a solve's requirements ask for (collocated: the
// rollout shares the actor's GPUs; else split), with that layout's
// modeled cost: what `rlsolve solve --objective cost` puts in place of
// `gpus: auto`.
func Counts(spec *Spec, cl *Cluster, collocated bool, opt Options) (map[string]int, float64, error) {
	opt.Top = max(opt.Top, 16)
	res, err := Suggest(spec, cl, opt)
	if err != nil {
		return nil, 0, err
	}
	for _, s := range res.Suggestions {
		if (s.Mode == ModeCollocated) != collocated {
			continue
		}
		counts := map[string]int{}
		for _, st := range s.Stages {
			counts[st.Name] = st.GPUs
		}
		return counts, s.TotalCost, nil
	}
	mode := "split"
	if collocated {
		mode = "collocated"
	}
	return nil, 0, &Error{Code: model.CodeSuggestNone, Msg: fmt.Sprintf("the cost model finds no valid %s layout on %d GPUs for `gpus: auto`", mode, cl.GPUs),
		Why: "solve --objective cost takes the counts of `gpus: auto` from the best layout the cost model prices in the mode the requirements ask for (rollout `with` actor: collocated)."}
}

// CostModel is solve's cost objective: for a config's bytes and the
// inventory solve chose, the counts of the best layout in the mode asked,
// its modeled cost, or the diagnostic that says why there are none.
func CostModel(opt Options) func(file string, data []byte, inv *model.Inventory, collocated bool) (map[string]int, float64, *model.Diagnostic) {
	return func(file string, data []byte, inv *model.Inventory, collocated bool) (map[string]int, float64, *model.Diagnostic) {
		spec, ds := Load(file, data)
		for i := range ds {
			if ds[i].Severity == model.SeverityError {
				return nil, 0, &ds[i]
			}
		}
		cl, err := NewCluster(inv, 0)
		if err != nil {
			return nil, 0, asDiagnostic(err, file)
		}
		counts, cost, err := Counts(spec, cl, collocated, opt)
		if err != nil {
			return nil, 0, asDiagnostic(err, file)
		}
		return counts, cost, nil
	}
}

// asDiagnostic is an error of the cost model as a diagnostic at the file.
func asDiagnostic(err error, file string) *model.Diagnostic {
	var se *Error
	if !errors.As(err, &se) {
		se = &Error{Code: model.CodeSuggestNone, Msg: err.Error()}
	}
	d := se.Diagnostic(file)
	return &d
}
