package main

import (
	"os"

	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/spf13/cobra"
)

func init() { register(newCompose) }

func newCompose() *cobra.Command {
	return &cobra.Command{
		Use:     "compose FILE [KEY=VALUE...]",
		Short:   "Print a config as rlsolve composes it (defaults list, overrides), with where each value came from",
		Long:    help("compose"),
		Example: help("compose.example"),
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var in inputFlags
			files, err := in.files(args)
			if err != nil {
				return err
			}
			if len(files) != 1 {
				return usageErrorf("compose takes one config FILE, then its overrides")
			}
			return composeFile(files[0], &in)
		},
	}
}

func composeFile(file string, in *inputFlags) error {
	c := pipeline.Compose(file, os.Stdin, in.overrides)
	src := in.sources()
	if c.ReadFailed {
		return report(c.Diagnostics, src, c.File, nil, exitUsage)
	}
	src.Files[c.File] = c.Data
	if c.Doc == nil {
		return report(c.Diagnostics, src, c.File, nil, exitInvalid)
	}
	return c.Doc.WriteJSON(os.Stdout)
}
