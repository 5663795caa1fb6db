package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestLine(t *testing.T) {
	for _, tc := range []struct {
		main     debug.Module
		settings []debug.BuildSetting
		line     string
		short    string
	}{
		{debug.Module{Path: "github.com/rlsolve/rlsolve", Version: "v1.2.0"}, nil,
			"rlsolve github.com/rlsolve/rlsolve v1.2.0, go1.26", "v1.2.0"},
		{debug.Module{Path: "github.com/rlsolve/rlsolve", Version: "(devel)"},
			[]debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2025-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"}},
			"rlsolve github.com/rlsolve/rlsolve (devel) (revision 0123456789abcdef0123, 2025-01-02T03:04:05Z, with local changes), go1.26", "devel-0123456789ab"},
		{debug.Module{Path: "github.com/rlsolve/rlsolve"}, []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}},
			"rlsolve github.com/rlsolve/rlsolve (devel) (revision abc), go1.26", "devel-abc"},
	} {
		bi := &debug.BuildInfo{GoVersion: "go1.26", Main: tc.main, Settings: tc.settings}
		if got := Line(bi); got != tc.line {
			t.Errorf("Line = %q, want %q", got, tc.line)
		}
		v, rev, _, _ := read(bi)
		got := v
		if got == "" {
			got = "devel-" + shortRev(rev)
		}
		if got != tc.short {
			t.Errorf("short version %q, want %q", got, tc.short)
		}
	}
}

// A wheel's binary records neither a module version nor a revision; the
// linker's values stand in for them, and the build's own win.
func TestLineFromLinker(t *testing.T) {
	defer func(r struct{ Version, Revision string }) { Release = r }(Release)
	Release.Version, Release.Revision = "0.0.0.dev208", "fedcba9876543210"
	bi := &debug.BuildInfo{GoVersion: "go1.26", Main: debug.Module{Path: "github.com/rlsolve/rlsolve", Version: "(devel)"}}
	if got, want := Line(bi), "rlsolve github.com/rlsolve/rlsolve 0.0.0.dev208 (revision fedcba9876543210), go1.26"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
	bi.Main.Version = "v1.2.0"
	bi.Settings = []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}
	if got, want := Line(bi), "rlsolve github.com/rlsolve/rlsolve v1.2.0 (revision abc), go1.26"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
}
