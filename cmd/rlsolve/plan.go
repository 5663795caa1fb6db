package main

import (
	"io"
	"os"

	"github.com/rlsolve/rlsolve/diag"
	rlexec "github.com/rlsolve/rlsolve/exec"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/render"
	"github.com/spf13/cobra"
)

func init() { register(newPlan) }

func newPlan() *cobra.Command {
	var in inputFlags
	var output, component string
	var rank int
	var full, diff bool
	c := &cobra.Command{
		Use:     "plan FILE [KEY=VALUE...] | --diff OLD NEW [KEY=VALUE...]",
		Short:   "Show where every worker lands: node, GPUs, ranks, environment",
		Long:    help("plan"),
		Example: help("plan.example"),
		Args: func(cmd *cobra.Command, args []string) error {
			files, err := in.files(args)
			if err != nil {
				return err
			}
			switch {
			case diff && in.slime != "":
				return usageErrorf("--diff compares plan documents and configs, not --slime layouts")
			case diff && len(files) != 2:
				return usageErrorf("--diff needs two plans, OLD and NEW (each a plan document from --output json or a config), got %d", len(files))
			case diff:
				return nil
			case in.slime != "":
				return cobra.MaximumNArgs(1)(cmd, files) // the --slime flags are the layout; FILE is optional
			}
			return cobra.ExactArgs(1)(cmd, files)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if diff {
				return runPlanDiff(&in, args, output)
			}
			return runPlan(&in, args, planArgs{output, component, rank, full})
		},
	}
	in.register(c)
	c.Flags().BoolVar(&full, "diagnostics", false, "show the warnings and notes of a valid config in full (check shows them; plan counts them)")
	c.Flags().StringVarP(&output, "output", "o", planOutputs[0], outputHelp(planOutputs))
	c.Flags().StringVar(&component, "component", "", "with --output env: the component")
	c.Flags().IntVar(&rank, "rank", 0, "with --output env: the worker rank")
	c.Flags().BoolVar(&diff, "diff", false, "compare two plans, OLD and NEW (plan documents or configs): which workers changed node, devices or environment")
	completeFlagValues(c, planOutputs...)
	completeDiffArgs(c, &diff)
	return c
}

// planFormat reads --output, for RLinf configs and slime layouts alike
// ("text" is the table).
func planFormat(output, component string, slime bool) (render.Format, error) {
	f, ok := render.ParseFormat(output)
	if ok {
		output = string(f)
	}
	formats, usedFor := planOutputs, ""
	if slime {
		formats, usedFor = slimeOutputs, "a slime layout"
	}
	if err := checkOutput(output, formats, usedFor); err != nil {
		return "", err
	}
	if f == render.FormatEnv && component == "" {
		return "", usageErrorf("--output env needs --component NAME and --rank R")
	}
	return f, nil
}

// planArgs are plan's own flags.
type planArgs struct {
	output, component string
	rank              int
	// full shows a valid config's warnings and notes, not only their count.
	full bool
}

// runPlan checks and plans an RLinf config or a slime layout (--slime
// flags and/or a FILE with a slime: key) and writes the plan.
func runPlan(in *inputFlags, args []string, pa planArgs) error {
	if err := in.prepare(); err != nil {
		return err
	}
	args, err := in.files(args)
	if err != nil {
		return err
	}
	if err := pipeline.StdinOnce(args, in.slime); err != nil {
		return usageErrorf("%v", err)
	}
	file := ""
	if len(args) > 0 {
		file = args[0]
	}
	src := in.sources()
	inv, command, source, bad := in.inputs()
	if bad != nil {
		return reportOutcome(bad, src)
	}
	o, so := pipeline.Check(file, command, in.options(inv, source))
	format, err := planFormat(pa.output, pa.component, so != nil)
	if err != nil {
		return err
	}
	input, err := planned(in, o, so, src, pa.full)
	if err != nil {
		return err
	}
	return writePlan(os.Stdout, input, format, file, pa.component, pa.rank)
}

// planned prints a checked config's diagnostics and returns its plan, or
// the error plan exits with when there is none.
func planned(in *inputFlags, o *pipeline.Outcome, so *pipeline.SlimeOutcome, src diag.Sources, full bool) (*render.Input, error) {
	o.AddSources(src)
	input := o.RenderInput()
	if so != nil {
		input = so.RenderInput()
	}
	if o.Failed() || input == nil {
		if err := reportOutcome(o, src); err != nil {
			return nil, err
		}
		return nil, &exitError{code: exitInvalid}
	}
	pipeline.WritePlanDiagnostics(os.Stderr, o, src, pipeline.PlanDiagnostics{Full: full, Quiet: in.quiet, Color: useColor()})
	return input, nil
}

// writePlan writes the plan in format; title heads a picture.
func writePlan(w io.Writer, in *render.Input, format render.Format, title, component string, rank int) error {
	if format != render.FormatEnv {
		return render.Write(w, in, format, title)
	}
	cp := in.Plan.Component(component)
	if cp == nil {
		where := title
		if where == "" {
			where = "the --slime layout"
		}
		return usageErrorf("--component: %v", rlexec.UnknownComponent(in.Plan, component, where))
	}
	if rank < 0 || rank >= cp.Placements.Len() {
		return usageErrorf("--rank must be between 0 and %d for %s", cp.Placements.Len()-1, component)
	}
	return render.WriteEnv(w, in, cp, rank)
}
