package exec

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	osexec "os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/strategies"
)

// The test binary doubles as the worker program, the shim and the
// guardian (launch's default guardian is its own binary with GuardCommand):
//
//	TESTBIN __worker__ MODE ARGS...
//	TESTBIN __shim__ --plan FILE --component NAME
//	TESTBIN guard
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "__worker__":
			os.Exit(testWorker(os.Args[2:]))
		case "__shim__":
			os.Exit(Shim(os.Args[2:], os.Environ(), os.Stdout, os.Stderr))
		case GuardCommand:
			os.Exit(Guard(os.Stdin, os.Stdout))
		}
	}
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// testBin is the path of this test binary.
func testBin(t testing.TB) string {
	p, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// workerArgv runs the test binary as a worker in the given mode.
func workerArgv(t testing.TB, mode ...string) []string {
	return append([]string{testBin(t), "__worker__"}, mode...)
}

// testWorker is the worker program. Modes:
//
//	env                     print "ENV K=V" for every variable, sorted
//	start                   print "START <unix nanoseconds>"
//	lines N                 print N numbered lines (every 10th on stderr)
//	long SIZE...            print one line of each size
//	failrank R CODE DELAY   rank R exits CODE after DELAY; the others wait
//	wait                    print "ready", then wait for SIGINT/SIGTERM
//	                        and print "got SIGNAL" and exit 0
//	ignore                  print "ready", ignore SIGTERM, sleep
//	orphans                 start a child in its own session and one in
//	                        the process group, print their pids, exit 0
//	sleep                   sleep for a minute
//	family N DIR            a worker with a family (see family)
//	chatter NAME DIR        print "C NAME i" every 20ms (see family)
func testWorker(args []string) int {
	if len(args) == 0 {
		return 2
	}
	name := os.Getenv("WORKER_NAME")
	rank, _ := strconv.Atoi(os.Getenv("RANK"))
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	defer out.Flush()
	switch args[0] {
	case "env":
		env := os.Environ()
		sort.Strings(env)
		for _, kv := range env {
			fmt.Fprintf(out, "ENV %s\n", kv)
		}
		fmt.Fprintf(out, "ARGV0 %s\n", os.Args[0])
	case "start":
		fmt.Fprintf(out, "START %d\n", time.Now().UnixNano())
	case "lines":
		n, _ := strconv.Atoi(args[1])
		errw := bufio.NewWriterSize(os.Stderr, 16<<10)
		defer errw.Flush()
		fmt.Fprintf(out, "START %d\n", time.Now().UnixNano())
		for i := 0; i < n; i++ {
			w := out
			if i%10 == 9 {
				w = errw
			}
			// The line names its worker, so that a line cut into another
			// worker's output is seen.
			fmt.Fprintf(w, "L %s %d %s %s\n", name, i, strings.Repeat("x", i%37), name)
		}
	case "long":
		for _, a := range args[1:] {
			n, _ := strconv.Atoi(a)
			b := make([]byte, n)
			for i := range b {
				b[i] = 'a' + byte(i%26)
			}
			fmt.Fprintf(out, "%s\n", b)
		}
		out.Flush()
		fmt.Fprint(os.Stderr, "no newline at the end")
	case "failrank":
		r, _ := strconv.Atoi(args[1])
		code, _ := strconv.Atoi(args[2])
		d, _ := time.ParseDuration(args[3])
		if rank == r {
			time.Sleep(d)
			fmt.Fprintf(out, "failing with %d\n", code)
			return code
		}
		return waitSignal(out)
	case "wait":
		return waitSignal(out)
	case "ignore":
		signal.Ignore(syscall.SIGTERM)
		fmt.Fprintln(out, "ready")
		out.Flush()
		time.Sleep(time.Minute)
	case "orphans":
		self, _ := os.Executable()
		var pids []string
		for _, setsid := range []bool{true, false} {
			p, err := os.StartProcess(self, []string{self, "__worker__", "sleep"}, &os.ProcAttr{
				Files: []*os.File{nil, nil, nil}, Sys: &syscall.SysProcAttr{Setsid: setsid}})
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			pids = append(pids, strconv.Itoa(p.Pid))
			_ = p.Release()
		}
		fmt.Fprintf(out, "CHILDREN %s PGID %d\n", strings.Join(pids, " "), syscall.Getpgrp())
	case "sleep":
		time.Sleep(time.Minute)
	case "family":
		n, _ := strconv.Atoi(args[1])
		return family(n, args[2])
	case "chatter":
		return chatter(args[1], args[2])
	default:
		fmt.Fprintf(os.Stderr, "unknown mode %q\n", args[0])
		return 2
	}
	return 0
}

func waitSignal(out *bufio.Writer) int {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	fmt.Fprintf(out, "ready PGID %d\n", syscall.Getpgrp())
	out.Flush()
	select {
	case s := <-ch:
		fmt.Fprintf(out, "got %s\n", signalName(s))
	case <-time.After(time.Minute):
		fmt.Fprintln(out, "timeout")
		return 9
	}
	return 0
}

// loadPlan checks a testdata config (with @INTERPRETER@ replaced) and
// returns the outcome, failing the test on any error.
func loadPlan(t testing.TB, name, interpreter string) *pipeline.Outcome {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte("@INTERPRETER@"), []byte(interpreter))
	file := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	o := pipeline.CheckFile(file, pipeline.Options{GPUsPerNode: -1})
	if o.Failed() || o.Result == nil || o.Result.Plan == nil {
		t.Fatalf("%s does not check: %+v", name, o.Diagnostics)
	}
	return o
}

// newTestJob builds a job running argv (or per-component argvs).
func newTestJob(t testing.TB, res *strategies.Result, runs map[string][]string) *Job {
	t.Helper()
	job, err := NewJob(res.Plan, res.Cluster, res.Cluster.Nodes, runs)
	if err != nil {
		t.Fatal(err)
	}
	return job
}

func allRun(res *strategies.Result, argv []string) map[string][]string {
	runs := map[string][]string{}
	for _, n := range res.Plan.Names() {
		runs[n] = argv
	}
	return runs
}

// output collects what a launch writes, and checks that every write is
// whole lines.
type output struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	broken int
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(p) > 0 && p[len(p)-1] != '\n' {
		o.broken++
	}
	return o.buf.Write(p)
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// count is how many lines contain s.
func (o *output) count(s string) int {
	return strings.Count(o.String(), s)
}

// waitFor polls until cond holds or the deadline passes.
func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// workerEnvs parses "component/rank: ENV K=V" lines into one map per worker.
func workerEnvs(out string) map[string]map[string]string {
	envs := map[string]map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		who, rest, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		kv, ok := strings.CutPrefix(rest, "ENV ")
		if !ok {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		if envs[who] == nil {
			envs[who] = map[string]string{}
		}
		envs[who][k] = v
	}
	return envs
}

// buildRlsolve builds the rlsolve command for end-to-end runs.
// (once per test binary: in buildDir, removed by TestMain).
func buildRlsolve(t *testing.T) string {
	t.Helper()
	gobin, err := osexec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build rlsolve")
	}
	built.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "rlsolve-exec-test-"); built.err != nil {
			return
		}
		bin := filepath.Join(built.dir, "rlsolve")
		out, err := osexec.Command(gobin, "build", "-o", bin, "github.com/rlsolve/rlsolve/cmd/rlsolve").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
		built.bin = bin
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

var built struct {
	sync.Once
	dir, bin string
	err      error
}
