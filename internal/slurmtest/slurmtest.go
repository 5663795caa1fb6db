// Package slurmtest gives tests the test Slurm cluster that
// scripts/slurm-test-cluster.sh starts (4 nodes n1-n4, 8 fake GPUs each).
package slurmtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
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
		lock(tb)
		return conf
	}
	msg := "no Slurm test cluster (" + missing + "): run `scripts/slurm-test-cluster.sh install && eval $(scripts/slurm-test-cluster.sh start) && export SLURM_CONF` as root"
	if os.Getenv("RLSOLVE_REQUIRE_SLURM") != "" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
	return ""
}

// lock holds the test cluster for tb until it ends. go test runs packages
// in parallel processes; without this, two packages' allocations wait on
// each other's nodes and time out. One Require per test.
func lock(tb testing.TB) {
	tb.Helper()
	path := filepath.Join(os.TempDir(), "rlsolve-slurm-tests.lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		tb.Fatalf("slurm test lock: %v", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		tb.Fatalf("slurm test lock: %v", err)
	}
	tb.Cleanup(func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	})
}
