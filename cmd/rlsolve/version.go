package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// version is the short version (SARIF's tool version): the module version
// when built from a tagged module, else the VCS revision, else "devel".
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	v, rev, _, _ := buildVersion(bi)
	switch {
	case v != "":
		return v
	case rev != "":
		return "devel-" + short(rev)
	}
	return "devel"
}

// releaseVersion and releaseRevision are set by the linker where the build
// records no module version or VCS revision: scripts/wheel.sh passes the
// wheel's version and the commit (-X main.releaseVersion=...), since a
// wheel's binary is built with -trimpath outside any module proxy.
var releaseVersion, releaseRevision string

// buildVersion reads the build info: the module version ("" for a build
// from a checkout), the VCS revision and time, and whether the tree had
// changes.
func buildVersion(bi *debug.BuildInfo) (v, rev, at string, modified bool) {
	if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if v == "" {
		v = releaseVersion
	}
	if rev == "" {
		rev = releaseRevision
	}
	return v, rev, at, modified
}

// versionLine is what `rlsolve version` prints: the module path and
// version, then the revision it was built from, as far as the build
// recorded them.
func versionLine(bi *debug.BuildInfo) string {
	v, rev, at, modified := buildVersion(bi)
	if v == "" {
		v = "(devel)"
	}
	line := fmt.Sprintf("rlsolve %s %s", bi.Main.Path, v)
	var vcs []string
	if rev != "" {
		vcs = append(vcs, "revision "+rev)
	}
	if at != "" {
		vcs = append(vcs, at)
	}
	if modified {
		vcs = append(vcs, "with local changes")
	}
	if len(vcs) > 0 {
		line += " (" + strings.Join(vcs, ", ") + ")"
	}
	if bi.GoVersion != "" {
		line += ", " + bi.GoVersion
	}
	return line
}

func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}

func init() { register(newVersion) }

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
			fmt.Println(versionText())
		},
	}
}

// versionText is what both `rlsolve version` and `rlsolve --version` print.
func versionText() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "rlsolve (no build information)"
	}
	return versionLine(bi)
}
