package main

import (
	"os"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/render"
	"github.com/spf13/cobra"
)

// runPlanDiff compares two plans, each a plan document or a config
// planned as plan plans one, and prints which workers changed.
func runPlanDiff(in *inputFlags, args []string, output string) error {
	format, ok := render.ParseFormat(output)
	if ok {
		output = string(format)
	}
	if err := checkOutput(output, diffOutputs, "--diff"); err != nil {
		return err
	}
	if err := in.prepare(); err != nil {
		return err
	}
	files, err := in.files(args)
	if err != nil {
		return err
	}
	if files[0] == "-" && files[1] == "-" {
		return usageErrorf("--diff reads one plan from standard input (-), not both")
	}
	inv, bad := in.loadInventory()
	if bad != nil {
		return reportOutcome(bad, in.sources())
	}
	var plans [2]*model.PlanRecords
	var names [2]string
	for i, file := range files {
		names[i] = pipeline.PlanName(file)
		if plans[i], err = diffSide(in, file, in.options(inv, "")); err != nil {
			return err
		}
	}
	d := model.DiffPlans(plans[0], plans[1])
	if format == render.FormatJSON {
		return render.WriteDiffJSON(os.Stdout, &d, names[0], names[1])
	}
	return render.WriteDiffTable(os.Stdout, &d, names[0], names[1])
}

// diffSide reads one plan of a diff: a plan document, or a config checked
// and planned.
func diffSide(in *inputFlags, file string, opt pipeline.Options) (*model.PlanRecords, error) {
	recs, isDoc, bad, err := pipeline.ReadPlanRecords(file, os.Stdin)
	switch {
	case bad != nil:
		return nil, reportOutcome(bad, in.sources())
	case isDoc:
		return recs, err
	}
	o, so := pipeline.Check(file, "", opt)
	input, err := planned(in, o, so, in.sources(), false)
	if err != nil {
		return nil, err
	}
	return render.PlanRecords(input)
}

// completeDiffArgs completes plan's arguments under --diff: two plans,
// plan documents (JSON) or configs.
func completeDiffArgs(c *cobra.Command, diff *bool) {
	configs := c.ValidArgsFunction
	c.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		switch {
		case !*diff:
			return configs(cmd, args, toComplete)
		case len(args) >= 2:
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return []string{"json", "yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
	}
}
