package main

import (
	"os"

	"github.com/rlsolve/rlsolve/schema"
	"github.com/spf13/cobra"
)

func init() { register(newSchema) }

func newSchema() *cobra.Command {
	return &cobra.Command{
		Use:   "schema [cluster|inventory]",
		Short: "Print the JSON Schema of the cluster section or of an inventory, for YAML editors",
		Long: `schema prints a JSON Schema (draft-07) of what rlsolve reads, so that YAML
editors with yaml-language-server (VS Code's YAML extension, Neovim, Helix...)
complete keys and flag mistakes as you type:

  cluster    an RLinf training config's cluster: section (the default),
             including an optional inventory: key
  inventory  an inventory file (--inventory FILE)

Save it next to your configs and point a config at it with a modeline on its
first line (the path is relative to the YAML file):

  # yaml-language-server: $schema=./rlsolve-cluster.schema.json

The schema checks keys and types; 'rlsolve check' still does the rest
(rank ranges, placements, conflicts).`,
		Example: `  rlsolve schema > rlsolve-cluster.schema.json
  rlsolve schema inventory > rlsolve-inventory.schema.json
  sed -i '1i # yaml-language-server: $schema=./rlsolve-cluster.schema.json' train.yaml`,
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
