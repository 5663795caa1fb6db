package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDefaultBuildLeavesNVMLOut: the README's first command builds rlsolve
// cold, and compiling go-nvml's C header prints ~150 lines of compiler
// warnings before the result and doubles the build; NVML is opt-in
// (-tags nvml), so the default build must not depend on it (issue 25
// item 15).
func TestDefaultBuildLeavesNVMLOut(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to list the build's packages")
	}
	cgo, _ := exec.Command(goTool, "env", "CGO_ENABLED").Output()
	for _, tc := range []struct {
		tags string
		want bool
	}{{"", false}, {"nvml", strings.TrimSpace(string(cgo)) == "1"}} {
		out, err := exec.Command(goTool, "list", "-deps", "-tags", tc.tags, ".").CombinedOutput()
		if err != nil {
			t.Fatalf("go list -tags %q: %v\n%s", tc.tags, err, out)
		}
		if got := strings.Contains(string(out), "github.com/NVIDIA/go-nvml"); got != tc.want {
			t.Errorf("-tags %q: depends on go-nvml = %v, want %v", tc.tags, got, tc.want)
		}
	}
}
