package exec

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// A plan that spans nodes is refused by the local backend unless told to
// oversubscribe, or launched one node's share at a time.
func TestLocalMultiNodeRefused(t *testing.T) {
	o := loadPlan(t, "contract.yaml", "")
	job := newTestJob(t, o.Result, allRun(o.Result, workerArgv(t, "env")))
	_, err := Local{}.Launch(context.Background(), job, Options{Environ: baseEnv})
	var le *Error
	if !errors.As(err, &le) || le.Code != ExitUsage || !strings.Contains(err.Error(), "13 workers on 2 nodes") ||
		!strings.Contains(err.Error(), "--oversubscribe") || !strings.Contains(err.Error(), "--node N") {
		t.Fatalf("err = %v", err)
	}
	noSurvivors(t, job.ID)
}

// One node's share: only the workers there, with the rendezvous every
// node's agent agrees on (the plan's MASTER_ADDR, --master-port + i).
func TestLocalNodeShare(t *testing.T) {
	o := loadPlan(t, "contract.yaml", "")
	for _, tc := range []struct {
		node    int
		workers int
		want    map[string][2]string // worker → MASTER_ADDR, MASTER_PORT
	}{
		{0, 10, map[string][2]string{"actor/3": {"127.0.0.1", "29500"}, "rollout/0": {"127.0.0.1", "29501"}, "inference/1": {"127.0.0.1", "29502"}}},
		{1, 3, map[string][2]string{"env/2": {"127.0.0.2", "29503"}}},
	} {
		job := newTestJob(t, o.Result, allRun(o.Result, workerArgv(t, "env")))
		if err := job.OnNode(tc.node, 29500); err != nil {
			t.Fatal(err)
		}
		out := &output{}
		rep, err := Local{}.Launch(context.Background(), job, Options{Stdout: out, Stderr: out, Environ: baseEnv, Grace: time.Second})
		if err != nil || rep.ExitCode() != 0 {
			t.Fatalf("node %d: %v %v", tc.node, err, rep)
		}
		envs := workerEnvs(out.String())
		if len(envs) != tc.workers || rep.Total != tc.workers {
			t.Errorf("node %d: %d workers ran, report says %d, want %d", tc.node, len(envs), rep.Total, tc.workers)
		}
		for who, want := range tc.want {
			if got := [2]string{envs[who]["MASTER_ADDR"], envs[who]["MASTER_PORT"]}; got != want {
				t.Errorf("node %d: %s has MASTER_ADDR, MASTER_PORT %v, want %v", tc.node, who, got, want)
			}
		}
	}
	job := newTestJob(t, o.Result, allRun(o.Result, workerArgv(t, "env")))
	if err := job.OnNode(0, 0); err == nil || !strings.Contains(err.Error(), "--master-port") {
		t.Errorf("a node's share without a port base: %v", err)
	}
}
