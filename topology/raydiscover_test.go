package topology

import (
	"archive/zip"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/internal/raycli"
)

// fakeDashboard answers as a Ray dashboard: the version, a node list that
// may change from one call to the next, and a probe job whose log is log.
type fakeDashboard struct {
	t       *testing.T
	mu      sync.Mutex
	version string
	// lists are the node lists answered in turn (the last one repeats).
	lists  [][]map[string]any
	calls  int
	status raycli.JobStatus
	log    string
	// What the probe did: its submit, its package, its deletion.
	submit  map[string]any
	pkg     []byte
	deleted []string
	// jobs is the job list (GET /api/jobs/), "" for none.
	jobs string
}

func (d *fakeDashboard) serve(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	p := r.URL.Path
	switch {
	case p == "/api/version":
		fmt.Fprintf(w, `{"version": "4", "ray_version": %q, "ray_commit": "x"}`, d.version)
	case p == "/api/v0/nodes":
		rows := d.lists[min(d.calls, len(d.lists)-1)]
		d.calls++
		b, _ := json.Marshal(map[string]any{"result": true, "msg": "", "data": map[string]any{"result": map[string]any{
			"total": len(rows), "num_after_truncation": len(rows), "result": rows}}})
		w.Write(b)
	case strings.HasPrefix(p, "/api/packages/gcs/") && r.Method == http.MethodGet:
		if d.pkg == nil {
			http.Error(w, "Package does not exist", http.StatusNotFound)
		}
	case strings.HasPrefix(p, "/api/packages/gcs/") && r.Method == http.MethodPut:
		d.pkg = body
	case p == "/api/jobs/" && r.Method == http.MethodGet:
		fmt.Fprint(w, cmp.Or(d.jobs, "[]"))
	case p == "/api/jobs/" && r.Method == http.MethodPost:
		json.Unmarshal(body, &d.submit)
		fmt.Fprintf(w, `{"job_id": "x", "submission_id": %q}`, d.submit["submission_id"])
	case strings.HasSuffix(p, "/logs"):
		b, _ := json.Marshal(map[string]string{"logs": d.log})
		w.Write(b)
	case strings.HasPrefix(p, "/api/jobs/") && r.Method == http.MethodDelete:
		d.deleted = append(d.deleted, strings.TrimPrefix(p, "/api/jobs/"))
		w.Write([]byte(`{"deleted": true}`))
	case strings.HasPrefix(p, "/api/jobs/"):
		fmt.Fprintf(w, `{"submission_id": %q, "status": %q, "message": "Job entrypoint command failed with exit code 1"}`, strings.TrimPrefix(p, "/api/jobs/"), d.status)
	default:
		http.NotFound(w, r)
	}
}

func (d *fakeDashboard) client(t *testing.T) *raycli.Client {
	srv := httptest.NewServer(http.HandlerFunc(d.serve))
	t.Cleanup(srv.Close)
	c, err := raycli.New(srv.URL, raycli.Options{Environ: []string{}, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// liveList is testdata/raylive_nodes.json as rows.
func liveList(t *testing.T) []map[string]any {
	var rows []map[string]any
	if err := json.Unmarshal(liveRows(t), &rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

func alive(rows []map[string]any, n int) []map[string]any {
	out := make([]map[string]any, len(rows))
	for i, r := range rows {
		c := map[string]any{}
		for k, v := range r {
			c[k] = v
		}
		if i >= n {
			c["state"] = "DEAD"
		}
		out[i] = c
	}
	return out
}

func init() { waitPoll, probePoll = time.Millisecond, time.Millisecond }

// The probe job: its Python uploaded as a package, submitted under a
// submission id of its own, read, and deleted; its facts order the nodes.
func TestDiscoverRayProbe(t *testing.T) {
	d := &fakeDashboard{t: t, version: "2.52.1", lists: [][]map[string]any{liveList(t)}, status: raycli.JobSucceeded,
		log: "Running entrypoint\n" + probeMarker + `{"nodes": {"n0": {"rank": "0", "ip": "10.77.0.10", "nvml": "unavailable", "python": "/v/bin/python"},` +
			`"n1": {"rank": "2", "nvml": "unavailable"}, "n2": {"rank": "3", "nvml": "unavailable"}, "n3": {"rank": "1", "nvml": "unavailable"}}}` + "\n"}
	live, err := DiscoverRay(context.Background(), RayLiveOptions{Client: d.client(t), Probe: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := liveOrder(live.Inventory); got != "0=10.77.0.10 1=10.77.0.11 2=10.77.0.9 3=10.77.0.100" || live.Version != "2.52.1" {
		t.Errorf("order %s, version %s", got, live.Version)
	}
	id, _ := d.submit["submission_id"].(string)
	if !strings.HasPrefix(id, "rlsolve-probe-") || len(d.deleted) != 1 || d.deleted[0] != id {
		t.Errorf("probe job %q, deleted %v", id, d.deleted)
	}
	if ep, _ := d.submit["entrypoint"].(string); !strings.HasSuffix(ep, " probe.py") {
		t.Errorf("entrypoint %q", ep)
	}
	wd := d.submit["runtime_env"].(map[string]any)["working_dir"]
	if wd != raycli.PackageURI(d.pkg) {
		t.Errorf("working_dir %v, uploaded %s", wd, raycli.PackageURI(d.pkg))
	}
	zr, err := zip.NewReader(bytes.NewReader(d.pkg), int64(len(d.pkg)))
	if err != nil || len(zr.File) != 1 || zr.File[0].Name != "probe.py" {
		t.Fatalf("package: %v", err)
	}
	rc, _ := zr.File[0].Open()
	got, _ := io.ReadAll(rc)
	want, _ := pythonFiles.ReadFile("probe.py")
	if !bytes.Equal(got, want) {
		t.Error("the package's probe.py is not python/probe.py")
	}
}

// A probe that fails says how, with its log's end, and the job is deleted.
func TestDiscoverRayProbeFails(t *testing.T) {
	d := &fakeDashboard{t: t, version: "2.52.1", lists: [][]map[string]any{liveList(t)}, status: raycli.JobFailed,
		log: "Traceback (most recent call last):\nModuleNotFoundError: No module named 'ray'\n"}
	_, err := DiscoverRay(context.Background(), RayLiveOptions{Client: d.client(t), Probe: true})
	for _, w := range []string{"the inventory probe on http://", "ended FAILED", "exit code 1", "No module named 'ray'", "--no-probe skips it"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("%v does not say %q", err, w)
		}
	}
	if len(d.deleted) != 1 {
		t.Errorf("deleted %v", d.deleted)
	}
}

func TestDiscoverRayOld(t *testing.T) {
	d := &fakeDashboard{t: t, version: "2.40.0", lists: [][]map[string]any{liveList(t)}}
	_, err := DiscoverRay(context.Background(), RayLiveOptions{Client: d.client(t)})
	if !errors.Is(err, raycli.ErrVersion) {
		t.Errorf("Ray 2.40: %v", err)
	}
}

// --wait-nodes: progress each time the alive nodes change, and the
// inventory once enough are alive.
func TestDiscoverRayWait(t *testing.T) {
	rows := liveList(t)
	d := &fakeDashboard{t: t, version: "2.52.1", lists: [][]map[string]any{alive(rows, 1), alive(rows, 1), alive(rows, 2), alive(rows, 4)}}
	var said []string
	live, err := DiscoverRay(context.Background(), RayLiveOptions{Client: d.client(t), WaitNodes: 4, Timeout: time.Minute,
		Progress: func(alive []string, want int) { said = append(said, fmt.Sprintf("%d/%d", len(alive), want)) }})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(said, " ") != "1/4 2/4" || len(live.Inventory.Nodes) != 4 {
		t.Errorf("progress %v, %d nodes", said, len(live.Inventory.Nodes))
	}
}

// A wait that times out names the nodes that joined and those Ray knows
// as dead.
func TestDiscoverRayWaitTimeout(t *testing.T) {
	d := &fakeDashboard{t: t, version: "2.52.1", lists: [][]map[string]any{alive(liveList(t), 2)}}
	_, err := DiscoverRay(context.Background(), RayLiveOptions{Client: d.client(t), WaitNodes: 4, Timeout: 50 * time.Millisecond})
	var we *RayWaitError
	if !errors.As(err, &we) {
		t.Fatalf("%v", err)
	}
	for _, w := range []string{"2 of 4 Ray nodes alive at http://", "(alive: 10.77.0.10, 10.77.0.9)", "2 missing (Ray lists as dead: 10.77.0.100, 10.77.0.11, 10.77.0.12)", "ray start --address"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%v does not say %q", err, w)
		}
	}
}
