package main

import (
	"os"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/spf13/cobra"
)

func init() { register(newExplain) }

func newExplain() *cobra.Command {
	return &cobra.Command{
		Use:     "explain [CODE]",
		Short:   "Explain a diagnostic code, with an example; without CODE, list all codes",
		Example: help("explain.example"),
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				diag.WriteCodes(os.Stdout)
				return nil
			}
			e, ok := diag.Explain(args[0])
			if !ok {
				return usageErrorf("unknown code %q; run 'rlsolve explain' for the list", args[0])
			}
			diag.WriteExplanation(os.Stdout, e)
			return nil
		},
	}
}
