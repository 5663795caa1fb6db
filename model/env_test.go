package model

import (
	"slices"
	"testing"
)

// TestMergeEnvPaths: how a planned path-like value meets the inherited
// one, in each case the shell lines of `plan --output env` also handle.
func TestMergeEnvPaths(t *testing.T) {
	for _, c := range []struct {
		name string
		base []string
		set  map[string]string
		want []string
	}{
		{"inherited: planned entries first, each once, empty ones dropped",
			[]string{"PATH=/usr/bin::/bin:/usr/bin"}, map[string]string{"PATH": "/opt/a:/usr/bin::/opt/a"}, []string{"PATH=/opt/a:/usr/bin:/bin"}},
		{"not inherited: the planned value as it is",
			nil, map[string]string{"PYTHONPATH": "/p::/p"}, []string{"PYTHONPATH=/p::/p"}},
		{"inherited empty: still merged, so deduplicated",
			[]string{"CPATH="}, map[string]string{"CPATH": "/i:/i"}, []string{"CPATH=/i"}},
		{"override inherited",
			[]string{"PATH=/bin", "RLINF_PATH_ENV_MERGE_MODE=override"}, map[string]string{"PATH": "/opt/a"}, []string{"PATH=/opt/a", "RLINF_PATH_ENV_MERGE_MODE=override"}},
		{"the plan's mode wins over the inherited one",
			[]string{"PATH=/bin", "RLINF_PATH_ENV_MERGE_MODE=override"}, map[string]string{"PATH": "/opt/a", "RLINF_PATH_ENV_MERGE_MODE": "append"},
			[]string{"PATH=/opt/a:/bin", "RLINF_PATH_ENV_MERGE_MODE=append"}},
		{"not path-like: replaced",
			[]string{"HOME=/root", "A=1", "A=2"}, map[string]string{"HOME": "/home/x"}, []string{"A=2", "HOME=/home/x"}},
	} {
		if got := MergeEnv(c.base, c.set); !slices.Equal(got, c.want) {
			t.Errorf("%s: MergeEnv = %q, want %q", c.name, got, c.want)
		}
	}
	for _, k := range []string{"PATH", "PYTHONPATH", "LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH", "CMAKE_PREFIX_PATH", "PKG_CONFIG_PATH"} {
		if !PathLikeEnv(k) {
			t.Errorf("%s is path-like", k)
		}
	}
	if PathLikeEnv("HOME") || PathLikeEnv("") || PathLikeEnv("path") {
		t.Error("only the listed names are path-like")
	}
}
