package exec

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLocalStartup64 measures the time from Launch to the moment the last
// of 64 workers runs its first instruction (each prints its start time).
func TestLocalStartup64(t *testing.T) {
	o := loadPlan(t, "many.yaml", "")
	var all []time.Duration
	for run := 0; run < 5; run++ {
		job := newTestJob(t, o.Result, allRun(o.Result, workerArgv(t, "start")))
		out := &output{}
		t0 := time.Now()
		rep, err := Local{Oversubscribe: true}.Launch(context.Background(), job, Options{Stdout: out, Stderr: out, Environ: baseEnv})
		if err != nil || rep.ExitCode() != 0 {
			t.Fatalf("%v %s", err, rep.Summary())
		}
		var last int64
		n := 0
		for _, line := range strings.Split(out.String(), "\n") {
			if _, ts, ok := strings.Cut(line, ": START "); ok {
				v, _ := strconv.ParseInt(ts, 10, 64)
				last = max(last, v)
				n++
			}
		}
		if n != 64 {
			t.Fatalf("%d workers started", n)
		}
		all = append(all, time.Duration(last-t0.UnixNano()))
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	t.Logf("launch to all 64 workers started: median %v (runs %v)", all[len(all)/2].Round(100*time.Microsecond), all)
}
