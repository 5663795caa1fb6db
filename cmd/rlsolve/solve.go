package main

import (
	"fmt"
	"os"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/internal/textedit"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/suggest"
	"github.com/spf13/cobra"
)

func init() { register(newSolve) }

// solveFlags are solve's own flags beside the input flags.
type solveFlags struct {
	in        inputFlags
	objective string
	output    string
	write     bool
	// forceReadOnly is --force-readonly: --write may write a read-only file.
	forceReadOnly bool
	from          string
	without       []int
	stats         bool
}

func newSolve() *cobra.Command {
	f := &solveFlags{}
	c := &cobra.Command{
		Use:     "solve FILE [KEY=VALUE...]",
		Short:   "Place components from what they need: the solver chooses the devices",
		Long:    help("solve"),
		Example: help("solve.example"),
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSolve(cmd, f, args)
		},
	}
	f.in.register(c)
	c.Flags().StringVar(&f.objective, "objective", "", "what to optimize: pack, spread, keep or cost (default pack; keep with --from)")
	c.Flags().StringVarP(&f.output, "output", "o", solveOutputs[0], outputHelp(solveOutputs)+": the config, its placements, or the plan document")
	c.Flags().BoolVarP(&f.write, "write", "w", false, "write the placements into FILE (atomically) instead of printing it")
	c.Flags().BoolVar(&f.forceReadOnly, "force-readonly", false, "with --write: write FILE even if it is read-only (no write bit)")
	c.Flags().StringVar(&f.from, "from", "", "a previous plan document (plan --output json): keep its workers where they are")
	c.Flags().IntSliceVar(&f.without, "without-node", nil, "a node rank solve must not use (repeatable)")
	c.Flags().BoolVar(&f.stats, "stats", false, "print the size of the SAT instance and the solver's calls and time on stderr")
	completeFlagValues(c, solveOutputs...)
	_ = c.RegisterFlagCompletionFunc("objective", cobra.FixedCompletions(pipeline.ObjectiveNames(), cobra.ShellCompDirectiveNoFileComp))
	_ = c.MarkFlagFilename("from", "json")
	return c
}

// solveOptions checks solve's flags and reads the previous plan.
func (f *solveFlags) solveOptions(inv *model.Inventory) (pipeline.SolveOptions, error) {
	opt := pipeline.SolveOptions{Options: f.in.options(inv, ""), Without: f.without}
	obj, cost, ok, err := pipeline.ParseObjective(f.objective, f.from != "")
	switch {
	case !ok:
		return opt, usageErrorf("--objective must be %s, not %q", orList(pipeline.ObjectiveNames()), f.objective)
	case err != nil:
		return opt, usageErrorf("%v", err)
	case cost:
		opt.CostModel = suggest.CostModel(suggest.Options{SolverBudget: f.in.budget})
	}
	opt.Objective = obj
	for _, n := range f.without {
		if n < 0 {
			return opt, usageErrorf("--without-node %d: node ranks count from 0", n)
		}
	}
	if err := checkOutput(f.output, solveOutputs, ""); err != nil {
		return opt, err
	}
	if f.forceReadOnly && !f.write {
		return opt, usageErrorf("--force-readonly goes with --write")
	}
	if f.write && f.output != "yaml" {
		return opt, usageErrorf("--write writes the config; it does not combine with --output %s", f.output)
	}
	return opt, nil
}

// previous reads --from: the plan whose workers keep stays close to.
func (f *solveFlags) previous() (*model.PlanRecords, error) {
	recs, doc, bad, err := pipeline.ReadPlanRecords(f.from, os.Stdin)
	switch {
	case bad != nil:
		return nil, reportOutcome(bad, f.in.sources())
	case !doc && err != nil:
		return nil, &exitError{code: exitUsage, msg: fmt.Sprintf("--from: %v", err)}
	case !doc:
		return nil, usageErrorf("--from %s is not a plan document (rlsolve plan --output json writes one)", f.from)
	}
	return recs, err
}

func runSolve(cmd *cobra.Command, f *solveFlags, args []string) error {
	if err := f.in.prepare(); err != nil {
		return err
	}
	files, err := f.in.files(args)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		return usageErrorf("solve takes one config FILE (then KEY=VALUE overrides), not %d", len(files))
	}
	file := files[0]
	inv, bad := f.in.loadInventory()
	if bad != nil {
		return reportOutcome(bad, f.in.sources())
	}
	opt, err := f.solveOptions(inv)
	if err != nil {
		return err
	}
	var prev *model.PlanRecords
	if f.from != "" {
		if prev, err = f.previous(); err != nil {
			return err
		}
		opt.Previous = pipeline.PreviousWorkers(prev)
	}
	if f.write && file == "-" {
		return usageErrorf("--write writes the config FILE: it cannot write standard input")
	}
	s := pipeline.SolveFile(file, opt)
	if f.stats {
		fmt.Fprint(os.Stderr, s.StatsLine())
	}
	return f.report(s, prev)
}

// report prints what solve found: diagnostics on stderr, the result on
// stdout (or in the file), the moves from --from's plan on stderr.
func (f *solveFlags) report(s *pipeline.Solved, prev *model.PlanRecords) error {
	src := f.in.sources()
	s.AddSources(src)
	if s.Text == nil {
		if f.output == "json" {
			if err := diag.WriteCheckEnvelope(os.Stdout, false, s.Diagnostics); err != nil {
				return err
			}
			return exitFor([]*pipeline.Outcome{s.Outcome})
		}
		return reportOutcome(s.Outcome, src)
	}
	diag.Text(os.Stderr, s.Diagnostics, src, useColor())
	if prev != nil && s.Verified.Result != nil {
		if err := s.WriteMoves(os.Stderr, prev, f.from); err != nil {
			return err
		}
	}
	if err := f.writeResult(s); err != nil {
		return err
	}
	return exitFor([]*pipeline.Outcome{s.Outcome})
}

// writeResult prints the solved config, its placements or its plan, or
// writes the config back.
func (f *solveFlags) writeResult(s *pipeline.Solved) error {
	if !f.write {
		return s.WriteResult(os.Stdout, f.output)
	}
	if err := s.WriteBack(textedit.WriteOptions{ForceReadOnly: f.forceReadOnly}, os.Stderr); err != nil {
		return &exitError{code: exitUsage, msg: err.Error()}
	}
	return nil
}
