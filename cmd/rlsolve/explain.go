package main

import (
	"fmt"
	"os"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/spf13/cobra"
)

func init() { register(newExplain) }

func newExplain() *cobra.Command {
	return &cobra.Command{
		Use:   "explain [CODE]",
		Short: "Explain a diagnostic code, with an example; without CODE, list all codes",
		Example: `  rlsolve explain RLS-E0401
  rlsolve explain e0106
  rlsolve explain`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				for _, e := range diag.Codes() {
					fmt.Printf("%s  %s\n", e.Code, e.Title)
				}
				return nil
			}
			e, ok := diag.Explain(args[0])
			if !ok {
				return usageErrorf("unknown code %q; run 'rlsolve explain' for the list", args[0])
			}
			fmt.Fprintf(os.Stdout, "%s: %s\n\n%s\n\nExample:\n\n%s\n", e.Code, e.Title, e.Text, indent(e.Example))
			return nil
		},
	}
}

func indent(s string) string {
	out := "    "
	for _, r := range s {
		out += string(r)
		if r == '\n' {
			out += "    "
		}
	}
	return out
}
