package exec

import (
	"errors"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rlsolve/rlsolve/internal/slurmcli"
)

// stream buffers: 32 KiB per read.
const readChunk = 32 << 10

// startAll starts the units in order and stops at the first that cannot
// start (reported "failed"). It returns how many started.
func (g *guardian) startAll() int {
	li := 0
	for i := range g.spec.Units {
		u := &g.spec.Units[i]
		logs := g.logs[li : li+len(u.Names)]
		li += len(u.Names)
		pid, err := g.start(i, u, logs)
		if err != nil {
			g.emit(guardEvent{Kind: "failed", Unit: i, Msg: err.Error()})
			return i
		}
		g.emit(guardEvent{Kind: "started", Unit: i, Pid: pid})
	}
	return len(g.spec.Units)
}

// start starts one unit in its own process group (and the run's cgroup),
// its stdout and stderr on pipes that pumps read.
func (g *guardian) start(i int, spec *guardUnit, logs []*workerLog) (int, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return 0, err
	}
	u := &gunit{idx: i, spec: spec, exited: make(chan struct{}), files: []*os.File{outR, errR}}
	// The unit is registered before it can be reaped.
	g.mu.Lock()
	pid, err := g.fork(spec, outW, errW)
	if err == nil {
		u.pid = pid
		g.units = append(g.units, u)
		g.byPid[pid] = u
	}
	g.mu.Unlock()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return 0, err
	}
	u.readers.Add(2)
	if spec.Srun != "" {
		g.pumpSrun(u, logs)
	} else {
		prefix := spec.Names[0] + ": "
		go pump(outR, newLineWriter(prefix, g.sink, false, logs[0]), &u.readers)
		go pump(errR, newLineWriter(prefix, g.sink, true, logs[0]), &u.readers)
	}
	return pid, nil
}

// fork starts the unit's process. Pdeathsig: should the guardian itself be
// killed, the unit does not outlive it (launch, a subreaper, then sweeps
// what the unit left).
func (g *guardian) fork(spec *guardUnit, out, errw *os.File) (int, error) {
	sys := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if g.cgFD >= 0 {
		sys.UseCgroupFD, sys.CgroupFD = true, g.cgFD
	}
	attr := &syscall.ProcAttr{Env: spec.Env, Files: []uintptr{g.devnul.Fd(), out.Fd(), errw.Fd()}, Sys: sys}
	pid, err := syscall.ForkExec(spec.Path, spec.Argv, attr)
	if err != nil && g.cgFD >= 0 && (errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.E2BIG)) {
		// No clone3 into a cgroup (Linux < 5.7): start, then move.
		g.cgFD = -1
		g.note("cannot start processes in a cgroup (%v); they are moved into it after they start", err)
		return g.fork(spec, out, errw)
	}
	if err == nil && g.cg != nil && g.cgFD < 0 {
		if err := g.cg.add(pid); err != nil {
			g.note("cannot move process %d into the cgroup: %v", pid, err)
		}
	}
	return pid, err
}

// pump copies a pipe into a lineWriter until EOF.
func pump(r *os.File, w *lineWriter, wg *sync.WaitGroup) {
	defer wg.Done()
	buf := make([]byte, readChunk)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			_, _ = w.Write(buf[:n])
		}
		if err != nil {
			break
		}
	}
	w.Close()
	_ = r.Close()
}

// pumpSrun splits srun's labelled output back into its tasks' streams,
// and reports the task ends srun prints.
func (g *guardian) pumpSrun(u *gunit, logs []*workerLog) {
	n := len(u.spec.Names)
	outWs, errWs := make([]*lineWriter, n), make([]*lineWriter, n)
	for i, name := range u.spec.Names {
		outWs[i] = newLineWriter(name+": ", g.sink, false, logs[i])
		errWs[i] = newLineWriter(name+": ", g.sink, true, logs[i])
	}
	ended := func(t taskEnd) { g.emit(guardEvent{Kind: "task", Unit: u.idx, Task: &t}) }
	for i, p := range []*srunParser{
		{component: u.spec.Srun, writers: outWs, sink: g.sink},
		{component: u.spec.Srun, writers: errWs, sink: g.sink, stderr: true, taskEnded: ended, last: &u.last},
	} {
		go func(f *os.File, p *srunParser) {
			defer u.readers.Done()
			readSrun(f, p)
			_ = f.Close()
		}(u.files[i], p)
	}
}

// reaper reaps every child (units, and the orphans a subreaper inherits)
// as SIGCHLD says they end, and reports the units' ends.
func (g *guardian) reaper() {
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	tick := time.NewTicker(250 * time.Millisecond) // in case a SIGCHLD came before Notify
	defer tick.Stop()
	for {
		g.reapMu.Lock()
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if err == syscall.EINTR {
				continue
			}
			if pid <= 0 || err != nil {
				break
			}
			g.reaped(pid, ws)
		}
		g.reapMu.Unlock()
		select {
		case <-chld:
		case <-tick.C:
		}
	}
}

// reaped records a unit's end and tells launch: at once for a worker, after
// its output for srun (so that its task reports come first).
func (g *guardian) reaped(pid int, ws syscall.WaitStatus) {
	g.mu.Lock()
	u := g.byPid[pid]
	if u != nil {
		u.done = true
		g.unitEnded(u, ws)
		close(u.exited)
	}
	g.mu.Unlock()
	if u == nil {
		return // an orphan
	}
	if u.spec.Srun == "" {
		g.emit(guardEvent{Kind: "exit", Unit: u.idx, Status: int(ws)})
		return
	}
	go func() {
		waitTimeout(&u.readers, 5*time.Second)
		g.emit(guardEvent{Kind: "exit", Unit: u.idx, Status: int(ws), Msg: u.last.get()})
	}()
}

// waitTimeout waits for wg, up to d; it says whether wg was done.
func waitTimeout(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// waitUnits waits until every unit is reaped, up to d.
func (g *guardian) waitUnits(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for g.running() > 0 {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// finish ends a run whose units have all ended: what they left behind
// goes (SIGTERM, SIGKILL after a short grace), the output is drained, the
// logs closed and the cgroup removed.
func (g *guardian) finish() {
	n := sweep(g.find, min(g.spec.Grace, 2*time.Second))
	g.close()
	g.emit(guardEvent{Kind: "leftovers", N: n})
	g.emit(guardEvent{Kind: "done"})
}

// abandoned stops a run whose launch is gone, as launch would have: the
// units get SIGTERM (an srun step's tasks through Slurm, so that srun
// passes their last lines on) and the grace period, then SIGKILL (the
// steps cancelled first); leftovers are swept; the logs get every line.
func (g *guardian) abandoned() {
	g.markUnits(false)
	g.stopUnits(syscall.SIGTERM)
	if !g.waitUnits(g.spec.Grace) {
		g.markUnits(true)
		if g.spec.Slurm != nil {
			g.stopUnits(0)
			g.waitUnits(killWait)
		}
		g.signal(syscall.SIGKILL, nil)
		g.waitUnits(5 * time.Second)
	}
	if g.spec.Slurm != nil {
		g.stopUnits(0) // steps srun left behind
	}
	n := sweep(g.find, min(g.spec.Grace, 2*time.Second))
	g.close()
	g.writeAbandonedReport(n)
}

// stopUnits sends sig to every unit; for Slurm steps, to their tasks
// (scancel --signal), or cancels them when sig is 0. A step Slurm does not
// list gets SIGTERM through its srun, which then cancels it.
func (g *guardian) stopUnits(sig syscall.Signal) {
	s := g.spec.Slurm
	if s == nil {
		g.signal(sig, nil)
		return
	}
	g.reapMu.Lock() // the commands' statuses are theirs
	cli := &slurmcli.Client{Squeue: s.Squeue, Scancel: s.Scancel}
	unlisted := signalSteps(cli, s.JobID, s.Steps, sig, 3)
	g.reapMu.Unlock()
	var units []int
	for i, name := range s.Steps {
		if slices.Contains(unlisted, name) {
			units = append(units, i)
		}
	}
	if len(units) > 0 {
		g.signal(syscall.SIGTERM, units)
	}
}

// find lists the run's live processes: the guardian's descendants (all
// of the run's, as it is a subreaper), those in the run's cgroup, and those
// carrying the launch's mark.
func (g *guardian) find() []int {
	t := procTable()
	self := os.Getpid()
	set := map[int]bool{}
	for _, pid := range descendants(t, self) {
		set[pid] = true
	}
	for _, pid := range g.cg.procs() {
		if p, ok := t[pid]; ok && p.live() {
			set[pid] = true
		}
	}
	for _, pid := range marked(t, g.spec.ID) {
		set[pid] = true
	}
	delete(set, self)
	delete(set, os.Getppid())
	out := make([]int, 0, len(set))
	for pid := range set {
		out = append(out, pid)
	}
	return out
}

// close drains the units' output (up to 2s: something outside the run may
// hold a pipe), closes the logs and removes the cgroup.
func (g *guardian) close() {
	g.mu.Lock()
	units := append([]*gunit(nil), g.units...)
	g.mu.Unlock()
	deadline := time.Now().Add(2 * time.Second)
	for _, u := range units {
		if !waitTimeout(&u.readers, time.Until(deadline)) {
			for _, f := range u.files {
				_ = f.Close()
			}
			u.readers.Wait()
		}
	}
	if n := g.sink.close(); n > 0 {
		g.note("%d lines not passed on to launch (it did not read them), all in the log files", n)
	}
	for _, l := range g.logs {
		if err := l.close(); err != nil {
			g.note("log file %s: %v", l.path, err)
		}
	}
	if err := g.cg.remove(); err != nil {
		g.note("removing cgroup %s: %v", g.cg.path, err)
	}
	if g.dir != nil {
		_ = g.dir.Close()
	}
}

// lastLine keeps srun's last line of its own.
type lastLine struct {
	mu sync.Mutex
	s  string
}

func (l *lastLine) set(s string) {
	l.mu.Lock()
	l.s = strings.Clone(s)
	l.mu.Unlock()
}

func (l *lastLine) get() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.s
}
