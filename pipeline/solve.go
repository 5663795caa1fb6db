package pipeline

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/internal/textedit"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/render"
	"github.com/rlsolve/rlsolve/rules"
	"github.com/rlsolve/rlsolve/solver"
)

// SolveOptions are check's options and what solve adds.
type SolveOptions struct {
	Options
	Objective solver.Objective
	// Previous is the previous plan's workers (keep).
	Previous map[string][]solver.Worker
	// Without are nodes solve must not use (--without-node).
	Without []int
	// Step bounds one call that looks for a better placement (0: the
	// solver's default).
	Step time.Duration
	// CostModel, when set, gives the GPU counts of `gpus: auto` (the
	// objective cost): it reads the config's bytes for the model's
	// settings, plans for the inventory chosen, in the mode the
	// requirements ask for (collocated or not), and says the layout's
	// modeled cost.
	CostModel func(file string, data []byte, inv *model.Inventory, collocated bool) (map[string]int, float64, *model.Diagnostic)
}

// Solved is solve's outcome: the input's, the placement chosen, the config
// with it written in, and the check of that config, which must pass.
type Solved struct {
	*Outcome
	Placement *solver.Placement
	// Text is the config with every requirement replaced by its placement
	// (nil when nothing was placed, or the result did not check).
	Text []byte
	// Edits are the changes from the input to Text.
	Edits []model.Edit
	// Verified is the ordinary check of Text.
	Verified *Outcome
	// Standalone is the check of Text without the command-line overrides
	// solve read it with (nil when there were none left): the file as the
	// next `check` reads it. NeedsOverrides are those overrides' arguments.
	Standalone     *Outcome
	NeedsOverrides []string
	// Cost is the cost model's modeled cost of the layout whose counts it
	// gave (`gpus: auto`), 0 without.
	Cost float64
}

// SolveFile solves one file ("-": standard input).
func SolveFile(file string, opt SolveOptions) *Solved {
	file, data, bad := readInput(file, opt.Options)
	if bad != nil {
		return &Solved{Outcome: bad}
	}
	return Solve(file, data, opt)
}

// Solve places a config's requirements, writes the placements into it and
// checks the result the ordinary way.
func Solve(file string, data []byte, opt SolveOptions) *Solved {
	opt.defaults()
	o, cfg, inv, ropt := load(file, data, opt.Options)
	s := &Solved{Outcome: o}
	defer o.finish(file, data, opt.Options)
	if inv == nil || o.Diagnostics.HasErrors() {
		return s
	}
	if !knownNodes(o, cfg, inv, opt.Without) {
		return s
	}
	cfg.Replan()
	// What the config places around the requirements must hold first.
	ropt.Solving = true
	set := rules.Build(cfg, inv, ropt)
	if !o.judge(set, opt.Options, cfg.ComponentsSpan) {
		return s
	}
	cfg.Memory = groupEnvDropped(cfg.Memory, o.Class)
	mem, notes := o.memory(cfg.Memory, usedNodes(inv, cfg.NumNodes), cfg.ComponentsSpan, opt.Options)
	o.memoryNotes(notes)
	sp := rules.BuildSpace(cfg, inv, rules.SpaceOptions{Class: o.Class, Without: opt.Without, Memory: mem, Counts: s.costCounts(file, data, cfg, inv, opt)})
	pl, err := solver.Place(sp, solver.PlaceOptions{Objective: opt.Objective, Previous: opt.Previous, Budget: opt.SolverBudget, Step: opt.Step, MaxConflicts: opt.MaxConflicts})
	if err != nil {
		solverStopped(o, cfg, err)
		return s
	}
	s.Placement = pl
	o.Diagnostics = append(o.Diagnostics, pl.Diagnostics...)
	if pl.Diagnostics.HasErrors() {
		return s
	}
	if !pl.Optimal {
		o.Diagnostics.Notef(model.NoteSolveBound, cfg.ComponentsSpan, "", "%s ended the search: this placement holds, but a better one (%s) may exist", cutBy(pl.CutBy), pl.Objective)
	}
	s.writeBack(file, data, cfg, opt.Options)
	return s
}

// cutBy names the bound that ended a search, as the user sets it.
func cutBy(bound string) string {
	switch bound {
	case solver.BoundStep:
		return "one optimizing call's time limit"
	case solver.BoundSize:
		return "the instance-size limit (keep by devices would be too large to build)"
	}
	return "the solver's budget (--solver-budget)"
}

// solverStopped says why the solver gave no answer: its time budget ran
// out, or the instance would be too large to build (refused before it is
// allocated, rather than run out of memory).
func solverStopped(o *Outcome, cfg *model.Config, err error) {
	o.Budget = true
	var big *solver.SizeError
	if errors.As(err, &big) {
		d := o.Diagnostics.Errorf(model.CodeSolverBudget, cfg.ComponentsSpan, "", "the solver stopped before building its instance: %v", err)
		d.Why = "Each component may take any device of its node groups, and every two components that may take one device need a clause for it: the instance grows with the components squared times the devices."
		d.Help = []model.Fix{{Message: "give components node groups of their own (node_group), or write the placement of the largest ones"}}
		return
	}
	o.Diagnostics.Errorf(model.CodeSolverBudget, cfg.ComponentsSpan, "", "the solver stopped: %v", err).Help =
		[]model.Fix{{Message: "raise --solver-budget"}}
}

// costCounts asks the cost model for the counts of `gpus: auto`, and
// records the layout's modeled cost (nil: no cost model, or no auto).
func (s *Solved) costCounts(file string, data []byte, cfg *model.Config, inv *model.Inventory, opt SolveOptions) map[string]int {
	if opt.CostModel == nil || !slices.ContainsFunc(cfg.Components, func(e model.ComponentEntry) bool { return e.Requirement != nil && e.Requirement.Auto }) {
		return nil
	}
	sp := rules.BuildSpace(cfg, inv, rules.SpaceOptions{Class: s.Class})
	counts, cost, d := opt.CostModel(file, data, inv, sp.Collocated())
	if d != nil {
		s.Diagnostics = append(s.Diagnostics, *d)
		return nil
	}
	s.Cost = cost
	return counts
}

// knownNodes refuses --without-node ranks the cluster does not have: a
// mistyped rank would leave the failed node in.
func knownNodes(o *Outcome, cfg *model.Config, inv *model.Inventory, without []int) bool {
	n := len(inv.Nodes)
	if cfg.NumNodes > 0 {
		n = min(n, cfg.NumNodes)
	}
	for _, r := range without {
		if r < 0 || r >= n {
			o.Diagnostics.Errorf(model.CodeUnknownNode, cfg.NumNodesSpan, fmt.Sprintf("nodes 0-%d", n-1), "--without-node %d: the cluster has no node %d", r, r)
			return false
		}
	}
	return true
}

// writeBack writes the placements into the input and checks the result:
// a placement solve found that check refuses is a bug in rlsolve.
func (s *Solved) writeBack(file string, data []byte, cfg *model.Config, opt Options) {
	solved := make([]model.Solved, len(s.Placement.Placed))
	for i, p := range s.Placement.Placed {
		solved[i] = p.Solved
	}
	edits, err := render.WriteBack(data, cfg, solved)
	if err == nil {
		err = onlyIn(file, edits)
	}
	var text []byte
	if err == nil {
		text, err = textedit.Apply(data, edits)
	}
	var layout *render.WriteBackError
	switch {
	case errors.As(err, &layout):
		s.Outcome.Diagnostics.Errorf(model.CodeWriteBackLayout, layout.Span, "", "%s", layout.Msg)
		return
	case err != nil:
		s.Outcome.internalWhy(fmt.Errorf("writing the placements back: %w", err), cfg.ComponentsSpan,
			"solve found placements but could not write them into the file. Please report it with this input.")
		return
	}
	opt.Overrides = settled(opt.Overrides, cfg)
	// The result is checked as a file of its own, so that code frames of
	// what check says show the text solve wrote.
	solvedName := file + " (solved)"
	s.Verified = CheckBytes(solvedName, text, opt)
	s.Outcome.Sources[solvedName] = text
	if s.Verified.Failed() {
		// Neither printed nor written: the text is not what solve promises.
		for _, d := range s.Verified.Diagnostics {
			if d.Severity == model.SeverityError {
				s.Outcome.Diagnostics = append(s.Outcome.Diagnostics, d)
			}
		}
		s.Outcome.Diagnostics.Errorf(model.CodeSolvedRefused, cfg.ComponentsSpan, "", "check refuses the file with the placements solve chose (shown as %s)", solvedName).Why =
			"Some of RLinf's rules can only be judged once every component has its devices (a model-parallel run's components, its modes); check's errors on the solved file are listed with this one. If a placement that check accepts exists, this is a bug in rlsolve: please report it with this input."
		return
	}
	s.Text, s.Edits = text, edits
	if len(opt.Overrides.List) > 0 {
		// A written file is read again without the command line: say
		// whether its placements still hold then (issue 25 item 4).
		for _, o := range opt.Overrides.List {
			s.NeedsOverrides = append(s.NeedsOverrides, o.Arg)
		}
		opt.Overrides = grammar.Overrides{}
		s.Standalone = CheckBytes(solvedName, text, opt)
	}
}

// onlyIn refuses edits outside the file solve writes: a requirement from
// a composed file or the command line.
func onlyIn(file string, edits []model.Edit) error {
	for _, e := range edits {
		if e.Span.File != file {
			return &render.WriteBackError{Span: e.Span, Msg: fmt.Sprintf("a requirement comes from %s, not from %s, the file solve writes; state it there", e.Span.File, file)}
		}
	}
	return nil
}

// settled drops the overrides into requirements solve placed: what they
// said is in the placements now, which is what check reads. (The file's
// requirement keys stay as written, without them: a later solve of the
// file places from the file's values.)
func settled(ovs grammar.Overrides, cfg *model.Config) grammar.Overrides {
	out := grammar.Overrides{Text: ovs.Text}
	for _, o := range ovs.List {
		if !intoRequirement(o.Key, cfg) {
			out.List = append(out.List, o)
		}
	}
	return out
}

// intoRequirement reports whether an override's key is a requirement
// entry of component_placement or lies under one.
func intoRequirement(key string, cfg *model.Config) bool {
	rest, ok := strings.CutPrefix(strings.TrimPrefix(key, "cluster."), "component_placement.")
	if !ok {
		return false
	}
	entry, _, _ := strings.Cut(rest, ".")
	for _, e := range cfg.Components {
		if e.Requirement != nil && slices.ContainsFunc(grammar.ParseNames(entry), func(n grammar.Name) bool { return slices.Contains(e.Names, n.Text) }) {
			return true
		}
	}
	return false
}

// Document is the result as `solve --output json` prints it.
func (s *Solved) Document() *render.SolveDocument {
	pl := s.Placement
	d := &render.SolveDocument{FormatVersion: "1", Objective: string(pl.Objective), Value: float64(pl.Value), Optimal: pl.Optimal,
		Components: map[string]string{}, NodeGroups: map[string][]string{}}
	if s.Cost > 0 {
		d.Objective, d.Value = "cost", s.Cost
	}
	for _, p := range pl.Placed {
		for _, n := range s.Config.Components[p.Entry].Names {
			d.Components[n] = p.Placement
			if len(p.Labels) > 0 {
				d.NodeGroups[n] = p.Labels
			}
		}
	}
	return d
}

// PreviousWorkers reads a previous plan's workers for the keep objective:
// each worker's node and local devices, by component, in rank order.
func PreviousWorkers(prev *model.PlanRecords) map[string][]solver.Worker {
	out := map[string][]solver.Worker{}
	for _, c := range prev.Components {
		ws := make([]solver.Worker, len(c.Workers))
		for r, w := range c.Workers {
			ws[r] = solver.Worker{Node: w.ClusterNodeRank, Devices: w.LocalHardwareRanks}
		}
		out[c.Name] = ws
	}
	return out
}
