package main

import (
	"os"

	"github.com/rlsolve/rlsolve/schema"
	"github.com/spf13/cobra"
)

func init() { register(newSchema) }

func newSchema() *cobra.Command {
	return &cobra.Command{
		Use:       "schema [cluster|inventory]",
		Short:     "Print the JSON Schema of the cluster section or of an inventory, for YAML editors",
		Long:      help("schema"),
		Example:   help("schema.example"),
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: schema.Names,
		RunE: func(cmd *cobra.Command, args []string) error {
			name := "cluster"
			if len(args) == 1 {
				name = args[0]
			}
			if _, ok := schema.Source(name); !ok {
				return usageErrorf("unknown schema %q: use cluster or inventory", name)
			}
			data, err := schema.Get(name)
			if err != nil {
				return &exitError{code: exitInternal, msg: err.Error()}
			}
			if _, err := os.Stdout.Write(data); err != nil {
				return &exitError{code: exitUsage, msg: err.Error()}
			}
			return nil
		},
	}
}
