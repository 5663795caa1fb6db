package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionLine(t *testing.T) {
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
		if got := versionLine(bi); got != tc.line {
			t.Errorf("versionLine = %q, want %q", got, tc.line)
		}
		v, rev, _, _ := buildVersion(bi)
		got := v
		if got == "" {
			got = "devel-" + short(rev)
		}
		if got != tc.short {
			t.Errorf("short version %q, want %q", got, tc.short)
		}
	}
}
