package exec

import (
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// When launch is killed (SIGKILL: it cannot write its report), the
// guardian, which outlives it, stops the run and writes the report in its
// place: outcome "lost" (124), each unit's end as the guardian reaped it.

// markUnits records, before the guardian signals the units still running,
// that they were stopped (or killed).
func (g *guardian) markUnits(killed bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, u := range g.units {
		if !u.done {
			u.stopped = true
			u.killed = u.killed || killed
		}
	}
}

// writeAbandonedReport writes --report for a launch that is gone.
func (g *guardian) writeAbandonedReport(leftovers int) {
	if g.spec.Report == "" {
		return
	}
	rep := &Report{ID: g.spec.ID, Backend: g.spec.Backend, Leftovers: leftovers, Elapsed: time.Since(g.began),
		LogDir: g.spec.LogDir, Containment: g.spec.Containment,
		Lost: "launch ended before its run did (killed?); its guardian stopped the workers and wrote this report"}
	for i := range g.spec.Units {
		rep.Total += len(g.spec.Units[i].Names)
	}
	g.mu.Lock()
	for _, u := range g.units {
		w := unitResult(u, g.spec.LogDir)
		if w.Stopped {
			rep.Stopped++
		}
		if w.Killed {
			rep.Killed++
		}
		rep.Workers = append(rep.Workers, w)
	}
	g.mu.Unlock()
	if err := WriteReport(g.spec.Report, rep); err != nil {
		g.note("%v", err)
	}
}

// unitResult is how a unit ended, as the guardian saw it (g.mu held).
func unitResult(u *gunit, logDir string) WorkerResult {
	w := WorkerResult{Component: u.spec.Srun, Rank: -1, Started: true, Stopped: u.stopped, Killed: u.killed, At: u.at}
	if u.spec.Srun == "" {
		name := u.spec.Names[0]
		i := strings.LastIndexByte(name, '/')
		w.Component = name[:max(i, 0)]
		if r, err := strconv.Atoi(name[i+1:]); err == nil && i >= 0 {
			w.Rank = r
		}
		if len(u.spec.Logs) > 0 && logDir != "" {
			w.Log = filepath.Join(logDir, u.spec.Logs[0])
		}
	}
	switch ws := u.ws; {
	case !u.done:
		w.ExitCode, w.Err = -1, "still running when the guardian gave up on it"
	case ws.Signaled():
		w.ExitCode, w.Signal = -1, ws.Signal()
	default:
		w.ExitCode = ws.ExitStatus()
	}
	return w
}

// unitEnded records a unit's wait status (g.mu held).
func (g *guardian) unitEnded(u *gunit, ws syscall.WaitStatus) {
	u.ws, u.at = ws, time.Since(g.began)
}
