package proptest

import (
	"os"
	"strconv"
	"testing"

	"github.com/leanovate/gopter"
)

// Property tests are reproducible by default: every run uses the same seed
// and the same number of cases. Two environment variables change that:
//
//	RLSOLVE_PROPTEST_SEED=<int64>   the seed (default 20240601); a failing
//	                                run prints the seed it used, so that the
//	                                failure can be replayed exactly.
//	RLSOLVE_PROPTEST_COUNT=<n>      successful cases each property must see
//	                                (default 500; the properties all together
//	                                then run in a few seconds on 2 cores).
//	                                Raise it for a soak run, e.g.
//	                                RLSOLVE_PROPTEST_COUNT=5000 go test ./proptest
const (
	propDefaultSeed  int64 = 20240601
	propDefaultCount       = 500
)

// propSeed is the seed in use (RLSOLVE_PROPTEST_SEED or the default).
func propSeed(t testing.TB) int64 {
	if s := os.Getenv("RLSOLVE_PROPTEST_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("RLSOLVE_PROPTEST_SEED=%q is not an integer: %v", s, err)
		}
		return v
	}
	return propDefaultSeed
}

// propCount is the number of cases (RLSOLVE_PROPTEST_COUNT or def).
func propCount(t testing.TB, def int) int {
	if s := os.Getenv("RLSOLVE_PROPTEST_COUNT"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			t.Fatalf("RLSOLVE_PROPTEST_COUNT=%q is not a positive integer", s)
		}
		return v
	}
	return def
}

// propParams are the gopter parameters of one property: the seed and the
// count above, one worker (the checks are deterministic and the order of
// cases is then reproducible), and a bounded shrink.
func propParams(t testing.TB) *gopter.TestParameters {
	p := gopter.DefaultTestParametersWithSeed(propSeed(t))
	p.MinSuccessfulTests = propCount(t, propDefaultCount)
	p.MaxShrinkCount = 200
	p.MaxDiscardRatio = 20
	p.Workers = 1
	return p
}

// propRun checks props with params and fails t with gopter's report (which
// includes the shrunk counterexample) and the seed to replay it.
func propRun(t *testing.T, props *gopter.Properties) {
	t.Helper()
	rep := &propReporter{t: t}
	if !props.Run(rep) {
		t.Errorf("replay with RLSOLVE_PROPTEST_SEED=%d RLSOLVE_PROPTEST_COUNT=%d", propSeed(t), propCount(t, propDefaultCount))
	}
}

// propReporter writes gopter's results to the test log.
type propReporter struct{ t *testing.T }

func (r *propReporter) ReportTestResult(name string, res *gopter.TestResult) {
	r.t.Helper()
	w := &propLogWriter{t: r.t}
	gopter.NewFormatedReporter(true, 120, w).ReportTestResult(name, res)
}

type propLogWriter struct{ t *testing.T }

func (w *propLogWriter) Write(b []byte) (int, error) {
	w.t.Helper()
	w.t.Log(string(b))
	return len(b), nil
}
