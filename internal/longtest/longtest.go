// Package longtest gates the tests that take minutes on a small machine
// (exhaustive properties, the browser at scale, every example launched):
// `go test ./...` runs in under two minutes on 2 cores without them, and
// CI runs them with RLSOLVE_LONG_TESTS=1.
package longtest

import (
	"os"
	"testing"
)

// Env is the variable that runs the long tests when set to 1.
const Env = "RLSOLVE_LONG_TESTS"

// On reports whether the long tests run.
func On() bool { return os.Getenv(Env) == "1" }

// Skip skips t unless the long tests run, saying what it would have done
// and how to run it, so that the skip shows in the normal output.
func Skip(t testing.TB, what string) {
	t.Helper()
	if !On() {
		t.Skipf("long test (%s): set %s=1 to run it (CI does)", what, Env)
	}
}

// Count is n when the long tests run, else short: a randomized test that
// keeps a quick sample in the ordinary run.
func Count(n, short int) int {
	if On() {
		return n
	}
	return short
}
