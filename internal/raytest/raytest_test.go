package raytest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLookup(t *testing.T) {
	dir := t.TempDir()
	python := filepath.Join(dir, "python")
	write(t, python, "")
	state := filepath.Join(dir, "state")
	write(t, filepath.Join(state, "nodes"), "10.77.0.10 0\n10.77.0.9 1\n")
	good := map[string]string{
		"RLSOLVE_RAY_ADDRESS": "http://10.77.0.10:8265", "RLSOLVE_RAY_NODES": "2",
		"RLSOLVE_RAY_PYTHON": python, "RLSOLVE_RAY_MODE": "netns", "RLSOLVE_RAY_STATE": state,
	}
	with := func(k, v string) map[string]string {
		env := map[string]string{}
		for kk, vv := range good {
			env[kk] = vv
		}
		env[k] = v
		return env
	}
	up := func(string) error { return nil }
	down := func(string) error { return errors.New("connection refused") }
	tests := []struct {
		name    string
		env     map[string]string
		probe   func(string) error
		missing string
	}{
		{"usable", good, up, ""},
		{"no state dir: no layout, still usable", with("RLSOLVE_RAY_STATE", ""), up, ""},
		{"no address", with("RLSOLVE_RAY_ADDRESS", ""), up, "RLSOLVE_RAY_ADDRESS is not set"},
		{"bad count", with("RLSOLVE_RAY_NODES", "four"), up, `RLSOLVE_RAY_NODES="four"`},
		{"no python", with("RLSOLVE_RAY_PYTHON", filepath.Join(dir, "nope")), up, "is not a python"},
		{"python is a dir", with("RLSOLVE_RAY_PYTHON", dir), up, "is not a python"},
		{"count differs from the layout", with("RLSOLVE_RAY_NODES", "4"), up, "lists 2 nodes, RLSOLVE_RAY_NODES=4"},
		{"state without nodes", with("RLSOLVE_RAY_STATE", dir), up, "the cluster's node list"},
		{"unreachable", good, down, "http://10.77.0.10:8265 does not answer: connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, missing := lookup(func(k string) string { return tt.env[k] }, tt.probe)
			if tt.missing == "" {
				if missing != "" {
					t.Fatalf("missing %q, want usable", missing)
				}
				if c.Address != tt.env["RLSOLVE_RAY_ADDRESS"] || c.Nodes != 2 || c.Python != python || c.Mode != "netns" {
					t.Fatalf("cluster %+v does not carry the environment", c)
				}
				if tt.env["RLSOLVE_RAY_STATE"] != "" && len(c.Layout) != 2 {
					t.Fatalf("layout %v, want the 2 nodes of the state dir", c.Layout)
				}
				return
			}
			if !strings.Contains(missing, tt.missing) {
				t.Fatalf("missing %q, want it to contain %q", missing, tt.missing)
			}
		})
	}
}

// Without a cluster, Require skips saying how to start one, and fails
// instead when CI requires Ray.
func TestRequireWithoutCluster(t *testing.T) {
	t.Setenv("RLSOLVE_RAY_ADDRESS", "")
	for _, required := range []string{"", "1"} {
		t.Setenv("RLSOLVE_REQUIRE_RAY", required)
		rec := &recorder{TB: t}
		Require(rec)
		got, other := rec.skipped, rec.fatal
		if required != "" {
			got, other = rec.fatal, rec.skipped
		}
		if !strings.Contains(got, "RLSOLVE_RAY_ADDRESS is not set") || !strings.Contains(got, "scripts/ray-test-cluster.sh start") || other != "" {
			t.Fatalf("RLSOLVE_REQUIRE_RAY=%q: skipped %q, fatal %q", required, rec.skipped, rec.fatal)
		}
	}
}

// recorder is a testing.TB whose Skip and Fatal only record what they
// were told, so a test can see which one Require called.
type recorder struct {
	testing.TB
	skipped, fatal string
}

func (r *recorder) Skip(args ...any)  { r.skipped = args[0].(string) }
func (r *recorder) Fatal(args ...any) { r.fatal = args[0].(string) }
func (r *recorder) Helper()           {}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
