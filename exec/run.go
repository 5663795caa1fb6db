package exec

import (
	"context"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// NoCgroupVar, set (not "0") in launch's environment, keeps the run out of
// a cgroup of its own even where cgroup v2 is delegated (where something
// else manages the cgroups); the guardian's subreaper then keeps the run.
const NoCgroupVar = "RLSOLVE_NO_CGROUP"

// run is one launch's machinery, the same for every backend: its log
// directory, its containment (cgroup or subreaper), the guardian that owns
// its units, and the supervisor that decides.
type run struct {
	job   *Job
	opt   *Options
	rep   *Report
	start time.Time
	sink  *lineSink
	dir   *runDir
	// noLogs: the directory holds only the Slurm plan (no --log-dir).
	noLogs bool
	// logs are the workers' log files, by worker name.
	logs  map[string]string
	cg    *cgroup
	guard *guardConn
	// before are launch's children from before the run (not the run's).
	before map[int]bool
	// events are the units' events for the supervisor; translated ends
	// when the guardian's events do (and says whether it said "done").
	events     chan unitEvent
	translated chan bool
	loopDone   chan struct{}
	notesMu    sync.Mutex // notes come from the translator too
}

func newRun(job *Job, opt *Options, backend string) *run {
	return &run{job: job, opt: opt, start: time.Now(),
		rep: &Report{ID: job.ID, Backend: backend, Total: len(job.workers())}, logs: map[string]string{},
		sink: &lineSink{out: opt.Stdout, err: opt.Stderr}}
}

func (r *run) notef(format string, args ...any) {
	r.notesMu.Lock()
	defer r.notesMu.Unlock()
	r.rep.Notes = append(r.rep.Notes, fmt.Sprintf(format, args...))
	r.opt.notef(format, args...)
}

// openDir makes the run's log directory (none without Options.LogDir).
func (r *run) openDir() error {
	d, err := makeRunDir(r.opt.LogDir, r.job.ID, r.notef)
	if err != nil {
		return &Error{Code: ExitStart, Err: err}
	}
	r.dir = d
	if d != nil && !r.noLogs {
		r.rep.LogDir = d.path
	}
	return nil
}

// contain makes launch a child subreaper (the guardian's orphans come to
// it, should the guardian die) and the run its cgroup when it can.
func (r *run) contain() {
	r.before = map[int]bool{}
	self := os.Getpid()
	for pid, p := range procTable() {
		if p.ppid == self {
			r.before[pid] = true
		}
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		r.notef("cannot become a child subreaper: %v", err)
	}
	if v, _ := envValue(r.opt.environ(), NoCgroupVar); v != "" && v != "0" {
		r.rep.Containment = "subreaper (no cgroup: " + NoCgroupVar + " is set)"
		return
	}
	cg, err := newCgroup(r.job.ID)
	if err != nil {
		r.rep.Containment = "subreaper (no cgroup: " + err.Error() + ")"
		return
	}
	r.cg = cg
	r.rep.Containment = "cgroup " + cg.path
}

// startGuard starts the guardian with the units and a translator of its
// events (translate turns one unit event of the guardian's into the
// supervisor's).
func (r *run) startGuard(units []guardUnit, slurm *guardSlurm, translate func(guardEvent) []unitEvent) error {
	argv, err := r.opt.guard()
	if err != nil {
		return &Error{Code: ExitStart, Err: err}
	}
	spec := &guardSpec{ID: r.job.ID, Grace: r.opt.grace(), Logs: r.dir != nil && !r.noLogs, Units: units, Slurm: slurm,
		Report: r.opt.Report, Backend: r.rep.Backend, LogDir: r.rep.LogDir, Containment: r.rep.Containment}
	if r.cg != nil {
		spec.Cgroup = r.cg.path
	}
	r.events = make(chan unitEvent, 64)
	r.translated = make(chan bool, 1)
	r.loopDone = make(chan struct{})
	dir := r.dir
	if !spec.Logs {
		dir = nil
	}
	g, err := startGuard(argv, r.opt.environ(), spec, dir, r.sink)
	if g == nil {
		return &Error{Code: ExitStart, Err: err}
	}
	r.guard = g
	go r.translate(translate)
	if err != nil { // the guardian started but could not be told the run
		r.guard.closeCtl()
		return &Error{Code: ExitStart, Err: err}
	}
	return nil
}

// translate turns the guardian's events into the supervisor's, until the
// guardian's events end.
func (r *run) translate(unit func(guardEvent) []unitEvent) {
	done := false
	for ev := range r.guard.events {
		var out []unitEvent
		switch ev.Kind {
		case "note":
			r.notef("%s", ev.Msg)
		case "leftovers":
			r.rep.Leftovers = ev.N
		case "done":
			done = true
		case "all":
			out = []unitEvent{{all: true, slot: -1}}
		case "failed":
			if ev.Unit < 0 {
				out = []unitEvent{{slot: -1, fatal: &Error{Code: ExitStart, Err: fmt.Errorf("the guardian could not set the run up: %s", ev.Msg)}}}
				break
			}
			out = unit(ev)
		default:
			out = unit(ev)
		}
		for _, ue := range out {
			r.push(ue)
		}
	}
	if !done {
		r.push(unitEvent{slot: -1, fatal: &Error{Code: ExitLost, Err: r.guardGone()}})
	}
	r.translated <- done
}

func (r *run) push(ev unitEvent) {
	select {
	case r.events <- ev:
	case <-r.loopDone:
	}
}

// guardGone says how the guardian ended.
func (r *run) guardGone() error {
	select {
	case <-r.guard.exited:
	case <-time.After(2 * time.Second):
	}
	how := "it stopped talking"
	if r.guard.err != nil {
		how = r.guard.err.Error()
	} else if r.guard.cmd.ProcessState != nil {
		how = r.guard.cmd.ProcessState.String()
	}
	return fmt.Errorf("the guardian (pid %d) ended unexpectedly (%s)", r.guard.cmd.Process.Pid, how)
}

// supervise runs the supervisor over the units' events.
func (r *run) supervise(ctx context.Context, h hooks) {
	s := &supervisor{hooks: h, grace: r.opt.grace(), start: r.start, rep: r.rep, notef: r.opt.Notef}
	s.run(ctx, r.opt.Signals, r.events)
	close(r.loopDone)
}

// finish ends the run after its units: the guardian sweeps what they left
// and closes the logs; launch waits for it and its output.
func (r *run) finish() {
	if r.guard != nil {
		r.guard.op(guardOp{Op: "end"})
		r.guard.closeCtl()
		if done := <-r.translated; !done && r.rep.Lost == "" && r.rep.Err == nil {
			r.rep.Lost = r.guardGone().Error()
			r.sweepLost()
		}
		r.guard.wait()
	}
	r.closeSink()
	if err := r.cg.remove(); err != nil {
		r.notef("removing cgroup %s: %v", r.cg.path, err)
	}
	r.dir.close()
	for i := range r.rep.Workers {
		if w := &r.rep.Workers[i]; w.Stopped && (r.rep.First == nil || w.Name() != r.rep.First.Name()) && r.rep.Stopped >= 0 {
			r.rep.Stopped++
		}
	}
	r.rep.Elapsed = time.Since(r.start)
}

// closeSink writes what the terminal has not taken yet, and says how many
// lines it never took.
func (r *run) closeSink() {
	if n := r.sink.close(); n > 0 {
		where := "all in the log files"
		if r.rep.LogDir == "" {
			where = "the run keeps no logs"
		}
		r.notef("%d lines not shown on the terminal (it did not read them), %s", n, where)
	}
}

// sweepLost ends what is left of a run whose guardian died: its units died
// with it (parent-death signal); what they left came to launch, a
// subreaper, or is in the run's cgroup or carries the run's mark.
func (r *run) sweepLost() {
	self := os.Getpid()
	guard := 0
	if r.guard != nil {
		guard = r.guard.cmd.Process.Pid
	}
	find := func() []int {
		t := procTable()
		set := map[int]bool{}
		for pid, p := range t {
			if p.ppid == self && pid != guard && !r.before[pid] {
				if !p.live() { // an orphan that came to launch and died: reap it
					var ws syscall.WaitStatus
					_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
					continue
				}
				set[pid] = true
				for _, d := range descendants(t, pid) {
					set[d] = true
				}
			}
		}
		for _, pid := range r.cg.procs() {
			set[pid] = true
		}
		for _, pid := range marked(t, r.job.ID) {
			set[pid] = true
		}
		delete(set, self)
		out := make([]int, 0, len(set))
		for pid := range set {
			out = append(out, pid)
		}
		return out
	}
	r.rep.Leftovers += sweep(find, min(r.opt.grace(), 2*time.Second))
}
