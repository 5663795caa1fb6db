package exec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func init() { rayMonitorPeriod = time.Millisecond }

// fakeRay is a Ray dashboard as the backend sees it: the job's log is
// what tail writes, everything asked is recorded.
type fakeRay struct {
	mu        sync.Mutex
	files     map[string][]byte // the uploaded working_dir
	keys      map[string]string
	submitted *RayJobSpec
	stops     int
	deleted   []string
	// status is the job's status; after stop it becomes STOPPED.
	status string
	// tail writes the job's log; it may wait on stopped.
	tail    func(ctx context.Context, fn func(string) error) error
	stopped chan struct{}
	// leftovers are answered (one list per call, the last repeated).
	leftovers [][]string
	asked     int
}

func newFakeRay() *fakeRay {
	return &fakeRay{keys: map[string]string{}, status: "RUNNING", stopped: make(chan struct{})}
}

func (f *fakeRay) Address() string                              { return "http://head:8265" }
func (f *fakeRay) CheckVersion(context.Context) (string, error) { return "2.52.1", nil }
func (f *fakeRay) NodeRows(context.Context) ([]byte, error)     { return nil, nil }

func (f *fakeRay) UploadDir(_ context.Context, files map[string][]byte) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files = files
	return "gcs://_ray_pkg_0123.zip", nil
}

func (f *fakeRay) PutKey(_ context.Context, uri string, data []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keys[uri] = string(data)
	return nil
}

func (f *fakeRay) SubmitJob(_ context.Context, j *RayJobSpec) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.submitted = j
	return nil
}

func (f *fakeRay) JobStatus(_ context.Context, id string) (string, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.submitted == nil || id != f.submitted.SubmissionID || slicesContains(f.deleted, id) {
		return "", "", fmt.Errorf("job %s: %w", id, ErrRayNoJob)
	}
	return f.status, "", nil
}

func slicesContains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

func (f *fakeRay) StopJob(context.Context, string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stops++
	if f.stops == 1 {
		close(f.stopped)
	}
	if !rayTerminal(f.status) {
		f.status = "STOPPED"
	}
	return nil
}

func (f *fakeRay) DeleteJob(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deleted = append(f.deleted, id)
	return nil
}

func (f *fakeRay) TailJobLogs(ctx context.Context, _ string, fn func(string) error) error {
	err := f.tail(ctx, fn)
	f.mu.Lock()
	if !rayTerminal(f.status) {
		f.status = "SUCCEEDED"
	}
	f.mu.Unlock()
	return err
}

func (f *fakeRay) Leftovers(context.Context, string, string) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.leftovers) == 0 {
		return nil, nil
	}
	i := min(f.asked, len(f.leftovers)-1)
	f.asked++
	return f.leftovers[i], nil
}

func (f *fakeRay) SupervisorAlive(context.Context, string) (bool, error) { return false, nil }

// rayJob is two actor workers on two nodes.
func rayJob() *Job {
	mk := func(rank, node int) Worker {
		return Worker{Component: "actor", Rank: rank, Node: node, IP: fmt.Sprintf("10.0.0.%d", node+1),
			Argv: []string{"python", "train.py"}, Env: map[string]string{"RANK": fmt.Sprint(rank), LaunchIDVar: "L1"}}
	}
	return &Job{ID: "L1", Node: -1, Components: []*Component{{Name: "actor", Workers: []Worker{mk(0, 0), mk(1, 1)}}}}
}

// driverLog is a driver's log: events and lines, as the driver prints them.
func driverLog(report string) string {
	return rayMark + `{"event": "job", "job_id": "02000000"}` + "\n" +
		"2026-11-28 INFO worker.py -- Connected to Ray cluster\n" +
		rayMark + `{"event": "started", "worker": "actor/0", "ip": "10.0.0.1"}` + "\n" +
		rayMark + `{"event": "started", "worker": "actor/1", "ip": "10.0.0.2"}` + "\n" +
		rayMark + `{"event": "all"}` + "\n" +
		"actor/0: step 1\nactor/1: step 1: loss 0.5\nactor/1: bye\n" +
		rayMark + `{"event": "report", "report": ` + strings.ReplaceAll(report, "\n", "") + "}\n"
}

const okReport = `{"launch_id": "L1", "first": null, "interrupted": false, "error": "", "workers": [
 {"component": "actor", "rank": 0, "host": "10.0.0.1", "started": true, "exit_code": 0, "signal": 0, "stopped": false, "killed": false, "err": "", "ended_s": 1.5},
 {"component": "actor", "rank": 1, "host": "10.0.0.2", "started": true, "exit_code": 0, "signal": 0, "stopped": false, "killed": false, "err": "", "ended_s": 1.6}]}`

// chunked writes s in pieces of n bytes, as Ray's stream may cut it.
func chunked(s string, n int) func(context.Context, func(string) error) error {
	return func(_ context.Context, fn func(string) error) error {
		for len(s) > 0 {
			k := min(n, len(s))
			if err := fn(s[:k]); err != nil {
				return err
			}
			s = s[k:]
		}
		return nil
	}
}

func rayLaunchTest(t *testing.T, f *fakeRay, b *Ray, sigs chan os.Signal, opts ...func(*Options)) (*Report, *output, *output, string) {
	t.Helper()
	if b == nil {
		b = &Ray{}
	}
	b.Client, b.Poll, b.CleanupWait = f, time.Millisecond, time.Second
	b.Nodes = []RayNodeSpec{{IP: "10.0.0.1", GPUs: 2}, {IP: "10.0.0.2", GPUs: 2}}
	var out, errOut output
	logs := t.TempDir()
	opt := Options{Stdout: &out, Stderr: &errOut, LogDir: logs, Grace: 2 * time.Second, Signals: sigs}
	for _, o := range opts {
		o(&opt)
	}
	rep, err := b.Launch(context.Background(), rayJob(), opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep, &out, &errOut, filepath.Join(logs, "L1")
}

func TestRayLaunch(t *testing.T) {
	for _, n := range []int{1, 7, 1 << 20} { // chunks that cut lines anywhere, and whole
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			f := newFakeRay()
			f.tail = chunked(driverLog(okReport), n)
			rep, out, errOut, dir := rayLaunchTest(t, f, nil, nil)
			if rep.ExitCode() != 0 || len(rep.Workers) != 2 || rep.Workers[1].At < 1600*time.Millisecond || rep.AllStarted == 0 {
				t.Fatalf("report: %+v", rep)
			}
			if got := out.String(); got != "actor/0: step 1\nactor/1: step 1: loss 0.5\nactor/1: bye\n" || out.broken > 0 {
				t.Errorf("stdout %q (%d broken writes)", got, out.broken)
			}
			if !strings.Contains(errOut.String(), "Connected to Ray cluster") || strings.Contains(errOut.String(), rayMark) {
				t.Errorf("stderr %q: Ray's lines, no events", errOut.String())
			}
			for name, want := range map[string]string{"actor-0.log": "step 1\n", "actor-1.log": "step 1: loss 0.5\nbye\n",
				"driver.log": "2026-11-28 INFO worker.py -- Connected to Ray cluster\n"} {
				if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
					t.Errorf("%s = %q, %v; want %q", name, b, err, want)
				}
			}
			if rep.Workers[0].Log != filepath.Join(dir, "actor-0.log") {
				t.Errorf("worker log %q", rep.Workers[0].Log)
			}
			if len(f.deleted) != 1 || f.deleted[0] != "rlsolve-L1" {
				t.Errorf("deleted %v", f.deleted)
			}
			if !strings.Contains(strings.Join(rep.Notes, "\n"), "cleanup: no live actor in Ray namespace rlsolve-L1") {
				t.Errorf("notes %q", rep.Notes)
			}
		})
	}
}

// TestRaySubmit: the job and the driver's plan.
func TestRaySubmit(t *testing.T) {
	f := newFakeRay()
	f.tail = chunked(driverLog(okReport), 64)
	rayLaunchTest(t, f, &Ray{Python: "/opt/venv/bin/python", KeepJob: true}, nil)
	j := f.submitted
	if j.SubmissionID != "rlsolve-L1" || j.Entrypoint != "/opt/venv/bin/python driver.py" || j.WorkingDir != "gcs://_ray_pkg_0123.zip" ||
		j.Env["RAY_JOB_STOP_SIGNAL"] != "SIGINT" || j.Env["RAY_JOB_STOP_WAIT_TIME_S"] != "17" || j.Metadata["rlsolve_launch_id"] != "L1" {
		t.Errorf("submitted %+v", j)
	}
	if len(f.files["driver.py"]) == 0 {
		t.Error("no driver.py in the working_dir")
	}
	var p rayPlan
	if err := json.Unmarshal(f.files["plan.json"], &p); err != nil {
		t.Fatal(err)
	}
	if p.Namespace != "rlsolve-L1" || p.Mode != "rlinf" || p.GraceS != 2 || len(p.Nodes) != 2 || p.Nodes[1].IP != "10.0.0.2" ||
		p.Components[0].Workers[1].Node != 1 || p.Components[0].Workers[1].Env["RANK"] != "1" || p.StopKey != rayKey("L1", "stop") {
		t.Errorf("plan %+v", p)
	}
	if len(f.deleted) != 0 {
		t.Errorf("--keep-job deleted %v", f.deleted)
	}
}

// TestRayInterrupt: a signal stops the job and tells the driver which
// signal to forward; a second asks it to kill at once.
func TestRayInterrupt(t *testing.T) {
	f := newFakeRay()
	sigs := make(chan os.Signal, 2)
	report := `{"launch_id": "L1", "first": null, "interrupted": true, "error": "", "workers": [
 {"component": "actor", "rank": 0, "started": true, "exit_code": -1, "signal": 15, "stopped": true, "killed": false},
 {"component": "actor", "rank": 1, "started": true, "exit_code": -1, "signal": 9, "stopped": true, "killed": true}]}`
	f.tail = func(ctx context.Context, fn func(string) error) error {
		_ = fn("actor/0: up\n")
		sigs <- syscall.SIGTERM
		<-f.stopped
		sigs <- syscall.SIGTERM
		waitFor(t, 5*time.Second, "the kill key", func() bool {
			f.mu.Lock()
			defer f.mu.Unlock()
			return f.keys[rayKey("L1", "kill")] != ""
		})
		return fn(rayMark + `{"event": "report", "report": ` + strings.ReplaceAll(report, "\n", "") + "}\n")
	}
	var notes []string
	b := &Ray{}
	rep, _, _, _ := rayLaunchTest(t, f, b, sigs, func(o *Options) {
		o.Notef = func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
	})
	if got := f.keys[rayKey("L1", "stop")]; got != `{"signal":"SIGTERM"}` {
		t.Errorf("stop key %q", got)
	}
	if rep.ExitCode() != 128+15 || rep.Interrupted != syscall.SIGTERM || rep.Stopped != 2 || rep.Killed != 1 || !rep.Cut {
		t.Errorf("report %+v", rep)
	}
	// The note local and Slurm print, once: after the first signal.
	all := strings.Join(notes, "\n")
	if strings.Count(all, "got SIGTERM: waiting up to 2s (--grace) for the workers to stop; press Ctrl-C again to kill them now") != 1 {
		t.Errorf("notes %q", notes)
	}
	if s := rep.Summary(); !strings.Contains(s, "1 got SIGKILL at once: a second signal cut the grace period short") || strings.Contains(s, "after the grace period") {
		t.Errorf("summary %q", s)
	}
}

// TestRayInterruptGraceRan: one signal, and a worker the driver had to
// kill after the grace: the summary says the grace ran.
func TestRayInterruptGraceRan(t *testing.T) {
	f := newFakeRay()
	sigs := make(chan os.Signal, 1)
	report := `{"launch_id": "L1", "first": null, "interrupted": true, "error": "", "workers": [
 {"component": "actor", "rank": 0, "started": true, "exit_code": -1, "signal": 2, "stopped": true, "killed": false},
 {"component": "actor", "rank": 1, "started": true, "exit_code": -1, "signal": 9, "stopped": true, "killed": true}]}`
	f.tail = func(ctx context.Context, fn func(string) error) error {
		_ = fn("actor/0: up\n")
		sigs <- syscall.SIGINT
		<-f.stopped
		return fn(rayMark + `{"event": "report", "report": ` + strings.ReplaceAll(report, "\n", "") + "}\n")
	}
	rep, _, _, _ := rayLaunchTest(t, f, nil, sigs)
	if s := rep.Summary(); rep.Cut || !strings.Contains(s, "interrupted by SIGINT") || !strings.Contains(s, "1 needed SIGKILL after the grace period") {
		t.Errorf("cut %v, summary %q", rep.Cut, s)
	}
}

func TestRayEnds(t *testing.T) {
	cases := []struct {
		name, log string
		code      int
		want      string
	}{
		{"worker fails", driverLog(strings.ReplaceAll(strings.Replace(okReport, `"first": null`, `"first": "actor/1"`, 1),
			`"rank": 1, "host": "10.0.0.2", "started": true, "exit_code": 0, "signal": 0, "stopped": false`,
			`"rank": 1, "host": "10.0.0.2", "started": true, "exit_code": 3, "signal": 0, "stopped": false`)), 3, "actor/1 on 10.0.0.2 failed first"},
		{"driver refuses", driverLog(`{"launch_id": "L1", "first": null, "interrupted": false, "error": "the cluster's nodes are [x]", "workers": []}`),
			ExitStart, "the driver could not run the workers: the cluster's nodes are [x]"},
		{"no report", "Traceback (most recent call last):\nModuleNotFoundError: No module named 'ray'\n", ExitLost, "the driver ended without its report"},
		{"bad report", driverLog(`{"first": "actor/9", "error": "", "workers": []}`), ExitLost, "actor/9"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeRay()
			f.tail = chunked(c.log, 5)
			rep, _, _, _ := rayLaunchTest(t, f, nil, nil)
			if rep.ExitCode() != c.code || !strings.Contains(rep.Summary(), c.want) {
				t.Errorf("exit %d, summary %q; want %d, %q", rep.ExitCode(), rep.Summary(), c.code, c.want)
			}
		})
	}
}

// TestRayCleanupCheck: the State API is asked until nothing is left, and
// what outlives the wait is named.
func TestRayCleanupCheck(t *testing.T) {
	f := newFakeRay()
	f.leftovers = [][]string{{"actor actor:0 (ALIVE)"}, {"actor actor:0 (ALIVE)"}, nil}
	b := &Ray{Client: f, Poll: time.Millisecond, CleanupWait: time.Second}
	if got := b.checkClean(context.Background(), "L1"); !strings.HasPrefix(got, "cleanup: no live actor") || f.asked != 3 {
		t.Errorf("%q after %d questions", got, f.asked)
	}
	f.leftovers, f.asked = [][]string{{"placement group rlsolve-L1 (CREATED)"}}, 0
	b.CleanupWait = 20 * time.Millisecond
	if got := b.checkClean(context.Background(), "L1"); got != "cleanup: still there after 20ms: placement group rlsolve-L1 (CREATED)" {
		t.Errorf("%q", got)
	}
}

// TestRayStop is --stop: a running job is stopped, checked, deleted; an
// unknown one is a usage error.
func TestRayStop(t *testing.T) {
	f := newFakeRay()
	f.submitted = &RayJobSpec{SubmissionID: "rlsolve-L1"}
	b := &Ray{Client: f, Poll: time.Millisecond}
	lines, err := b.Stop(context.Background(), "L1")
	if err != nil || f.stops != 1 || len(f.deleted) != 1 {
		t.Fatalf("%v %q stops=%d deleted=%v", err, lines, f.stops, f.deleted)
	}
	if want := "Ray job rlsolve-L1 is STOPPED"; !slicesContains(lines, want) {
		t.Errorf("%q lacks %q", lines, want)
	}
	_, err = b.Stop(context.Background(), "L1")
	var le *Error
	if !errors.As(err, &le) || le.Code != ExitUsage || !strings.Contains(err.Error(), "no Ray job rlsolve-L1 on http://head:8265") {
		t.Errorf("a deleted job: %v", err)
	}
}

func TestRayKey(t *testing.T) {
	k := rayKey("L1", "stop")
	if !strings.HasPrefix(k, "gcs://_ray_pkg_") || !strings.HasSuffix(k, ".zip") || k == rayKey("L1", "kill") || k == rayKey("L2", "stop") {
		t.Errorf("%s", k)
	}
}
