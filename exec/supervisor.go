package exec

import (
	"context"
	"os"
	"syscall"
	"time"
)

// The supervisor is launch's one policy over its units, whatever the
// backend: a unit is a local worker or one component's srun. The first
// worker to fail decides the launch's status and stops the others (SIGTERM,
// then SIGKILL after the grace period); a signal to launch is forwarded the
// same way, and a second one kills at once; when the backend loses its
// units (the guardian died) they are ended by launch itself.

// unitEvent is what a backend reports.
type unitEvent struct {
	unit    int
	started bool          // the unit started
	result  *WorkerResult // a worker ended (or could not start)
	slot    int           // result replaces rep.Workers[slot]; -1: appended
	// onlyIfRunning: the result counts only when the launch is not
	// stopping the run (srun's own status once its tasks were told to end).
	onlyIfRunning bool
	done          bool // the unit ended: nothing more comes from it
	all           bool // every unit that will start has started
	// fatal ends the launch as launch's own failure: the backend lost its
	// units (ExitLost), or could not set the run up.
	fatal *Error
}

// hooks are what a backend does on the supervisor's orders.
type hooks interface {
	// signal forwards sig to every running unit's workers.
	signal(sig syscall.Signal)
	// kill ends every running unit at once.
	kill()
	// forceKill ends what kill could not within killWait (srun itself).
	forceKill()
	// lost ends whatever is left of the run when the backend lost it.
	lost()
}

// killWait is how long kill has before forceKill.
const killWait = 5 * time.Second

type supervisor struct {
	hooks             hooks
	grace             time.Duration
	start             time.Time
	rep               *Report
	running           int
	all               bool
	stopping, killing bool
	graceC, killC     <-chan time.Time
	// notef, when set, tells the user what the launch is waiting for.
	notef func(format string, args ...any)
}

// run supervises until every unit has ended.
func (s *supervisor) run(ctx context.Context, sigs <-chan os.Signal, events <-chan unitEvent) {
	done := ctx.Done()
	for !s.all || s.running > 0 {
		select {
		case ev := <-events:
			s.event(ev)
		case sg := <-sigs:
			s.signalled(sg)
		case <-done:
			done = nil
			if !s.stopping {
				s.rep.Interrupted = syscall.SIGTERM
				s.stop(syscall.SIGTERM)
			}
		case <-s.graceC:
			s.graceC = nil
			s.kill()
		case <-s.killC:
			s.killC = nil
			s.hooks.forceKill()
		}
	}
}

func (s *supervisor) event(ev unitEvent) {
	if ev.started {
		s.running++
	}
	if ev.all {
		s.all = true
		s.rep.AllStarted = time.Since(s.start)
	}
	if r := ev.result; r != nil && !(ev.onlyIfRunning && s.stopping) {
		r.At = time.Since(s.start)
		r.Stopped = s.stopping
		r.Killed = s.killing
		if s.killing {
			s.rep.Killed++
		}
		s.record(*r, ev.slot)
		if !s.stopping && r.Failed() {
			first := *r
			s.rep.First = &first
			s.stop(syscall.SIGTERM)
		}
	}
	if ev.done {
		s.running--
	}
	if ev.fatal != nil && s.rep.Lost == "" && s.rep.Err == nil {
		if ev.fatal.Code == ExitLost {
			s.rep.Lost = ev.fatal.Error()
		} else {
			s.rep.Err = ev.fatal
		}
		s.hooks.lost()
		s.running, s.all = 0, true
	}
}

func (s *supervisor) record(r WorkerResult, slot int) {
	if slot >= 0 && slot < len(s.rep.Workers) {
		s.rep.Workers[slot] = r
		return
	}
	s.rep.Workers = append(s.rep.Workers, r)
}

// signalled handles a signal to launch: the first stops the run (SIGINT
// is forwarded as it is; SIGTERM, SIGHUP, SIGQUIT as SIGTERM, which the
// workers' checkpoint handlers expect); a second SIGINT, SIGTERM or
// SIGQUIT kills at once. SIGHUP twice (a closing session sends several) and
// SIGPIPE (launch's output is gone; the logs still get every line) change
// nothing.
func (s *supervisor) signalled(sg os.Signal) {
	sig, ok := sg.(syscall.Signal)
	if !ok {
		sig = syscall.SIGTERM
	}
	switch {
	case sig == syscall.SIGPIPE:
		return
	case s.stopping:
		if sig != syscall.SIGHUP && !s.killing {
			s.rep.Cut = true
			s.kill()
		}
		return
	}
	s.rep.Interrupted = sig
	s.rep.Forwarded = forwardAs(sig)
	s.stop(s.rep.Forwarded)
	graceNote(s.notef, sig, s.grace)
}

// graceNote is what every backend says after the first signal. Without it
// the grace period is silent: a user would think the launch hangs, and not
// know a second Ctrl-C ends it now.
func graceNote(notef func(format string, args ...any), sig syscall.Signal, grace time.Duration) {
	if notef != nil {
		notef("got %s: waiting up to %v (--grace) for the workers to stop; press Ctrl-C again to kill them now", signalName(sig), grace)
	}
}

// forwardAs is the signal the workers get when launch gets sig.
func forwardAs(sig syscall.Signal) syscall.Signal {
	if sig == syscall.SIGINT {
		return sig
	}
	return syscall.SIGTERM
}

func (s *supervisor) stop(sig syscall.Signal) {
	s.stopping = true
	s.hooks.signal(sig)
	s.graceC = time.After(s.grace)
}

func (s *supervisor) kill() {
	s.stopping, s.killing = true, true
	s.graceC = nil
	s.hooks.kill()
	s.killC = time.After(killWait)
}
