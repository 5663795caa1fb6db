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
		Use:   "version",
		Short: "Print rlsolve's module version and the revision it was built from",
		Long: `version prints the module path and version and, when the binary was built
from a checkout, the VCS revision and its time (go install ./cmd/rlsolve and
go build record them), then the Go version.`,
		Example: "  rlsolve version",
		Args:    cobra.NoArgs,
		Run: func(cmd *cobra.Command, args []string) {
			fmt.Println(buildinfo.Text())
		},
	}
}
