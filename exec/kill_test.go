package exec

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// oneNode is a single-node plan of 4 workers (actor/0-1, rollout/0-1).
const oneNode = `cluster:
  num_nodes: 1
  component_placement:
    actor: 0-1
    rollout: 2-3
inventory:
  nodes:
    - rank: 0
      hostname: gpu-0
      ip: 127.0.0.1
      accelerators: {type: NV_GPU, model: FakeGPU, count: 4}
`

var familyWorkers = []string{"actor-0", "actor-1", "rollout-0", "rollout-1"}

// containments are the ways a run is kept together here: its own cgroup
// (where cgroup v2 is delegated) and the guardian's subreaper, forced by
// RLSOLVE_NO_CGROUP.
func containments(t *testing.T) map[string][]string {
	modes := map[string][]string{"subreaper": {NoCgroupVar + "=1"}}
	if cg, err := newCgroup("probe-" + NewLaunchID()); err == nil {
		_ = cg.remove()
		modes["cgroup"] = nil
	} else {
		t.Logf("no cgroup here (%v): the subreaper alone", err)
	}
	return modes
}

// TestKillLaunch runs `rlsolve launch` with workers that have a family (a
// child in its own group, a daemon in its own session without the launch's
// mark, printing on the worker's stdout) and ends launch mid-run: SIGKILL
// (the guardian stops the run), SIGHUP (like SIGTERM: forwarded, grace,
// summary), SIGPIPE and a closed stdout (launch goes on; only the echo
// stops). Afterwards no process of the run is left, and every line any of
// them wrote is in the logs.
func TestKillLaunch(t *testing.T) {
	if testing.Short() {
		t.Skip("kills launch several times (a few seconds each)")
	}
	rlsolve := buildRlsolve(t)
	for mode, env := range containments(t) {
		for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGHUP, syscall.SIGPIPE} {
			t.Run(mode+"/"+signalName(sig), func(t *testing.T) {
				lines := 0 // forever
				if sig == syscall.SIGPIPE {
					lines = 120
				}
				k := startKillRun(t, rlsolve, lines, env)
				k.waitLines(25)
				fam := k.families()
				switch sig {
				case syscall.SIGPIPE:
					// 2>&1 | head: launch's stdout and stderr close; then a
					// SIGPIPE of its own. It goes on, and its summary
					// (which it cannot print) does not kill it.
					_ = k.stdout.Close()
					_ = k.stderrR.Close()
					_ = syscall.Kill(k.cmd.Process.Pid, syscall.SIGPIPE)
				default:
					_ = syscall.Kill(k.cmd.Process.Pid, sig)
				}
				code := k.wait()
				k.noneLeft(fam)
				k.logsHoldTruth()
				switch sig {
				case syscall.SIGKILL:
					if code != -1 {
						t.Errorf("launch exited %d, not killed", code)
					}
					// The guardian stopped the workers as launch would have:
					// SIGTERM first, so that their handlers ran.
					k.everyWorkerSaid("got SIGTERM")
					// and wrote the report launch could not.
					k.reportLost()
				case syscall.SIGHUP:
					k.reportSays(129, "interrupted")
					if !strings.Contains(k.said(), "launch: interrupted by SIGHUP after ") ||
						!strings.Contains(k.said(), "forwarded as SIGTERM to 4 worker(s)") {
						t.Errorf("summary:\n%s", k.said())
					}
					k.everyWorkerSaid("got SIGTERM")
				case syscall.SIGPIPE:
					k.reportSays(0, "ok")
					k.everyWorkerSaid(fmt.Sprintf("L %%s %d", lines-1))
				}
			})
		}
	}
}

type killRun struct {
	t                 *testing.T
	cmd               *osexec.Cmd
	stdout, stderrR   *os.File // launch's output, read here (closed to break its pipes)
	stderr            output   // what launch said on stderr
	stderrDone        chan struct{}
	dir, logs, report string
	truth             string
	guard             int
}

func startKillRun(t *testing.T, rlsolve string, lines int, env []string) *killRun {
	dir := t.TempDir()
	k := &killRun{t: t, dir: dir, logs: filepath.Join(dir, "logs"), report: filepath.Join(dir, "report.json"),
		truth: filepath.Join(dir, "truth"), stderrDone: make(chan struct{})}
	if err := os.Mkdir(k.truth, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "one.yaml")
	if err := os.WriteFile(cfg, []byte(oneNode), 0o644); err != nil {
		t.Fatal(err)
	}
	k.cmd = osexec.Command(rlsolve, "launch", cfg, "--run", fmt.Sprintf("*=%s __worker__ family %d %s", testBin(t), lines, k.truth),
		"--log-dir", k.logs, "--grace", "5s", "--report", k.report)
	k.cmd.Env = append(append(os.Environ(), "NO_COLOR=1"), env...)
	k.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	outW, errW := k.pipe(&k.stdout), k.pipe(&k.stderrR)
	k.cmd.Stdout, k.cmd.Stderr = outW, errW
	if err := k.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	outW.Close()
	errW.Close()
	go func() { _, _ = io.Copy(io.Discard, k.stdout) }() // the echo, until the test closes it
	go func() {
		defer close(k.stderrDone)
		_, _ = io.Copy(&k.stderr, k.stderrR)
	}()
	t.Cleanup(func() {
		if k.cmd.ProcessState == nil {
			_ = k.cmd.Process.Kill()
			_ = k.cmd.Wait()
		}
		k.stdout.Close()
		k.stderrR.Close()
	})
	return k
}

// pipe makes a pipe whose read end is *r; it returns the write end.
func (k *killRun) pipe(r **os.File) *os.File {
	pr, pw, err := os.Pipe()
	if err != nil {
		k.t.Fatal(err)
	}
	*r = pr
	return pw
}

// said is what launch wrote on stderr (all of it once it has ended).
func (k *killRun) said() string {
	if k.cmd.ProcessState != nil {
		select {
		case <-k.stderrDone:
		case <-time.After(2 * time.Second):
		}
	}
	return k.stderr.String()
}

// waitLines waits until every worker has written n lines (and its daemon
// 3), and finds the guardian (launch's child).
func (k *killRun) waitLines(n int) {
	waitFor(k.t, 20*time.Second, fmt.Sprintf("%d lines from each worker", n), func() bool {
		for _, w := range familyWorkers {
			if len(k.truthLines(w)) < n || len(k.truthLines(w+"-daemon")) < 3 {
				return false
			}
		}
		return true
	})
	for pid, p := range procTable() {
		if p.ppid == k.cmd.Process.Pid && p.live() {
			k.guard = pid
		}
	}
	if k.guard == 0 {
		k.t.Fatal("no guardian under launch")
	}
}

func (k *killRun) truthLines(name string) []string {
	data, _ := os.ReadFile(filepath.Join(k.truth, name+".truth"))
	return strings.SplitAfter(string(data), "\n")[:strings.Count(string(data), "\n")]
}

// families are the pids of the workers, their children and daemons.
func (k *killRun) families() []int {
	var pids []int
	for _, w := range familyWorkers {
		for _, line := range k.truthLines(w) {
			f := strings.Fields(line)
			if len(f) == 4 && f[0] == "FAMILY" {
				for _, s := range f[1:] {
					n, _ := strconv.Atoi(s)
					pids = append(pids, n)
				}
			}
		}
	}
	if len(pids) != 3*len(familyWorkers) {
		k.t.Fatalf("families: %v", pids)
	}
	return pids
}

// wait waits for launch and returns its exit status (-1: a signal).
func (k *killRun) wait() int {
	done := make(chan error, 1)
	go func() { done <- k.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		k.t.Fatalf("launch did not end:\n%s", k.said())
	}
	return k.cmd.ProcessState.ExitCode()
}

// noneLeft waits (the guardian's grace period, then a margin) until no
// process of the run is alive: the families, the guardian, anything with
// the launch's mark or in its cgroup.
func (k *killRun) noneLeft(fam []int) {
	id := k.launchID()
	pids := append(slices.Clone(fam), k.guard)
	var left []int
	alive := func() bool {
		left = left[:0]
		for _, pid := range pids {
			if p, ok := readProc(pid); ok && p.live() {
				left = append(left, pid)
			}
		}
		left = append(left, Survivors(id, nil)...)
		if dir, err := ownCgroupDir(); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "rlsolve-"+id)); err == nil {
				left = append(left, -1) // the run's cgroup is still there
			}
		}
		return len(left) > 0
	}
	deadline := time.Now().Add(15 * time.Second)
	for alive() {
		if time.Now().After(deadline) {
			k.t.Fatalf("left alive (-1: the run's cgroup): %v\n%s", left, k.said())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (k *killRun) launchID() string {
	id, err := os.Readlink(filepath.Join(k.logs, LatestLink))
	if err != nil {
		k.t.Fatal(err)
	}
	return id
}

// logsHoldTruth: every line a worker or its daemon wrote whole is in the
// worker's log, in the order written.
func (k *killRun) logsHoldTruth() {
	for _, w := range familyWorkers {
		data, err := os.ReadFile(filepath.Join(k.logs, LatestLink, w+".log"))
		if err != nil {
			k.t.Fatal(err)
		}
		log := strings.SplitAfter(string(data), "\n")
		for _, src := range []string{w, w + "-daemon"} {
			truth := k.truthLines(src)
			if len(truth) == 0 {
				k.t.Errorf("%s wrote nothing", src)
			}
			i := 0
			for _, line := range log {
				if i < len(truth) && line == truth[i] {
					i++
				}
			}
			if i < len(truth) {
				k.t.Errorf("%s.log lacks %s's line %d of %d: %q", w, src, i+1, len(truth), truth[i])
			}
		}
	}
}

// everyWorkerSaid: each worker's log has the line (%s: the worker).
func (k *killRun) everyWorkerSaid(format string) {
	for _, w := range familyWorkers {
		line := format
		if strings.Contains(format, "%s") {
			line = fmt.Sprintf(format, w)
		}
		data, _ := os.ReadFile(filepath.Join(k.logs, LatestLink, w+".log"))
		if !bytes.Contains(data, []byte("\n"+line+"\n")) {
			k.t.Errorf("%s.log has no %q", w, line)
		}
	}
}

// reportSays checks the JSON report's exit status and outcome.
func (k *killRun) reportSays(code int, outcome string) {
	data, err := os.ReadFile(k.report)
	if err != nil {
		k.t.Fatalf("%v\n%s", err, k.said())
	}
	var rep struct {
		FormatVersion string `json:"format_version"`
		ExitStatus    int    `json:"exit_status"`
		Outcome       string `json:"outcome"`
		Leftovers     int    `json:"leftovers"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		k.t.Fatal(err)
	}
	if rep.FormatVersion != ReportFormatVersion || rep.ExitStatus != code || rep.Outcome != outcome || k.cmd.ProcessState.ExitCode() != code {
		k.t.Errorf("report %+v, exit %d; want %d %s\n%s", rep, k.cmd.ProcessState.ExitCode(), code, outcome, k.said())
	}
	// The daemons (and the sleeping children, in their own groups) are
	// what the workers left.
	if rep.Leftovers < 2*len(familyWorkers) {
		k.t.Errorf("the launch ended %d leftovers, want %d", rep.Leftovers, 2*len(familyWorkers))
	}
}

// reportLost: the guardian's report of a launch killed mid-run: lost
// (124), every worker stopped by it.
func (k *killRun) reportLost() {
	data, err := os.ReadFile(k.report)
	if err != nil {
		k.t.Fatalf("no report after launch was killed: %v\n%s", err, k.said())
	}
	var rep struct {
		ExitStatus int    `json:"exit_status"`
		Outcome    string `json:"outcome"`
		Error      string `json:"error"`
		Total      int    `json:"total"`
		Stopped    int    `json:"stopped"`
		Workers    []struct {
			Component string `json:"component"`
			Rank      *int   `json:"rank"`
			Stopped   bool   `json:"stopped"`
			Log       string `json:"log"`
		} `json:"workers"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		k.t.Fatal(err)
	}
	n := len(familyWorkers)
	if rep.ExitStatus != ExitLost || rep.Outcome != "lost" || !strings.Contains(rep.Error, "guardian") || rep.Total != n || rep.Stopped != n || len(rep.Workers) != n {
		k.t.Errorf("report %+v", rep)
	}
	for _, w := range rep.Workers {
		if w.Rank == nil || !w.Stopped || filepath.Base(w.Log) != fmt.Sprintf("%s-%d.log", w.Component, *w.Rank) {
			k.t.Errorf("worker %+v", w)
		}
	}
}

// TestGuardianKilled: should the guardian itself die mid-run, its workers
// die with it (their parent-death signal), what they left comes to launch
// (a subreaper) or is in the run's cgroup, and launch ends it: its own
// failure, exit 124.
func TestGuardianKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds")
	}
	o := loadPlan(t, "many.yaml", "")
	for mode, env := range containments(t) {
		t.Run(mode, func(t *testing.T) {
			truth := t.TempDir()
			job := newTestJob(t, o.Result, map[string][]string{"a": workerArgv(t, "family", "0", truth)})
			done := make(chan *Report, 1)
			go func() {
				rep, err := Local{}.Launch(context.Background(), job, Options{Environ: append(slices.Clone(baseEnv), env...), Grace: time.Second})
				if err != nil {
					t.Error(err)
				}
				done <- rep
			}()
			k := &killRun{t: t, truth: truth}
			waitFor(t, 20*time.Second, "the families", func() bool {
				// A worker starts its daemon before it writes its FAMILY
				// line: wait for both.
				n := 0
				for r := 0; r < 8; r++ {
					w := "a-" + strconv.Itoa(r)
					if len(k.truthLines(w+"-daemon")) > 0 && len(k.truthLines(w)) > 0 {
						n++
					}
				}
				return n == 8
			})
			var fam []int
			for r := 0; r < 8; r++ {
				for _, line := range k.truthLines("a-" + strconv.Itoa(r)) {
					if f := strings.Fields(line); len(f) == 4 && f[0] == "FAMILY" {
						for _, s := range f[1:] {
							n, _ := strconv.Atoi(s)
							fam = append(fam, n)
						}
					}
				}
			}
			guard := guardianOf(os.Getpid())
			if guard == 0 || len(fam) != 24 {
				t.Fatalf("guardian %d, families %v", guard, fam)
			}
			_ = syscall.Kill(guard, syscall.SIGKILL)
			var rep *Report
			select {
			case rep = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("launch did not end")
			}
			if rep == nil {
				return
			}
			if rep.ExitCode() != ExitLost || !strings.Contains(rep.Lost, "guardian") || !strings.Contains(rep.Summary(), "lost control") {
				t.Errorf("exit %d, lost %q\n%s", rep.ExitCode(), rep.Lost, rep.Summary())
			}
			for _, pid := range fam {
				if p, ok := readProc(pid); ok && p.live() {
					t.Errorf("process %d survived", pid)
				}
			}
			noSurvivors(t, job.ID)
		})
	}
}

// guardianOf finds the guardian among pid's children.
func guardianOf(pid int) int {
	for child, p := range procTable() {
		if p.ppid != pid || !p.live() {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(child) + "/cmdline")
		if args := strings.Split(string(cmd), "\x00"); len(args) > 1 && args[1] == GuardCommand {
			return child
		}
	}
	return 0
}
