package exec

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The guardian is the process that owns a launch's units (a local worker,
// or one component's srun). Launch starts it (GuardCommand), sends it what
// to run, and decides; the guardian starts the units, writes their output
// into the logs and passes it on to launch, reaps them, and reports how
// they end. It is a child subreaper, so that every descendant of a unit
// (a daemon that called setsid, a double fork) stays its descendant and is
// found at the end. It outlives launch: when launch dies (its control pipe
// closes before "end"), the guardian stops the run itself (SIGTERM, the
// grace period, SIGKILL, the Slurm steps cancelled, leftovers swept) and
// writes every line the workers print into the logs to the last one.

// GuardCommand is the argument that makes the launch binary the guardian.
// A program that launches through this package must run Guard when it is
// started with it (`rlsolve guard` does; exec's tests do too).
const GuardCommand = "guard"

// The guardian's descriptors: 0 control (launch's ops), 1 events (to
// launch), 2 its own errors, 3 and 4 the workers' prefixed stdout and
// stderr (to launch), 5 the run's log directory when there are logs.
const (
	guardEchoOut = 3
	guardEchoErr = 4
	guardLogDir  = 5
)

// guardSpec is the first line launch sends: the whole run.
type guardSpec struct {
	ID    string        `json:"id"`
	Grace time.Duration `json:"grace"`
	// Cgroup is the run's cgroup directory ("": none).
	Cgroup string      `json:"cgroup,omitempty"`
	Logs   bool        `json:"logs,omitempty"`
	Units  []guardUnit `json:"units"`
	// Slurm names the steps to cancel when launch is gone.
	Slurm *guardSlurm `json:"slurm,omitempty"`
	// Report is --report's path: the guardian writes it when launch is
	// gone (with the backend, log directory and containment it says).
	Report      string `json:"report,omitempty"`
	Backend     string `json:"backend,omitempty"`
	LogDir      string `json:"log_dir,omitempty"`
	Containment string `json:"containment,omitempty"`
}

// guardUnit is one process to start.
type guardUnit struct {
	Path string   `json:"path"`
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	// Names prefix the output of the unit's workers ("actor/3: "): one for
	// a worker, one per task for srun (task i is Names[i]). Logs are their
	// log files in the run directory.
	Names []string `json:"names"`
	Logs  []string `json:"logs,omitempty"`
	// Srun is the component when the unit is its srun: the output is srun's
	// --label output, split back into the tasks' streams.
	Srun string `json:"srun,omitempty"`
}

type guardSlurm struct {
	JobID   string   `json:"job_id"`
	Steps   []string `json:"steps"`
	Squeue  string   `json:"squeue,omitempty"`
	Scancel string   `json:"scancel,omitempty"`
}

// guardOp is a later line from launch: "signal" (Sig to the units, all
// when Units is empty), "kill" (SIGKILL to every unit), "end" (every unit
// has ended: sweep what they left, finish the logs, exit).
type guardOp struct {
	Op    string `json:"op"`
	Sig   int    `json:"sig,omitempty"`
	Units []int  `json:"units,omitempty"`
}

// guardEvent is one line to launch. Kinds: "started" (Unit, Pid), "failed"
// (Unit could not start: Msg), "all" (N units started; no more will),
// "exit" (Unit ended with wait status Status; Msg is srun's last error
// line), "task" (an srun task ended: Task), "note" (Msg), "leftovers" (N
// processes swept), "done".
type guardEvent struct {
	Kind   string   `json:"k"`
	Unit   int      `json:"u"`
	Pid    int      `json:"pid,omitempty"`
	Status int      `json:"st,omitempty"`
	Task   *taskEnd `json:"task,omitempty"`
	Msg    string   `json:"msg,omitempty"`
	N      int      `json:"n,omitempty"`
}

// guardian is the state of the guardian process.
type guardian struct {
	spec   guardSpec
	events struct {
		sync.Mutex
		enc *json.Encoder
	}
	sink   *lineSink
	dir    *os.File
	cg     *cgroup
	cgDir  *os.File // the cgroup's directory (kept open for CLONE_INTO_CGROUP)
	cgFD   int      // its descriptor; -1: start outside, then move
	devnul *os.File

	// reapMu is held while reaping, and while the guardian runs a command
	// of its own (so that reaping never takes that command's status).
	reapMu sync.Mutex
	mu     sync.Mutex
	units  []*gunit
	byPid  map[int]*gunit
	logs   []*workerLog
	began  time.Time
}

// gunit is a started unit.
type gunit struct {
	idx     int
	spec    *guardUnit
	pid     int
	done    bool
	exited  chan struct{}
	readers sync.WaitGroup
	files   []*os.File // the read ends, closed by the pumps
	last    lastLine
	// ws is how it ended, at after the guardian began; stopped and killed
	// say the guardian stopped it, launch being gone.
	ws              syscall.WaitStatus
	at              time.Duration
	stopped, killed bool
}

// Guard runs the guardian: ops on stdin, events on stdout (see the package's
// guard* types). It returns the process's exit status.
func Guard(stdin io.Reader, stdout io.Writer) int {
	sigs := make(chan os.Signal, 8)
	// Caught, not ignored: the units get default dispositions. A terminal's
	// signals are launch's to act on; SIGTERM means stop the run.
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE, syscall.SIGTERM)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "rlsolve guard: cannot become a subreaper: %v\n", err)
	}
	g := &guardian{cgFD: -1, byPid: map[int]*gunit{}, began: time.Now()}
	g.events.enc = json.NewEncoder(stdout)
	in := bufio.NewReaderSize(stdin, 1<<20)
	if err := g.setup(in); err != nil {
		g.emit(guardEvent{Kind: "failed", Unit: -1, Msg: err.Error()})
		return 1
	}
	go g.reaper()
	started := g.startAll()
	g.emit(guardEvent{Kind: "all", N: started})

	ops := make(chan guardOp)
	go readOps(in, ops)
	for {
		select {
		case op, ok := <-ops:
			if !ok { // launch is gone
				g.abandoned()
				return 0
			}
			if op.Op == "end" {
				g.finish()
				return 0
			}
			g.do(op)
		case s := <-sigs:
			if s == syscall.SIGTERM {
				g.abandoned()
				return 0
			}
		}
	}
}

// readOps passes launch's ops on until its pipe closes (or says nonsense).
func readOps(in *bufio.Reader, ops chan<- guardOp) {
	defer close(ops)
	dec := json.NewDecoder(in)
	for {
		var op guardOp
		if err := dec.Decode(&op); err != nil {
			return
		}
		ops <- op
	}
}

// setup reads the spec and opens the logs, the run's cgroup and the
// workers' output to launch.
func (g *guardian) setup(in *bufio.Reader) error {
	line, err := in.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("reading the run: %w", err)
	}
	if err := json.Unmarshal(line, &g.spec); err != nil {
		return fmt.Errorf("reading the run: %w", err)
	}
	g.sink = &lineSink{out: os.NewFile(guardEchoOut, "stdout"), err: os.NewFile(guardEchoErr, "stderr")}
	syscall.CloseOnExec(guardEchoOut)
	syscall.CloseOnExec(guardEchoErr)
	if g.devnul, err = os.Open(os.DevNull); err != nil {
		return err
	}
	if g.spec.Cgroup != "" {
		g.cg = &cgroup{path: g.spec.Cgroup}
		if g.cgDir, err = os.Open(g.spec.Cgroup); err == nil {
			g.cgFD = int(g.cgDir.Fd())
		} else {
			g.note("cgroup %s: %v; the run is not in it", g.spec.Cgroup, err)
			g.cg = nil
		}
	}
	if g.spec.Logs {
		syscall.CloseOnExec(guardLogDir)
		g.dir = os.NewFile(guardLogDir, "logs")
	}
	var names []string
	for i := range g.spec.Units {
		u := &g.spec.Units[i]
		if len(u.Names) == 0 {
			return fmt.Errorf("unit %d has no workers", i)
		}
		if len(u.Logs) != 0 && len(u.Logs) != len(u.Names) {
			return fmt.Errorf("unit %d: %d log files for %d workers", i, len(u.Logs), len(u.Names))
		}
		for j := range u.Names {
			names = append(names, at(u.Logs, j))
		}
	}
	g.logs, err = openLogs(g.dir, names)
	return err
}

// at is xs[i], or "" past its end.
func at(xs []string, i int) string {
	if i < len(xs) {
		return xs[i]
	}
	return ""
}

func (g *guardian) emit(ev guardEvent) {
	g.events.Lock()
	defer g.events.Unlock()
	_ = g.events.enc.Encode(ev) // launch may be gone: the run goes on
}

func (g *guardian) note(format string, args ...any) {
	g.emit(guardEvent{Kind: "note", Msg: fmt.Sprintf(format, args...)})
}

// do carries out one op.
func (g *guardian) do(op guardOp) {
	switch op.Op {
	case "signal":
		g.signal(syscall.Signal(op.Sig), op.Units)
	case "kill":
		g.signal(syscall.SIGKILL, nil)
	}
}

// signal sends sig to the process group of every running unit (of those
// listed, when only is not empty).
func (g *guardian) signal(sig syscall.Signal, only []int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, u := range g.units {
		if !u.done && (len(only) == 0 || slices.Contains(only, u.idx)) {
			_ = syscall.Kill(-u.pid, sig)
		}
	}
}

// running counts the units not yet reaped.
func (g *guardian) running() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, u := range g.units {
		if !u.done {
			n++
		}
	}
	return n
}
