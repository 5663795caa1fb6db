package topology_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/internal/raycli"
	"github.com/rlsolve/rlsolve/internal/raytest"
	"github.com/rlsolve/rlsolve/topology"
)

// TestRayLiveSweep: `topology --ray` SIGKILLed while its probe runs leaves
// the probe's job record; the next discovery deletes it, and a job record
// that is not rlsolve's (named like a probe, or with a probe's metadata
// under another name) survives.
func TestRayLiveSweep(t *testing.T) {
	cl := raytest.Require(t)
	c, err := raycli.New(cl.Address, raycli.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Bounds against a hung cluster, not timing assertions.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "rlsolve")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/rlsolve/rlsolve/cmd/rlsolve").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	before := probeIDs(ctx, t, c)
	cmd := exec.Command(bin, "topology", "--ray", cl.Address)
	// An empty cache: the facts kept from an earlier probe would spare it
	// the probe this test kills.
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var left string
	for left == "" && ctx.Err() == nil {
		for _, id := range probeIDs(ctx, t, c) {
			if !slices.Contains(before, id) {
				left = id
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	tag := make([]byte, 4)
	rand.Read(tag)
	foreign := []string{"rlsolve-probe-theirs-" + hex.EncodeToString(tag), "theirs-" + hex.EncodeToString(tag)}
	for i, id := range foreign {
		meta := map[string]string{"owner": "someone else"}
		if i == 1 {
			meta = map[string]string{"rlsolve": "inventory probe"}
		}
		if _, err := c.SubmitJob(ctx, &raycli.JobSubmit{Entrypoint: "echo theirs", SubmissionID: id, Metadata: meta}); err != nil {
			t.Fatal(err)
		}
		defer c.DeleteJob(context.WithoutCancel(ctx), id)
	}
	for _, id := range append([]string{left}, foreign...) {
		ended(ctx, t, c, id)
	}
	// The killed probe's record is stale at once.
	live, err := topology.DiscoverRay(ctx, topology.RayLiveOptions{Client: c, ProbeRecordAge: time.Nanosecond})
	if err != nil || live.SweepErr != nil {
		t.Fatal(err, live.SweepErr)
	}
	if !slices.Contains(live.Swept, left) || slices.ContainsFunc(live.Swept, func(id string) bool { return slices.Contains(foreign, id) }) {
		t.Errorf("swept %v: want %s and none of %v", live.Swept, left, foreign)
	}
	// Ray writes a record again when its job monitor had not yet seen the
	// supervisor end: still gone a few monitor rounds later.
	time.Sleep(3 * time.Second)
	if _, err := c.Job(ctx, left); !errors.Is(err, raycli.ErrNotFound) {
		t.Errorf("the killed probe's record %s is still there: %v", left, err)
	}
	for _, id := range foreign {
		if _, err := c.Job(ctx, id); err != nil {
			t.Errorf("%s's record is gone: %v", id, err)
		}
	}
}

// probeIDs lists the probe job records on the cluster.
func probeIDs(ctx context.Context, t *testing.T, c *raycli.Client) []string {
	t.Helper()
	jobs, err := c.Jobs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, j := range jobs {
		if strings.HasPrefix(j.SubmissionID, "rlsolve-probe-") {
			out = append(out, j.SubmissionID)
		}
	}
	return out
}

// ended waits until job id has ended and its supervisor actor is dead (a
// record deleted before that comes back).
func ended(ctx context.Context, t *testing.T, c *raycli.Client, id string) {
	t.Helper()
	for ctx.Err() == nil {
		j, err := c.Job(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		alive, err := c.Actors(ctx, raycli.Filter{Key: "name", Op: "=", Value: "_ray_internal_job_actor_" + id}, raycli.Filter{Key: "state", Op: "!=", Value: "DEAD"})
		if err == nil && j.Status.Terminal() && len(alive) == 0 {
			time.Sleep(2 * time.Second) // one more round of Ray's job monitor
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("job %s did not end: %v", id, ctx.Err())
}
