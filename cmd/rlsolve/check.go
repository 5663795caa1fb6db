package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/spf13/cobra"
)

func init() { register(newCheck) }

func newCheck() *cobra.Command {
	var in inputFlags
	var output string
	c := &cobra.Command{
		Use:   "check FILE... [KEY=VALUE...]",
		Short: "Validate configs: every problem with file:line:col and a way out",
		Long: `check runs every validation RLinf makes (including those RLinf only makes when
it launches workers) and rlsolve's own (YAML 1.1 surprises, D1-D13 of the spec).
Diagnostics go to stderr as code frames; --output json|sarif prints a document
on stdout instead.

A config's Hydra defaults list is composed as RLinf's entry points compose it
(config groups beside the file and in hydra.searchpath), then Hydra overrides
after the files apply: key=value, +key=value (add), ++key=value (add or set),
~key (delete), group=option. Values they set point at <command line>.`,
		Example: `  rlsolve check train.yaml
  rlsolve check train.yaml cluster.num_nodes=2 actor.model.tensor_model_parallel_size=4
  rlsolve check train.yaml --inventory cluster.yaml --strict
  rlsolve check configs/*.yaml --output short
  rlsolve check train.yaml --output sarif > rlsolve.sarif`,
		Args: func(cmd *cobra.Command, args []string) error {
			if in.slime != "" {
				return nil // the --slime flags are the layout; FILE is optional
			}
			return cobra.MinimumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := in.class(); err != nil {
				return err
			}
			args, err := in.files(args)
			if err != nil {
				return err
			}
			if len(args) == 0 && in.slime == "" {
				return usageErrorf("check needs a config FILE before its overrides")
			}
			switch output {
			case "text", "short", "json", "sarif":
			default:
				return usageErrorf("--output must be text, short, json or sarif, not %q", output)
			}
			outs, src := in.checkAll(args)
			if err := printCheck(outs, src, output, in.strict); err != nil {
				return err
			}
			return exitFor(outs, in.strict)
		},
	}
	in.register(c)
	c.Flags().StringVarP(&output, "output", "o", "text", "output format: text, short, json or sarif")
	completeFlagValues(c, "text", "short", "json", "sarif")
	return c
}

func printCheck(outs []*pipeline.Outcome, src diag.Sources, output string, strict bool) error {
	var all model.Diagnostics
	for _, o := range outs {
		all = append(all, o.Diagnostics...)
	}
	switch output {
	case "text":
		for _, o := range outs {
			diag.Text(os.Stderr, o.Diagnostics, src, useColor())
			diag.Summary(os.Stderr, o.Diagnostics, o.File)
			strictNote(o, strict)
		}
	case "short":
		diag.Short(os.Stderr, all)
	case "json":
		valid := true
		for _, o := range outs {
			valid = valid && !o.Failed(strict)
		}
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(diag.CheckEnvelope(valid, all))
	case "sarif":
		return diag.SARIF(os.Stdout, all, version())
	}
	return nil
}

// strictNote says why a file with only warnings failed.
func strictNote(o *pipeline.Outcome, strict bool) {
	if strict && !o.Diagnostics.HasErrors() && o.Diagnostics.Count(model.SeverityWarning) > 0 {
		fmt.Fprintf(os.Stderr, "%s: failed because --strict treats warnings as errors\n", o.File)
	}
}

// checkAll checks every FILE (or the --slime flags alone), each read
// once; the sources hold the --slime string for code frames.
func (in *inputFlags) checkAll(args []string) ([]*pipeline.Outcome, diag.Sources) {
	src := in.sources()
	inv, bad := in.loadInventory()
	command, source := "", ""
	if bad == nil && in.slime != "" {
		command, source, bad = in.slimeCommand()
	}
	if bad != nil {
		return []*pipeline.Outcome{bad}, src
	}
	files := args
	if len(files) == 0 {
		files = []string{""}
	}
	class, _ := in.class()
	var outs []*pipeline.Outcome
	for _, f := range files {
		o, _ := pipeline.Check(f, command, in.options(inv, class, source))
		for name, text := range o.Sources {
			src.Files[name] = text
		}
		outs = append(outs, o)
	}
	return outs, src
}
