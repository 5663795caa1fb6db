package raytest

import (
	"os/exec"
	"strings"
	"testing"
)

// What scripts/ray-test-cluster.sh does without a cluster, none of which
// needs root or Ray: stop is idempotent, the rest refuse with a reason.
func TestScriptWithoutCluster(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	tests := []struct {
		name string
		args []string
		env  []string
		code int
		out  string
	}{
		{"stop with nothing running", []string{"stop"}, nil, 0, ""},
		{"status with nothing running", []string{"status"}, nil, 1, "not running"},
		{"start without ray", []string{"start"}, []string{"RLSOLVE_VENV=/nonexistent"}, 1, "no ray in /nonexistent"},
		{"unknown command", []string{"restart"}, nil, 2, "usage:"},
		{"bad name", []string{"stop"}, []string{"RAY_TEST_NAME=Ray-Test-Cluster"}, 2, "RAY_TEST_NAME=Ray-Test-Cluster"},
		{"bad net", []string{"stop"}, []string{"RAY_TEST_NET=10.77.0.0/24"}, 2, "RAY_TEST_NET=10.77.0.0/24"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("bash", append([]string{"../../scripts/ray-test-cluster.sh"}, tt.args...)...)
			// A base and names of its own: never the cluster other tests use.
			cmd.Env = append(cmd.Environ(), "RAY_TEST_BASE="+t.TempDir(), "RAY_TEST_NAME=rlstest", "RAY_TEST_NET=10.99.0")
			cmd.Env = append(cmd.Env, tt.env...)
			out, err := cmd.CombinedOutput()
			code := 0
			if e, ok := err.(*exec.ExitError); ok {
				code = e.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.code || !strings.Contains(string(out), tt.out) {
				t.Fatalf("exit %d, want %d; output %q, want it to contain %q", code, tt.code, out, tt.out)
			}
		})
	}
}
