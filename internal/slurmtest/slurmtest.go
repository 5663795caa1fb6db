// Package slurmtest gives tests the test Slurm cluster that
// scripts/slurm-test-cluster.sh starts (4 nodes n1-n4, 8 fake GPUs each).
package slurmtest

import (
	"os"
	"os/exec"
	"testing"

	"github.com/rlsolve/rlsolve/internal/testlock"
)

// Require returns SLURM_CONF of the running test cluster. Without one the
// test is skipped with how to start it, unless RLSOLVE_REQUIRE_SLURM is set
// (CI sets it, so that Slurm tests can never silently stop running).
func Require(tb testing.TB) string {
	tb.Helper()
	conf := os.Getenv("SLURM_CONF")
	missing := ""
	switch {
	case conf == "":
		missing = "SLURM_CONF is not set"
	default:
		if _, err := exec.LookPath("srun"); err != nil {
			missing = "srun is not installed"
		} else if out, err := exec.Command("sinfo", "-h", "-N").CombinedOutput(); err != nil {
			missing = "sinfo fails: " + string(out)
		}
	}
	if missing == "" {
		// go test runs packages in parallel processes; without the lock,
		// two packages' allocations wait on each other's nodes and time out.
		testlock.Hold(tb, "rlsolve-slurm-tests")
		return conf
	}
	msg := "no Slurm test cluster (" + missing + "): run `scripts/slurm-test-cluster.sh install && eval $(scripts/slurm-test-cluster.sh start) && export SLURM_CONF` as root"
	if os.Getenv("RLSOLVE_REQUIRE_SLURM") != "" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
	return ""
}
