package exec

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/internal/shellquote"
)

// WorkerResult is how one worker ended.
type WorkerResult struct {
	Component string
	Rank      int
	Host      string
	// Started is false when the worker could not be started (Err says why).
	Started bool
	// ExitCode is the exit status, or -1 when a signal ended the worker.
	ExitCode int
	Signal   syscall.Signal
	// Stopped is true when it ended after the launch told it to stop;
	// Killed when it ended after the launch sent SIGKILL.
	Stopped, Killed bool
	Err             string
	// At is when it ended, from the start of the launch.
	At time.Duration
	// Log is the worker's log file ("" without logs).
	Log string
}

// Name is "component/rank".
// A Rank of -1 stands for the component's srun as a whole.
func (r *WorkerResult) Name() string {
	if r.Rank < 0 {
		return r.Component + " (srun)"
	}
	return fmt.Sprintf("%s/%d", r.Component, r.Rank)
}

// Failed reports whether the worker ended other than with status 0.
func (r *WorkerResult) Failed() bool { return !r.Started || r.ExitCode != 0 }

// Status is the exit status a shell would show: the exit code, 128+signal
// for a signal, 127 for a program that could not be started.
func (r *WorkerResult) Status() int {
	switch {
	case !r.Started:
		return 127
	case r.ExitCode < 0:
		return 128 + int(r.Signal)
	}
	return r.ExitCode
}

// How says how it ended, in words.
func (r *WorkerResult) How() string {
	switch {
	case !r.Started:
		return "could not start: " + r.Err
	case r.ExitCode < 0:
		return fmt.Sprintf("killed by %s", signalName(r.Signal))
	case r.Err != "":
		return fmt.Sprintf("exited with status %d (%s)", r.ExitCode, r.Err)
	}
	return fmt.Sprintf("exited with status %d", r.ExitCode)
}

// Report is how a launch ended.
type Report struct {
	ID      string
	Backend string
	// Workers is every worker's result (local), or the workers whose
	// failure Slurm reported (slurm).
	Workers []WorkerResult
	// Total is the number of workers launched.
	Total int
	// First is the worker that failed first, nil when none did.
	First *WorkerResult
	// Interrupted is the signal that stopped the launch, if any, and
	// Forwarded the one the workers got for it.
	Interrupted os.Signal
	Forwarded   syscall.Signal
	// Stopped counts the workers still running when the launch stopped
	// them (after a failure or a signal); -1 when the backend cannot tell.
	Stopped int
	// Killed counts workers that needed SIGKILL after the grace period.
	Killed int
	// Cut is true when a second signal ended the grace period early: the
	// workers still running were killed at once, not after the grace.
	Cut bool
	// Leftovers counts processes the launch's workers left behind that it
	// ended at the end (orphans, daemons).
	Leftovers int
	// AllStarted is the time from the start of the launch until every
	// worker process was started (local).
	AllStarted time.Duration
	Elapsed    time.Duration
	// LogDir is the run's own log directory ("" without logs).
	LogDir string
	// Containment says how the run's processes were kept together: the
	// run's cgroup, or the guardian as subreaper (and why no cgroup).
	Containment string
	// Lost says why the launch lost control of its workers mid-run (they
	// were ended): a failure of launch's, not a worker's.
	Lost string
	// Err is what stopped the launch itself from starting or running.
	Err *Error
	// Notes are remarks made during the launch.
	Notes []string
}

// Launch's own exit statuses: a fixed range, 120-125, that a worker's
// status is never passed through as.
const (
	// ExitWorkerInRange: the first failing worker's status was itself in
	// 120-125 (the summary and the report say which).
	ExitWorkerInRange = 120
	// ExitInvalid: the config is invalid (launch refuses what check rejects).
	ExitInvalid = 121
	// ExitUsage: bad flags or programs, a multi-node plan on the local backend.
	ExitUsage = 122
	// ExitStart: the run could not start (a program, the log directory, the
	// allocation, the guardian).
	ExitStart = 123
	// ExitLost: launch lost control of the run mid-way (its workers ended).
	ExitLost = 124
	// ExitInternal: a bug in launch.
	ExitInternal = 125
)

// Error is launch failing by itself, not a worker: Code is its exit
// status (one of the Exit* constants).
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Errorf makes an Error with code.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// ExitCode is what `rlsolve launch` exits with: 0 when every worker
// succeeded; launch's own code (120-125) when it failed itself; else the
// first failing worker's Status (ExitWorkerInRange when that is in
// launch's range), or 128+signal when a signal interrupted the launch.
func (r *Report) ExitCode() int {
	switch {
	case r.Err != nil:
		return r.Err.Code
	case r.Lost != "":
		return ExitLost
	case r.First != nil:
		s := r.First.Status()
		if s == 0 {
			return 1
		}
		if s >= ExitWorkerInRange && s <= ExitInternal {
			return ExitWorkerInRange
		}
		return s
	case r.Interrupted != nil:
		if s, ok := r.Interrupted.(syscall.Signal); ok {
			return 128 + int(s)
		}
		return 130
	}
	return 0
}

// Summary is the launch's closing lines.
func (r *Report) Summary() string {
	var b strings.Builder
	secs := r.Elapsed.Round(time.Millisecond)
	switch {
	case r.Err != nil:
		fmt.Fprintf(&b, "launch: %v; exit status %d (launch's own)\n", r.Err, r.ExitCode())
	case r.First != nil:
		r.firstSummary(&b)
	case r.Interrupted != nil && r.Lost == "":
		fwd := "forwarded"
		if s, ok := r.Interrupted.(syscall.Signal); ok && r.Forwarded != 0 && r.Forwarded != s {
			fwd = "forwarded as " + signalName(r.Forwarded)
		}
		fmt.Fprintf(&b, "launch: interrupted by %s after %v; %s to %d worker(s)", signalName(r.Interrupted), secs, fwd, r.Total)
		if r.Killed > 0 {
			fmt.Fprintf(&b, ", %d %s", r.Killed, r.killedHow())
		}
		fmt.Fprintf(&b, "; exit status %d\n", r.ExitCode())
	case r.Lost == "":
		fmt.Fprintf(&b, "launch: all %d worker(s) exited with status 0 in %v\n", r.Total, secs)
	}
	if r.Lost != "" {
		fmt.Fprintf(&b, "launch: lost control of the workers after %v: %s; ended what was left; exit status %d (launch's own)\n", secs, r.Lost, r.ExitCode())
	}
	if r.Leftovers > 0 {
		fmt.Fprintf(&b, "launch: ended %d process(es) the workers left running\n", r.Leftovers)
	}
	if r.LogDir != "" {
		fmt.Fprintf(&b, "launch: logs in %s\n", shellquote.Quote(r.LogDir))
	}
	// Names from the config and workers' messages are printed escaped.
	return diag.PrintableLines(b.String())
}

func (r *Report) firstSummary(b *strings.Builder) {
	f := r.First
	where := ""
	if f.Host != "" {
		where = " on " + f.Host
	}
	status := fmt.Sprintf("exit status %d", r.ExitCode())
	if r.ExitCode() == ExitWorkerInRange {
		status += fmt.Sprintf(" (the worker's %d is in launch's own range 120-125)", f.Status())
	}
	fmt.Fprintf(b, "launch: %s%s failed first, after %v: %s; %s\n", f.Name(), where, f.At.Round(time.Millisecond), f.How(), status)
	switch {
	case r.Stopped > 0:
		fmt.Fprintf(b, "launch: stopped the %d other worker(s) still running", r.Stopped)
	case r.Stopped < 0 && r.Total > 1:
		b.WriteString("launch: stopped the other workers still running")
	}
	if r.Stopped != 0 && r.Total > 1 {
		if r.Killed > 0 {
			fmt.Fprintf(b, " (%d %s)", r.Killed, r.killedHow())
		}
		b.WriteString("\n")
	}
	if r.Interrupted != nil {
		fmt.Fprintf(b, "launch: also interrupted by %s\n", signalName(r.Interrupted))
	}
}

// signalName is "SIGTERM" for syscall.SIGTERM.
func signalName(s os.Signal) string {
	sig, ok := s.(syscall.Signal)
	if !ok {
		return s.String()
	}
	for name, v := range signalNames {
		if v == sig {
			return name
		}
	}
	return fmt.Sprintf("signal %d", int(sig))
}

var signalNames = map[string]syscall.Signal{
	"SIGHUP": syscall.SIGHUP, "SIGINT": syscall.SIGINT, "SIGQUIT": syscall.SIGQUIT, "SIGILL": syscall.SIGILL,
	"SIGTRAP": syscall.SIGTRAP, "SIGABRT": syscall.SIGABRT, "SIGBUS": syscall.SIGBUS, "SIGFPE": syscall.SIGFPE,
	"SIGKILL": syscall.SIGKILL, "SIGUSR1": syscall.SIGUSR1, "SIGSEGV": syscall.SIGSEGV, "SIGUSR2": syscall.SIGUSR2,
	"SIGPIPE": syscall.SIGPIPE, "SIGALRM": syscall.SIGALRM, "SIGTERM": syscall.SIGTERM, "SIGXCPU": syscall.SIGXCPU,
	"SIGXFSZ": syscall.SIGXFSZ,
}

// killedHow says how the killed workers were killed: after the grace
// period, or at once when a second signal cut it short (the summary must
// not claim a grace that did not run).
func (r *Report) killedHow() string {
	if r.Cut {
		return "got SIGKILL at once: a second signal cut the grace period short"
	}
	return "needed SIGKILL after the grace period"
}
