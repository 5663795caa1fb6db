// Package buildinfo says which rlsolve a binary is: its module version and
// the VCS revision it was built from, as far as the build recorded them.
package buildinfo

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Release holds the version and revision the linker set where the build
// records neither: scripts/wheel.sh passes the wheel's version and the
// commit (-X main.releaseVersion=...; the command copies them here), since
// a wheel's binary is built with -trimpath outside any module proxy.
var Release struct{ Version, Revision string }

// Short is the short version (SARIF's tool version): the module version
// when built from a tagged module, else the VCS revision, else "devel".
func Short() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	v, rev, _, _ := read(bi)
	switch {
	case v != "":
		return v
	case rev != "":
		return "devel-" + shortRev(rev)
	}
	return "devel"
}

// Text is what both `rlsolve version` and `rlsolve --version` print.
func Text() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "rlsolve (no build information)"
	}
	return Line(bi)
}

// read reads the build info: the module version ("" for a build from a
// checkout), the VCS revision and time, and whether the tree had changes.
func read(bi *debug.BuildInfo) (v, rev, at string, modified bool) {
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
		v = Release.Version
	}
	if rev == "" {
		rev = Release.Revision
	}
	return v, rev, at, modified
}

// Line is the module path and version, then the revision it was built
// from, as far as bi records them.
func Line(bi *debug.BuildInfo) string {
	v, rev, at, modified := read(bi)
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

func shortRev(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}
