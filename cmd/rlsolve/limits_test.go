package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runCLI runs rlsolve in this process with args and returns its exit code
// and standard error. Not for parallel tests: it swaps os.Stdout and
// os.Stderr.
func runCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	code, _, stderr := runCLIOutput(t, args...)
	return code, stderr
}

// runCLIOutput is runCLI with standard output too.
func runCLIOutput(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	t.Setenv("NO_COLOR", "1")
	dir := t.TempDir()
	out, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	errf, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	saved, savedErr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = out, errf
	start := time.Now()
	code = run(args)
	took := time.Since(start)
	os.Stdout, os.Stderr = saved, savedErr
	out.Close()
	errf.Close()
	if took > 20*time.Second { // a hang guard: the solver still expands an over-limit component (pipeline/limits_test.go)
		t.Errorf("rlsolve %s took %v", strings.Join(args, " "), took)
	}
	o, err := os.ReadFile(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := os.ReadFile(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	return code, string(o), string(e)
}

// TestLimitsExitCodes: each input limit at its default value, through the
// CLI: exit 1 for a config or inventory over a limit, 2 for a file that
// is not read (too large, a directory), each with its RLS code and
// message. pipeline/limits_test.go checks the limits themselves, with
// small values.
func TestLimitsExitCodes(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cfg := "cluster:\n  num_nodes: 1\n  component_placement:\n    actor: all\n"
	good := file("good.yaml", cfg)

	huge := filepath.Join(dir, "huge.yaml")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	sparse := f.Truncate(1<<30) == nil
	f.Close()

	// Billion laughs: 12 levels of 10 aliases, 10^12 values.
	laughs := "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
	for i := 1; i < 12; i++ {
		laughs += fmt.Sprintf("a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10), ", "))
	}
	manyNodes := "nodes:\n  - {ranks: 0-65536, accelerators: {count: 8}}\n"

	for _, tc := range []struct {
		name string
		args []string
		exit int
		want string
	}{
		{"file size", []string{"check", huge}, 2, "error[RLS-E0107]: " + huge + " is 1073741824 bytes; rlsolve reads at most 16777216"},
		{"inventory file size", []string{"check", good, "--inventory", huge}, 2, "rlsolve reads at most 16777216"},
		{"directory", []string{"plan", dir}, 2, "error[RLS-E0110]: " + dir + " is a directory, not a config file"},
		{"inventory directory", []string{"check", good, "--inventory", dir}, 2, "error[RLS-E0110]: " + dir + " is a directory"},
		{"YAML depth", []string{"check", file("deep.yaml", cfg+"x: "+strings.Repeat("[", 65)+strings.Repeat("]", 65)+"\n")}, 1,
			"error[RLS-E0107]: the YAML nesting is over the limit; rlsolve reads at most 64 levels"},
		{"alias expansion", []string{"check", file("laughs.yaml", laughs+cfg)}, 1, "error[RLS-E0107]: the YAML with its aliases expanded is over the limit; rlsolve reads at most 2000000 values"},
		{"inventory alias expansion", []string{"check", good, "--inventory", file("laughs-inv.yaml", laughs+"nodes:\n  - {rank: 0, accelerators: {count: 8}}\n")}, 1,
			"error[RLS-E0107]: the YAML with its aliases expanded is over the limit"},
		{"num_nodes", []string{"check", file("nodes.yaml", strings.Replace(cfg, "num_nodes: 1", "num_nodes: 65537", 1))}, 1,
			"error[RLS-E0107]: num_nodes is 65537; rlsolve reads at most 65536"},
		{"inventory nodes", []string{"check", good, "--inventory", file("many.yaml", manyNodes)}, 1, "65536"},
		{"processes per component", []string{"plan", file("procs.yaml", strings.Replace(cfg, "all", `"0:0-1048576"`, 1)), "--gpus-per-node", "8"}, 1,
			"error[RLS-E0111]: actor: 1048577 processes in one component; the limit is 1048576"},
		{"rank value", []string{"check", file("rank.yaml", strings.Replace(cfg, "all", `"0-100000001"`, 1)), "--gpus-per-node", "8"}, 1, "100000001"},
		{"string length", []string{"check", file("long.yaml", strings.Replace(cfg, "all", `"`+strings.Repeat("0,", 140000)+`0"`, 1))}, 1,
			"bytes; rlsolve reads at most 262144 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(strings.Join(tc.args, " "), huge) && !sparse {
				t.Skip("no sparse files here")
			}
			code, stderr := runCLI(t, tc.args...)
			if code != tc.exit {
				t.Errorf("exit %d, want %d\n%s", code, tc.exit, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr does not say %q:\n%s", tc.want, stderr)
			}
			if strings.Contains(stderr, "internal error") {
				t.Errorf("panic:\n%s", stderr)
			}
		})
	}
}
