package main

import (
	"fmt"

	"github.com/rlsolve/rlsolve/internal/buildinfo"
	"github.com/spf13/cobra"
)

// releaseVersion and releaseRevision are set by the linker (scripts/wheel.sh:
// -X main.releaseVersion=...) where the build records neither.
var releaseVersion, releaseRevision string

func init() {
	buildinfo.Release.Version, buildinfo.Release.Revision = releaseVersion, releaseRevision
	register(newVersion)
}

func newVersion() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print rlsolve's module version and the revision it was built from",
		Long:    help("version"),
		Example: "  rlsolve version",
		Args:    cobra.NoArgs,
		Run: func(cmd *cobra.Command, args []string) {
			fmt.Println(buildinfo.Text())
		},
	}
}
