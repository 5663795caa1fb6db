package grammar

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An argument is an override when it looks like one, unless it names a
// file.
func TestSplitArgs(t *testing.T) {
	dir := t.TempDir()
	odd := filepath.Join(dir, "a=b.yaml")
	if err := os.WriteFile(odd, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	files, ovs, err := SplitArgs([]string{"train.yaml", "cluster.num_nodes=2", odd, "+x=1", "~y"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(files, " ") != "train.yaml "+odd {
		t.Errorf("files %q", files)
	}
	if ovs.Text != "cluster.num_nodes=2 +x=1 ~y" || len(ovs.List) != 3 {
		t.Errorf("overrides %q (%d)", ovs.Text, len(ovs.List))
	}
	if _, _, err := SplitArgs([]string{"a=1,2"}); err == nil {
		t.Error("a sweep is accepted")
	}
}

func TestParseEnv(t *testing.T) {
	env, err := ParseEnv([]string{"A=1", "B_2=x=y", "C="})
	if err != nil || env["A"] != "1" || env["B_2"] != "x=y" || len(env) != 3 {
		t.Errorf("%v %v", env, err)
	}
	for _, bad := range []string{"A", "1A=x", "=x", "A-B=1"} {
		if _, err := ParseEnv([]string{bad}); err == nil || !strings.Contains(err.Error(), "give NAME=VALUE") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if env, err := ParseEnv(nil); env != nil || err != nil {
		t.Errorf("none: %v %v", env, err)
	}
}

// ParseEnv never panics, and what it accepts round-trips: each NAME a
// shell name, its VALUE everything after the first '='.
func FuzzParseEnv(f *testing.F) {
	for _, s := range []string{"A=1", "B_2=x=y", "=x", "A", "1A=x", "A=\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		env, err := ParseEnv([]string{s})
		if err != nil {
			return
		}
		name, value, _ := strings.Cut(s, "=")
		if len(env) != 1 || env[name] != value || !IsShellName(name) {
			t.Errorf("%q: %v", s, env)
		}
	})
}
