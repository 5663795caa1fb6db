package raycli_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/internal/raycli"
	"github.com/rlsolve/rlsolve/internal/raytest"
)

// The client against the Ray test cluster: a working_dir package uploaded
// once, a job submitted twice under one id (one job), its log streamed
// over the WebSocket until Ray closes it, its record read (SUCCEEDED, exit
// 0), listed actors and placement groups, and the record deleted.
func TestLiveJob(t *testing.T) {
	cl := raytest.Require(t)
	c, err := raycli.New(cl.Address, raycli.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// A bound against a hung cluster, not a timing assertion.
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	if _, err := c.CheckVersion(ctx); err != nil {
		t.Fatal(err)
	}
	zip, err := raycli.ZipDir(map[string][]byte{"job.py": []byte(
		"import time\nfor i in range(3):\n    print('line', i, flush=True)\n    time.sleep(0.5)\n")})
	if err != nil {
		t.Fatal(err)
	}
	uri := raycli.PackageURI(zip)
	if ok, err := c.PackageExists(ctx, uri); err != nil {
		t.Fatal(err)
	} else if !ok {
		if err := c.UploadPackage(ctx, uri, zip); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := c.PackageExists(ctx, uri); !ok || err != nil {
		t.Fatalf("uploaded package: %v %v", ok, err)
	}
	id := fmt.Sprintf("rlsolve-raycli-test-%d", time.Now().UnixNano())
	j := &raycli.JobSubmit{Entrypoint: raycli.Entrypoint("", "job.py"), SubmissionID: id,
		RuntimeEnv: map[string]any{"working_dir": uri}, Metadata: map[string]string{"test": "raycli"}}
	for range 2 { // the second submit is a retry of the first
		if got, err := c.SubmitJob(ctx, j); err != nil || got != id {
			t.Fatalf("submit: %q %v", got, err)
		}
	}
	var log strings.Builder
	if err := c.TailJobLogs(ctx, id, func(s string) error { log.WriteString(s); return nil }); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "line 0\nline 1\nline 2\n") {
		t.Errorf("streamed log:\n%s", log.String())
	}
	info := waitEnded(ctx, t, c, id)
	if info.Status != raycli.JobSucceeded || info.DriverExitCode == nil || *info.DriverExitCode != 0 || info.Metadata["test"] != "raycli" {
		t.Errorf("job %+v", info)
	}
	if all, err := c.JobLogs(ctx, id); err != nil || !strings.Contains(all, "line 2") {
		t.Errorf("logs %q %v", all, err)
	}
	if _, err := c.Actors(ctx, raycli.Filter{Key: "state", Op: "=", Value: "ALIVE"}); err != nil {
		t.Error(err)
	}
	if _, err := c.PlacementGroups(ctx, raycli.Filter{Key: "state", Op: "!=", Value: "REMOVED"}); err != nil {
		t.Error(err)
	}
	if ok, err := c.DeleteJob(ctx, id); !ok || err != nil {
		t.Errorf("delete: %v %v", ok, err)
	}
	if _, err := c.Job(ctx, id); !errors.Is(err, raycli.ErrNotFound) {
		t.Errorf("a deleted job: %v", err)
	}
	nodes, _, err := c.Nodes(ctx)
	if err != nil || len(nodes) < cl.Nodes {
		t.Errorf("nodes: %d, %v", len(nodes), err)
	}
}

// waitEnded reads the job until it has ended (the stream's end says
// nothing about how).
func waitEnded(ctx context.Context, t *testing.T, c *raycli.Client, id string) *raycli.JobInfo {
	for {
		info, err := c.Job(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if info.Status.Terminal() {
			return info
		}
		select {
		case <-ctx.Done():
			t.Fatalf("job %s still %s", id, info.Status)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
