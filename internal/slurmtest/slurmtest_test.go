package slurmtest

import (
	"os/exec"
	"strings"
	"testing"
)

// The harness itself: four idle nodes, and a step gets per-task GPUs.
func TestClusterUp(t *testing.T) {
	Require(t)
	out, err := exec.Command("sinfo", "-h", "-N", "-o", "%N %t %G").CombinedOutput()
	if err != nil {
		t.Fatalf("sinfo: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "gpu:8"); n != 4 {
		t.Fatalf("want 4 nodes with gpu:8, got:\n%s", out)
	}
	out, err = exec.Command("srun", "-N2", "-n2", "--gres=gpu:2", "sh", "-c", "echo $SLURMD_NODENAME:$CUDA_VISIBLE_DEVICES").CombinedOutput()
	if err != nil {
		t.Fatalf("srun: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), ":0,1") {
		t.Fatalf("CUDA_VISIBLE_DEVICES not set per task:\n%s", out)
	}
}
