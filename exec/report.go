package exec

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
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
	// Stopped is true when it ended after the launch told it to stop.
	Stopped bool
	Err     string
	// At is when it ended, from the start of the launch.
	At time.Duration
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
	// Interrupted is the signal that stopped the launch, if any.
	Interrupted os.Signal
	// Stopped counts the workers still running when the launch stopped
	// them (after a failure or a signal); -1 when the backend cannot tell.
	Stopped int
	// Killed counts workers that needed SIGKILL after the grace period.
	Killed int
	// Leftovers counts processes the launch's workers left behind that it
	// ended at the end (orphans, daemons).
	Leftovers int
	// AllStarted is the time from the start of the launch until every
	// worker process was started (local).
	AllStarted time.Duration
	Elapsed    time.Duration
	LogDir     string
	// Notes are remarks made during the launch.
	Notes []string
}

// ExitCode is what `rlsolve launch` exits with: 0 when every worker
// succeeded, the first failing worker's Status, or 128+signal when a
// signal interrupted the launch.
func (r *Report) ExitCode() int {
	if r.First != nil {
		if s := r.First.Status(); s != 0 {
			return s
		}
		return 1
	}
	if r.Interrupted != nil {
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
	case r.First != nil:
		f := r.First
		where := ""
		if f.Host != "" {
			where = " on " + f.Host
		}
		fmt.Fprintf(&b, "launch: %s%s failed first, after %v: %s; exit status %d\n", f.Name(), where, f.At.Round(time.Millisecond), f.How(), r.ExitCode())
		switch {
		case r.Stopped > 0:
			fmt.Fprintf(&b, "launch: stopped the %d other worker(s) still running", r.Stopped)
		case r.Stopped < 0 && r.Total > 1:
			b.WriteString("launch: stopped the other workers still running")
		}
		if r.Stopped != 0 && r.Total > 1 {
			if r.Killed > 0 {
				fmt.Fprintf(&b, " (%d needed SIGKILL after the grace period)", r.Killed)
			}
			b.WriteString("\n")
		}
		if r.Interrupted != nil {
			fmt.Fprintf(&b, "launch: also interrupted by %s\n", signalName(r.Interrupted))
		}
	case r.Interrupted != nil:
		fmt.Fprintf(&b, "launch: interrupted by %s after %v; forwarded to %d worker(s)", signalName(r.Interrupted), secs, r.Total)
		if r.Killed > 0 {
			fmt.Fprintf(&b, ", %d needed SIGKILL after the grace period", r.Killed)
		}
		fmt.Fprintf(&b, "; exit status %d\n", r.ExitCode())
	default:
		fmt.Fprintf(&b, "launch: all %d worker(s) exited with status 0 in %v\n", r.Total, secs)
	}
	if r.Leftovers > 0 {
		fmt.Fprintf(&b, "launch: ended %d process(es) the workers left running\n", r.Leftovers)
	}
	if r.LogDir != "" {
		fmt.Fprintf(&b, "launch: logs in %s\n", r.LogDir)
	}
	return b.String()
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
