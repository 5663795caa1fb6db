package pipeline

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/rlsolve/rlsolve/internal/textedit"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/render"
	"github.com/rlsolve/rlsolve/solver"
)

// ObjectiveCost is solve's fourth objective: the cost model (suggest's)
// chooses the counts of `gpus: auto`, then the placement packs.
const ObjectiveCost = "cost"

// ObjectiveNames are solve's objectives: the solver's, then cost.
func ObjectiveNames() []string {
	var out []string
	for _, o := range solver.Objectives {
		out = append(out, string(o))
	}
	return append(out, ObjectiveCost)
}

// ParseObjective reads solve's --objective: "" is keep when there is a
// previous plan, else pack; cost packs once the cost model chose the
// counts (cost true). ok is false for a name that is none of them; err
// says when keep has no previous plan.
func ParseObjective(name string, previous bool) (obj solver.Objective, cost, ok bool, err error) {
	obj = solver.Objective(name)
	switch {
	case name == "" && previous:
		return solver.ObjectiveKeep, false, true, nil
	case name == "":
		return solver.ObjectivePack, false, true, nil
	case name == ObjectiveCost:
		return solver.ObjectivePack, true, true, nil
	case !slices.Contains(solver.Objectives, obj):
		return "", false, false, nil
	case obj == solver.ObjectiveKeep && !previous:
		return "", false, true, fmt.Errorf("--objective keep needs --from PLAN.json, the plan whose workers to keep")
	}
	return obj, false, true, nil
}

// StatsLine is what `solve --stats` prints: the SAT instance's size and
// the solver's calls and time ("" when nothing was placed).
func (s *Solved) StatsLine() string {
	if s.Placement == nil {
		return ""
	}
	st := s.Placement.Stats
	enc := ""
	if st.Encoding != "" {
		enc = ", encoding " + st.Encoding
	}
	return fmt.Sprintf("solve: %d variables, %d clauses, %d solver calls, %v (objective %s, value %d%s)\n",
		st.Vars, st.Clauses, st.Calls, st.Elapsed.Round(time.Microsecond), s.Placement.Objective, s.Placement.Value, enc)
}

// WriteResult writes the solved config ("yaml"), its placements ("json")
// or its plan document ("plan").
func (s *Solved) WriteResult(w io.Writer, output string) error {
	switch output {
	case "json":
		return render.WriteSolveJSON(w, s.Document())
	case "plan":
		return render.WriteJSON(w, s.Verified.RenderInput(), true)
	}
	_, err := w.Write(s.Text)
	return err
}

// WriteBack writes the solved config into its file, if the file still
// holds what solve read, and logs each placement written. A config that
// holds only with the command-line overrides is refused (StandaloneError).
func (s *Solved) WriteBack(opt textedit.WriteOptions, log io.Writer) error {
	if err := s.StandaloneError(); err != nil {
		return err
	}
	if err := textedit.Replace(s.File, s.Sources[s.File], s.Text, opt); err != nil {
		return fmt.Errorf("--write: %v", err)
	}
	for _, p := range s.Placement.Placed {
		fmt.Fprintf(log, "%s: %s placed at %q\n", s.File, p.Name, p.Placement)
	}
	return nil
}

// StandaloneError refuses writing the placements back when they hold only
// with the command-line overrides: the file would keep the values they
// replaced, and the next check of it, without them, would fail.
func (s *Solved) StandaloneError() error {
	if s.Standalone == nil || !s.Standalone.Failed() {
		return nil
	}
	first := ""
	for _, d := range s.Standalone.Diagnostics {
		if d.Severity == model.SeverityError {
			first = fmt.Sprintf(" (%s: %s)", d.Code, d.Summary)
			break
		}
	}
	return fmt.Errorf("--write: the placements depend on the overrides %s, which --write does not put into %s: "+
		"check would refuse the written file without them%s; state the values in the file, or solve without --write and pass the overrides again",
		strings.Join(s.NeedsOverrides, " "), s.File, first)
}

// WriteMoves writes which workers of the previous plan (from) moved.
func (s *Solved) WriteMoves(w io.Writer, prev *model.PlanRecords, from string) error {
	recs, err := render.PlanRecords(s.Verified.RenderInput())
	if err != nil {
		return err
	}
	d := model.DiffPlans(prev, recs)
	return render.WriteDiffTable(w, &d, from, s.File+" (solved)")
}
