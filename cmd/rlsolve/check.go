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
		Use:   "check FILE...",
		Short: "Validate configs: every problem with file:line:col and a way out",
		Long: `check runs every validation RLinf makes (including those RLinf only makes when
it launches workers) and rlsolve's own (YAML 1.1 surprises, D1-D13 of the spec).
Diagnostics go to stderr as code frames; --output json|sarif prints a document
on stdout instead.`,
		Example: `  rlsolve check train.yaml
  rlsolve check train.yaml --inventory cluster.yaml --strict
  rlsolve check configs/*.yaml --output short
  rlsolve check train.yaml --output sarif > rlsolve.sarif`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := in.strategyMode(); err != nil {
				return err
			}
			switch output {
			case "text", "short", "json", "sarif":
			default:
				return usageErrorf("--output must be text, short, json or sarif, not %q", output)
			}
			inv, bad := in.loadInventory()
			var outs []*pipeline.Outcome
			if bad != nil {
				outs = append(outs, bad)
			} else {
				for _, f := range args {
					outs = append(outs, in.analyze(f, inv))
				}
			}
			if err := printCheck(outs, output, in.strict); err != nil {
				return err
			}
			return exitFor(outs, in.strict)
		},
	}
	in.register(c)
	c.Flags().StringVarP(&output, "output", "o", "text", "output format: text, short, json or sarif")
	return c
}

func printCheck(outs []*pipeline.Outcome, output string, strict bool) error {
	var all model.Diagnostics
	for _, o := range outs {
		all = append(all, o.Diagnostics...)
	}
	switch output {
	case "text":
		src := diag.DiskSources()
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
