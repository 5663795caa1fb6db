package exec

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/render"
)

// baseEnv is what the test workers inherit: small and known, so that
// everything else in their environment is the contract.
var baseEnv = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "PYTHONPATH=/base/lib", "RLSOLVE_TEST_BASE=1"}

// TestLocalEnvContract starts every worker of contract.yaml and checks,
// from inside each, that its environment is exactly the inherited one plus
// the plan's (what `plan --output env` prints: the same Cluster.Env),
// MASTER_PORT and RLSOLVE_LAUNCH_ID, and spells out the key variables.
func TestLocalEnvContract(t *testing.T) {
	bin := testBin(t)
	o := loadPlan(t, "contract.yaml", bin)
	runs := allRun(o.Result, workerArgv(t, "env"))
	runs["env"] = []string{"python3", "__worker__", "env"} // the group's interpreter is this binary
	job := newTestJob(t, o.Result, runs)
	out := &output{}
	logDir := t.TempDir()
	rep, err := Local{Oversubscribe: true}.Launch(context.Background(), job, Options{Stdout: out, Stderr: out, Environ: baseEnv, LogDir: logDir, Grace: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ExitCode() != 0 || rep.First != nil {
		t.Fatalf("exit %d:\n%s\n%s", rep.ExitCode(), rep.Summary(), out)
	}
	envs := workerEnvs(out.String())
	doc, err := render.NewDocument(o.RenderInput())
	if err != nil {
		t.Fatal(err)
	}
	ports := map[string]string{}
	seenPorts := map[string]string{}
	total := 0
	for _, name := range doc.Order {
		for r, p := range doc.Components[name].Placements {
			total++
			who := fmt.Sprintf("%s/%d", name, r)
			got := envs[who]
			if got == nil {
				t.Fatalf("%s reported no environment:\n%s", who, out)
			}
			want := map[string]string{}
			for _, kv := range baseEnv {
				k, v, _ := strings.Cut(kv, "=")
				want[k] = v
			}
			for k, v := range p.Env {
				if old, ok := want[k]; ok && model.PathLikeEnv(k) {
					v = model.MergePath(v, old)
				}
				want[k] = v
			}
			want[LaunchIDVar] = job.ID
			port := got["MASTER_PORT"]
			if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
				t.Errorf("%s: MASTER_PORT %q", who, port)
			}
			if ports[name] == "" {
				ports[name] = port
				if other, dup := seenPorts[port]; dup {
					t.Errorf("%s and %s share MASTER_PORT %s", name, other, port)
				}
				seenPorts[port] = name
			} else if port != ports[name] {
				t.Errorf("%s: MASTER_PORT %s, rank 0 has %s", who, port, ports[name])
			}
			want["MASTER_PORT"] = port
			diffEnv(t, who, got, want)
		}
	}
	if len(envs) != total || total != 13 {
		t.Errorf("%d workers reported, %d planned", len(envs), total)
	}

	// The contract, spelled out for a few workers.
	expect := map[string]map[string]string{
		// Collocated: actor/1 and rollout/1 share GPU 1.
		"actor/1": {"RANK": "1", "WORLD_SIZE": "4", "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "1", "NODE_RANK": "0",
			"MASTER_ADDR": "127.0.0.1", "CUDA_VISIBLE_DEVICES": "1", "VISIBLE_DEVICES": "1", "WORKER_NAME": "actor:1",
			"GROUP_NAME": "actor", "NODE_LOCAL_RANK": "1", "NODE_LOCAL_WORLD_SIZE": "4", "ACCELERATOR_TYPE": "NV_GPU",
			"ACCELERATOR_MODEL": "NV_GPU:FakeGPU", "RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES": "1", "PYTHONPATH": "/base/lib"},
		"rollout/1": {"RANK": "1", "WORLD_SIZE": "4", "CUDA_VISIBLE_DEVICES": "1", "WORKER_NAME": "rollout:1", "MASTER_ADDR": "127.0.0.1"},
		// Two GPUs per worker.
		"inference/1": {"RANK": "1", "WORLD_SIZE": "2", "CUDA_VISIBLE_DEVICES": "6,7", "LOCAL_HARDWARE_RANKS": "6,7",
			"LOCAL_ACCELERATOR_RANK": "6", "EGL_DEVICE_ID": "6", "NODE_LOCAL_RANK": "1", "NODE_LOCAL_WORLD_SIZE": "2"},
		// CPU-only, on node 1 (127.0.0.2), through the group's interpreter and variables.
		"env/2": {"RANK": "2", "WORLD_SIZE": "3", "NODE_RANK": "0", "CLUSTER_NODE_RANK": "1", "LOCAL_RANK": "0",
			"LOCAL_WORLD_SIZE": "1", "LOCAL_ACCELERATOR_RANK": "-1", "ACCELERATOR_TYPE": "NO_ACCEL", "VISIBLE_DEVICES": "",
			"MASTER_ADDR": "127.0.0.2", "ROS_DOMAIN_ID": "7", "PYTHONPATH": "/opt/rlsolve-test:/base/lib"},
	}
	for who, kv := range expect {
		for k, v := range kv {
			if got, ok := envs[who][k]; !ok || got != v {
				t.Errorf("%s: %s=%q (set: %v), want %q", who, k, got, ok, v)
			}
		}
	}
	for r := 0; r < 3; r++ {
		if v, ok := envs[fmt.Sprintf("env/%d", r)]["CUDA_VISIBLE_DEVICES"]; ok {
			t.Errorf("CPU-only env/%d has CUDA_VISIBLE_DEVICES=%q", r, v)
		}
	}
	if ports["actor"] == ports["rollout"] {
		t.Errorf("collocated components share MASTER_PORT %s", ports["actor"])
	}
	if !strings.Contains(out.String(), "env/0: ARGV0 "+bin+"\n") {
		t.Errorf("python3 was not replaced by the group's interpreter")
	}
	// The log files hold each worker's lines, unprefixed.
	log, err := os.ReadFile(filepath.Join(rep.LogDir, "inference-1.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(log, []byte("\nENV CUDA_VISIBLE_DEVICES=6,7\n")) || bytes.Contains(log, []byte("inference/1: ")) {
		t.Errorf("inference-1.log:\n%s", log)
	}
	if out.broken > 0 {
		t.Errorf("%d writes were not whole lines", out.broken)
	}
}

func diffEnv(t *testing.T, who string, got, want map[string]string) {
	t.Helper()
	var diffs []string
	for k, v := range want {
		if g, ok := got[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("missing %s=%q", k, v))
		} else if g != v {
			diffs = append(diffs, fmt.Sprintf("%s=%q, want %q", k, g, v))
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("extra %s=%q", k, v))
		}
	}
	sort.Strings(diffs)
	for _, d := range diffs {
		t.Errorf("%s: %s", who, d)
	}
}

// TestLocalFailure: a failing worker's status comes back, first, and the
// others are stopped with SIGTERM (they exit on it: no SIGKILL needed).
func TestLocalFailure(t *testing.T) {
	o := loadPlan(t, "contract.yaml", "")
	runs := allRun(o.Result, workerArgv(t, "wait"))
	runs["inference"] = workerArgv(t, "failrank", "1", "3", "300ms")
	job := newTestJob(t, o.Result, runs)
	out := &output{}
	rep, err := Local{Oversubscribe: true}.Launch(context.Background(), job, Options{Stdout: out, Stderr: out, Environ: baseEnv, Grace: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if rep.First == nil || rep.First.Name() != "inference/1" || rep.ExitCode() != 3 {
		t.Fatalf("first failure %+v, exit %d\n%s", rep.First, rep.ExitCode(), rep.Summary())
	}
	if n := out.count("got SIGTERM"); n != 12 {
		t.Errorf("%d workers got SIGTERM, want 12:\n%s", n, out)
	}
	if rep.Killed != 0 || rep.Elapsed > 5*time.Second {
		t.Errorf("killed %d, took %v", rep.Killed, rep.Elapsed)
	}
	if rep.Stopped != 12 {
		t.Errorf("%d stopped, want 12", rep.Stopped)
	}
	s := rep.Summary()
	if !strings.Contains(s, "inference/1 on gpu-0 failed first") || !strings.Contains(s, "exited with status 3; exit status 3") {
		t.Errorf("summary:\n%s", s)
	}
	noSurvivors(t, job.ID)
}

// TestLocalGrace: workers that ignore SIGTERM get SIGKILL after the grace
// period.
func TestLocalGrace(t *testing.T) {
	o := loadPlan(t, "contract.yaml", "")
	job := newTestJob(t, o.Result, map[string][]string{"actor": workerArgv(t, "ignore")})
	out := &output{}
	sigs := make(chan os.Signal, 1)
	done := make(chan *Report, 1)
	go func() {
		rep, err := Local{Oversubscribe: true}.Launch(context.Background(), job, Options{Stdout: out, Stderr: out, Environ: baseEnv, Grace: 300 * time.Millisecond, Signals: sigs})
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	waitFor(t, 10*time.Second, "4 ready workers", func() bool { return out.count("ready") == 4 })
	start := time.Now()
	sigs <- syscall.SIGTERM
	rep := <-done
	if rep == nil {
		return
	}
	took := time.Since(start)
	if rep.Killed != 4 || rep.ExitCode() != 128+int(syscall.SIGTERM) || took < 300*time.Millisecond || took > 5*time.Second {
		t.Errorf("killed %d, exit %d, took %v\n%s", rep.Killed, rep.ExitCode(), took, rep.Summary())
	}
	for _, r := range rep.Workers {
		if r.Signal != syscall.SIGKILL {
			t.Errorf("%s: %s", r.Name(), r.How())
		}
	}
	noSurvivors(t, job.ID)
}

// TestLocalSignals: SIGINT and SIGTERM reach every worker.
func TestLocalSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(signalName(sig), func(t *testing.T) {
			o := loadPlan(t, "contract.yaml", "")
			job := newTestJob(t, o.Result, allRun(o.Result, workerArgv(t, "wait")))
			out := &output{}
			sigs := make(chan os.Signal, 1)
			done := make(chan *Report, 1)
			go func() {
				rep, err := Local{Oversubscribe: true}.Launch(context.Background(), job, Options{Stdout: out, Stderr: out, Environ: baseEnv, Grace: 10 * time.Second, Signals: sigs})
				if err != nil {
					t.Error(err)
				}
				done <- rep
			}()
			waitFor(t, 10*time.Second, "13 ready workers", func() bool { return out.count("ready") == 13 })
			sigs <- sig
			rep := <-done
			if rep == nil {
				return
			}
			if n := out.count("got " + signalName(sig)); n != 13 {
				t.Errorf("%d workers got %s:\n%s", n, signalName(sig), out)
			}
			if rep.ExitCode() != 128+int(sig) || rep.Interrupted != sig || rep.First != nil || rep.Killed != 0 {
				t.Errorf("exit %d\n%s", rep.ExitCode(), rep.Summary())
			}
			noSurvivors(t, job.ID)
		})
	}
}

// TestLocalNoOrphans: children a worker leaves behind, in its process
// group or in a session of their own, do not survive the launch.
func TestLocalNoOrphans(t *testing.T) {
	o := loadPlan(t, "contract.yaml", "")
	job := newTestJob(t, o.Result, map[string][]string{"actor": workerArgv(t, "orphans")})
	out := &output{}
	rep, err := Local{Oversubscribe: true}.Launch(context.Background(), job, Options{Stdout: out, Stderr: out, Environ: baseEnv, Grace: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ExitCode() != 0 {
		t.Fatalf("%s", rep.Summary())
	}
	var pids []int
	pgids := map[int]bool{}
	for _, line := range strings.Split(out.String(), "\n") {
		_, rest, _ := strings.Cut(line, ": ")
		f := strings.Fields(rest)
		if len(f) == 5 && f[0] == "CHILDREN" && f[3] == "PGID" {
			for _, p := range f[1:3] {
				n, _ := strconv.Atoi(p)
				pids = append(pids, n)
			}
			g, _ := strconv.Atoi(f[4])
			pgids[g] = true
		}
	}
	if len(pids) != 8 || len(pgids) != 4 {
		t.Fatalf("children %v, groups %v:\n%s", pids, pgids, out)
	}
	if rep.Leftovers != 8 {
		t.Errorf("the launch ended %d leftover processes, want 8", rep.Leftovers)
	}
	for _, pid := range pids {
		if p, ok := readProc(pid); ok && p.live() {
			t.Errorf("child %d survived (state %c)", pid, p.state)
		}
	}
	if left := Survivors("", pgids); len(left) > 0 {
		t.Errorf("processes left in the workers' groups: %v", left)
	}
	noSurvivors(t, job.ID)
}

func noSurvivors(t *testing.T, id string) {
	t.Helper()
	if left := Survivors(id, nil); len(left) > 0 {
		t.Errorf("processes of launch %s survive: %v", id, left)
	}
}

// lineChecker verifies, as the output streams by, that every line is whole
// and in order: "w/r: L w:r i xxx w:r" with i counting up per worker and
// stream (stdout has the i with i%10 != 9, stderr the others).
type lineChecker struct {
	mu     sync.Mutex
	last   map[string]int // worker, or worker+"#err": the last i seen
	lines  int
	starts map[string]int64
	bad    []string
}

// nextIndex is the index after last on the stream (stderr or not).
func nextIndex(last int, stderr bool) int {
	i := last + 1
	for (i%10 == 9) != stderr {
		i++
	}
	return i
}

func (c *lineChecker) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(p) > 0 && p[len(p)-1] != '\n' {
		c.bad = append(c.bad, "write not ending a line")
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(p), "\n"), "\n") {
		c.lines++
		who, rest, ok := strings.Cut(line, ": ")
		if !ok {
			c.bad = append(c.bad, line)
			continue
		}
		if ts, ok := strings.CutPrefix(rest, "START "); ok {
			n, _ := strconv.ParseInt(ts, 10, 64)
			c.starts[who] = n
			continue
		}
		f := strings.Split(rest, " ")
		name := strings.Replace(who, "/", ":", 1)
		if len(f) != 5 || f[0] != "L" || f[1] != name || f[4] != name {
			if len(c.bad) < 10 {
				c.bad = append(c.bad, line)
			}
			continue
		}
		i, _ := strconv.Atoi(f[2])
		stderr := i%10 == 9
		stream := who
		if stderr {
			stream += "#err"
		}
		last, ok := c.last[stream]
		if !ok {
			last = -1
		}
		if want := nextIndex(last, stderr); i != want || len(f[3]) != i%37 {
			if len(c.bad) < 10 {
				c.bad = append(c.bad, fmt.Sprintf("%s: line %d, want %d", who, i, want))
			}
		}
		c.last[stream] = i
	}
	return len(p), nil
}

// Test64Workers10000Lines: 64 workers print 10,000 lines each (every
// 10th on stderr) as fast as they can; every line arrives whole, in
// order, exactly once. It also measures the time from Launch to the last
// worker's first instruction.
func Test64Workers10000Lines(t *testing.T) {
	o := loadPlan(t, "many.yaml", "")
	n := 10000
	if testing.Short() {
		n = 1000
	}
	job := newTestJob(t, o.Result, allRun(o.Result, workerArgv(t, "lines", strconv.Itoa(n))))
	if len(job.workers()) != 64 {
		t.Fatalf("%d workers", len(job.workers()))
	}
	c := &lineChecker{last: map[string]int{}, starts: map[string]int64{}}
	logDir := t.TempDir()
	t0 := time.Now()
	rep, err := Local{Oversubscribe: true}.Launch(context.Background(), job, Options{Stdout: c, Stderr: c, Environ: baseEnv, LogDir: logDir})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ExitCode() != 0 {
		t.Fatalf("%s", rep.Summary())
	}
	if len(c.bad) > 0 {
		t.Fatalf("mangled or out-of-order lines: %q", c.bad)
	}
	if want := 64 * (n + 1); c.lines != want {
		t.Errorf("%d lines, want %d", c.lines, want)
	}
	for _, w := range job.workers() {
		if out, errs := c.last[w.Name()], c.last[w.Name()+"#err"]; out != n-2 || errs != n-1 {
			t.Errorf("%s: stdout up to line %d, stderr up to %d", w.Name(), out, errs)
		}
	}
	var last int64
	for _, s := range c.starts {
		last = max(last, s)
	}
	if len(c.starts) != 64 {
		t.Errorf("%d workers said START", len(c.starts))
	}
	t.Logf("64 workers: all started %v after Launch (all forked after %v); %d lines in %v",
		time.Duration(last-t0.UnixNano()).Round(time.Millisecond), rep.AllStarted.Round(time.Millisecond), c.lines, rep.Elapsed.Round(time.Millisecond))
	data, err := os.ReadFile(filepath.Join(rep.LogDir, "h-7.log"))
	if err != nil {
		t.Fatal(err)
	}
	if got := bytes.Count(data, []byte("\n")); got != n+1 || !bytes.Contains(data, []byte(fmt.Sprintf("\nL h:7 %d ", n-1))) {
		t.Errorf("h-7.log has %d lines", got)
	}
}

// TestLocalLongLines: lines far longer than a pipe's buffer stay whole up
// to MaxLine; longer ones come in MaxLine pieces; a last line without a
// newline is kept.
func TestLocalLongLines(t *testing.T) {
	o := loadPlan(t, "contract.yaml", "")
	sizes := []int{0, 1023, 1024, 1025, 100000, MaxLine, 3 * MaxLine / 2}
	args := []string{"long"}
	for _, s := range sizes {
		args = append(args, strconv.Itoa(s))
	}
	job := newTestJob(t, o.Result, map[string][]string{"inference": workerArgv(t, args...)})
	out, errOut := &output{}, &output{}
	logDir := t.TempDir()
	rep, err := Local{Oversubscribe: true}.Launch(context.Background(), job, Options{Stdout: out, Stderr: errOut, Environ: baseEnv, LogDir: logDir})
	if err != nil || rep.ExitCode() != 0 {
		t.Fatalf("%v %s", err, rep.Summary())
	}
	var got []int
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if rest, ok := strings.CutPrefix(line, "inference/1: "); ok {
			got = append(got, len(rest))
		}
	}
	want := []int{0, 1023, 1024, 1025, 100000, MaxLine, MaxLine, MaxLine / 2}
	if fmt.Sprint(got) != fmt.Sprint(want) || out.broken+errOut.broken > 0 {
		t.Errorf("line lengths %v, want %v", got, want)
	}
	if !strings.Contains(errOut.String(), "inference/1: no newline at the end\n") {
		t.Errorf("stderr %q", errOut.String())
	}
	data, _ := os.ReadFile(filepath.Join(rep.LogDir, "inference-1.log"))
	if len(data) != 1023+1024+1025+100000+2*MaxLine+MaxLine/2+len("no newline at the end")+9 {
		t.Errorf("log has %d bytes", len(data))
	}
}

// TestLocalNotFound: a program that does not exist stops the launch before
// anything starts.
func TestLocalNotFound(t *testing.T) {
	o := loadPlan(t, "contract.yaml", "/nonexistent/python")
	job := newTestJob(t, o.Result, map[string][]string{"actor": workerArgv(t, "env"), "env": {"python", "x.py"}})
	_, err := Local{Oversubscribe: true}.Launch(context.Background(), job, Options{Environ: baseEnv})
	if err == nil || !strings.Contains(err.Error(), "env/0: cannot run /nonexistent/python") {
		t.Fatalf("err = %v", err)
	}
	noSurvivors(t, job.ID)
}

// TestLocalSecondSignal: the first signal says the launch waits for the
// grace period and how to end it; a second one kills at once, and the
// summary does not claim the grace period ran.
func TestLocalSecondSignal(t *testing.T) {
	o := loadPlan(t, "contract.yaml", "")
	job := newTestJob(t, o.Result, map[string][]string{"actor": workerArgv(t, "ignore")})
	out := &output{}
	sigs := make(chan os.Signal, 1)
	notes := make(chan string, 8)
	notef := func(format string, a ...any) { notes <- fmt.Sprintf(format, a...) }
	done := make(chan *Report, 1)
	go func() {
		// A grace this long ends the test only through the second signal.
		rep, err := Local{Oversubscribe: true}.Launch(context.Background(), job, Options{Stdout: out, Stderr: out, Environ: baseEnv, Grace: time.Hour, Signals: sigs, Notef: notef})
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	waitFor(t, 10*time.Second, "4 ready workers", func() bool { return out.count("ready") == 4 })
	sigs <- syscall.SIGTERM
	var note string
	for !strings.Contains(note, "waiting") {
		select {
		case note = <-notes:
		case <-time.After(10 * time.Second):
			t.Fatal("no note that launch waits for the grace period")
		}
	}
	if !strings.Contains(note, "got SIGTERM: waiting up to 1h0m0s (--grace)") || !strings.Contains(note, "Ctrl-C again to kill them now") {
		t.Errorf("note %q", note)
	}
	sigs <- syscall.SIGTERM
	rep := <-done
	if rep == nil {
		return
	}
	s := rep.Summary()
	if rep.Killed != 4 || !rep.Cut || !strings.Contains(s, "4 got SIGKILL at once: a second signal cut the grace period short") || strings.Contains(s, "after the grace period") {
		t.Errorf("killed %d, cut %v, summary:\n%s", rep.Killed, rep.Cut, s)
	}
	noSurvivors(t, job.ID)
}
