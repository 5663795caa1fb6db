package main

import (
	"io"
	"os"
	"slices"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/internal/buildinfo"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/spf13/cobra"
)

func init() { register(newCheck) }

func newCheck() *cobra.Command {
	var in inputFlags
	var output string
	var fix bool
	var fo pipeline.FixOptions
	c := &cobra.Command{
		Use:     "check FILE... [KEY=VALUE...]",
		Short:   "Validate configs: every problem with file:line:col and a way out",
		Long:    help("check"),
		Example: help("check.example"),
		Args: func(cmd *cobra.Command, args []string) error {
			if in.slime != "" {
				return nil // the --slime flags are the layout; FILE is optional
			}
			return cobra.MinimumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := in.prepare(); err != nil {
				return err
			}
			args, err := in.files(args)
			if err != nil {
				return err
			}
			if args, err = in.expandDirs(args); err != nil {
				return err
			}
			if len(args) == 0 && in.slime == "" {
				return usageErrorf("check needs a config FILE before its overrides")
			}
			if err := checkOutput(output, checkOutputs, ""); err != nil {
				return err
			}
			if err := pipeline.StdinOnce(args, in.slime); err != nil {
				return usageErrorf("%v", err)
			}
			if (fo.Shared || fo.Write.ForceReadOnly || fo.Diff) && !fix {
				return usageErrorf("--fix-shared, --force-readonly and --diff go with --fix")
			}
			if fix {
				return in.fixAll(args, output, fo)
			}
			outs, src := in.checkAll(args)
			if err := printCheck(outs, src, output, in.quiet); err != nil {
				return err
			}
			return exitFor(outs)
		},
	}
	in.register(c)
	c.Flags().StringVarP(&output, "output", "o", checkOutputs[0], outputHelp(checkOutputs))
	c.Flags().BoolVar(&fix, "fix", false, "write the first fix of each diagnostic into FILE, if it is still what check read, and check again")
	c.Flags().BoolVar(&fo.Shared, "fix-shared", false, "with --fix: also fix files the defaults list composes, once every config under FILE's folder that composes them still passes")
	c.Flags().BoolVar(&fo.Write.ForceReadOnly, "force-readonly", false, "with --fix: write files that are read-only (no write bit) too")
	c.Flags().BoolVar(&fo.Diff, "diff", false, "with --fix: print the first round's fixes as a unified diff on stdout and write nothing")
	completeFlagValues(c, checkOutputs...)
	return c
}

// printCheck writes check's outcomes in the --output format.
func printCheck(outs []*pipeline.Outcome, src diag.Sources, output string, quiet bool) error {
	return pipeline.WriteCheck(outs, src, pipeline.CheckOutput{Format: output, Quiet: quiet, Color: useColor(),
		ToolVersion: buildinfo.Short(), Stdout: os.Stdout, Stderr: os.Stderr})
}

// expandDirs replaces each folder among the files by the configs in it.
func (in *inputFlags) expandDirs(args []string) ([]string, error) {
	var log io.Writer = os.Stderr
	if in.quiet {
		log = nil
	}
	out, err := pipeline.ExpandDirs(args, log)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	if len(out) > 0 {
		in.first = out[0]
	}
	return out, nil
}

// checkAll checks every FILE (or the --slime flags alone), each read
// once; the sources hold the --slime string for code frames.
func (in *inputFlags) checkAll(args []string) ([]*pipeline.Outcome, diag.Sources) {
	src := in.sources()
	inv, command, source, bad := in.inputs()
	if bad != nil {
		return []*pipeline.Outcome{bad}, src
	}
	return pipeline.CheckAll(args, command, in.options(inv, source), src), src
}

// fixAll runs check --fix on every FILE: the fixes written (on stderr),
// then the check of the files as they are now, in the chosen output.
func (in *inputFlags) fixAll(args []string, output string, fo pipeline.FixOptions) error {
	if slices.Contains(args, "-") {
		return usageErrorf("--fix writes files: it cannot fix standard input")
	}
	if len(args) == 0 {
		return usageErrorf("--fix writes files: give the config FILE (a --slime string cannot be fixed in place)")
	}
	inv, bad := in.loadInventory()
	if bad != nil {
		return reportOutcome(bad, in.sources())
	}
	outs, err := pipeline.FixAll(args, in.options(inv, ""), fo, os.Stdout, os.Stderr)
	if err != nil {
		return &exitError{code: exitUsage, msg: err.Error()}
	}
	if fo.Diff {
		return exitFor(outs) // stdout holds the diff alone; the status is the files' as they are
	}
	src := in.sources()
	for _, o := range outs {
		o.AddSources(src)
	}
	if err := printCheck(outs, src, output, in.quiet); err != nil {
		return err
	}
	return exitFor(outs)
}
