package exec

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"syscall"
	"time"
)

// rayLaunch is one launch on Ray while it runs: its job, its log stream
// and what the driver said.
type rayLaunch struct {
	b      *Ray
	r      *run
	id     string // the submission id
	stream *rayStream
	files  []*workerLog
	events chan rayEvent
	report *rayReport
	killed bool // rlsolve asked the driver to kill at once
	// driverAt is when the driver said it started, from the launch's start.
	driverAt time.Duration
}

// newRayLaunch opens the workers' logs (and the driver's own) in the run's
// directory.
func newRayLaunch(b *Ray, r *run) (*rayLaunch, error) {
	l := &rayLaunch{b: b, r: r, id: RaySubmissionID(r.job.ID), events: make(chan rayEvent, 64)}
	ws := r.job.workers()
	l.stream = &rayStream{sink: r.sink, logs: map[string]*workerLog{}, onEvent: func(ev rayEvent) { l.events <- ev }}
	names := logNames(ws)
	for i, w := range ws {
		var lg *workerLog
		if r.dir != nil {
			f, err := createIn(r.dir.f, names[i], 0o640)
			if err != nil {
				l.close()
				return nil, Errorf(ExitStart, "%v", err)
			}
			lg = &workerLog{f: f, path: f.Name()}
			l.files = append(l.files, lg)
			r.logs[w.Name()] = f.Name()
		}
		l.stream.logs[w.Name()] = lg
	}
	if r.dir != nil {
		f, err := createIn(r.dir.f, "driver.log", 0o640)
		if err != nil {
			l.close()
			return nil, Errorf(ExitStart, "%v", err)
		}
		l.stream.driver = &workerLog{f: f, path: f.Name()}
		l.files = append(l.files, l.stream.driver)
	}
	return l, nil
}

func (l *rayLaunch) close() {
	l.r.closeSink()
	for _, f := range l.files {
		if err := f.close(); err != nil {
			l.r.notef("log %s: %v", f.path, err)
		}
	}
	l.files = nil
	l.r.dir.close()
}

// follow streams the job's log until it ends, passing signals on: the
// first stops the job (the driver stops its workers with the signal
// forwarded), a second kills at once.
func (l *rayLaunch) follow(ctx context.Context) {
	tailCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	tailDone := make(chan error, 1)
	go func() { tailDone <- l.tail(tailCtx) }()
	done := ctx.Done()
	for {
		select {
		case ev := <-l.events:
			l.event(ev)
		case sg := <-l.r.opt.Signals:
			l.signalled(ctx, sg)
		case <-done:
			done = nil
			l.signalled(ctx, syscall.SIGTERM)
		case err := <-tailDone:
			l.drain()
			if err != nil {
				l.r.notef("the job's log stream ended: %v", err)
			}
			return
		}
	}
}

// tail streams the log; when the stream breaks while the job runs, it
// streams again, skipping what it already had (Ray streams from the
// start).
func (l *rayLaunch) tail(ctx context.Context) error {
	seen := 0
	var err error
	for try := 0; try < 5; try++ {
		skip := seen
		err = l.b.Client.TailJobLogs(ctx, l.id, func(chunk string) error {
			if skip >= len(chunk) {
				skip -= len(chunk)
				return nil
			}
			chunk, skip = chunk[skip:], 0
			seen += len(chunk)
			l.stream.write(chunk)
			return nil
		})
		if st, _, serr := l.b.Client.JobStatus(ctx, l.id); serr == nil && rayTerminal(st) {
			break
		}
		time.Sleep(l.b.poll())
	}
	l.stream.flush()
	return err
}

// drain handles the events the stream sent before it ended.
func (l *rayLaunch) drain() {
	for {
		select {
		case ev := <-l.events:
			l.event(ev)
		default:
			return
		}
	}
}

func (l *rayLaunch) event(ev rayEvent) {
	switch ev.Event {
	case "all":
		l.r.rep.AllStarted = time.Since(l.r.start)
	case "job":
		l.driverAt = time.Since(l.r.start)
		l.r.notef("Ray driver job %s, namespace %s", ev.JobID, RayNamespace(l.r.job.ID))
	case "report":
		l.report = ev.Report
	}
}

// signalled: the first signal stops the job, telling the driver (through
// its stop key) the signal to forward; a second kills at once (SIGHUP
// twice and SIGPIPE change nothing, as local).
func (l *rayLaunch) signalled(ctx context.Context, sg os.Signal) {
	sig, ok := sg.(syscall.Signal)
	if !ok {
		sig = syscall.SIGTERM
	}
	c := l.b.Client
	switch {
	case sig == syscall.SIGPIPE:
		return
	case l.r.rep.Interrupted != nil:
		if sig == syscall.SIGHUP || l.killed {
			return
		}
		// The driver kills whatever still runs at once: the summary must
		// not say the grace ran.
		l.killed, l.r.rep.Cut = true, true
		if err := c.PutKey(ctx, rayKey(l.r.job.ID, "kill"), []byte(`{"kill":true}`)); err != nil {
			l.r.notef("asking the driver to kill at once: %v", err)
		}
		return
	}
	l.r.rep.Interrupted, l.r.rep.Forwarded = sig, forwardAs(sig)
	msg, _ := json.Marshal(map[string]string{"signal": signalName(l.r.rep.Forwarded)})
	if err := c.PutKey(ctx, rayKey(l.r.job.ID, "stop"), msg); err != nil {
		l.r.notef("telling the driver which signal to forward (it forwards SIGINT): %v", err)
	}
	if err := c.StopJob(ctx, l.id); err != nil {
		l.r.notef("stopping Ray job %s: %v", l.id, err)
	}
	graceNote(l.r.opt.Notef, sig, l.r.opt.grace())
}

// end reads how the launch ended, checks that nothing of it is left, and
// deletes the job's record.
func (l *rayLaunch) end(ctx context.Context) {
	rep := l.r.rep
	status, msg := l.waitTerminal(ctx)
	switch {
	case l.report == nil:
		rep.Lost = fmt.Sprintf("the driver ended without its report (Ray job %s: %s %s)", l.id, status, msg)
	case l.report.Error != "":
		rep.Err = Errorf(ExitStart, "the driver could not run the workers: %s", l.report.Error)
	default:
		if err := applyRayReport(rep, l.report, l.r.logs, l.driverAt); err != nil {
			rep.Lost = err.Error()
		}
	}
	l.r.notef("%s", l.b.checkClean(ctx, l.r.job.ID))
	if l.b.KeepJob || !rayTerminal(status) {
		return
	}
	if err := l.b.deleteJob(ctx, l.id); err != nil {
		l.r.notef("deleting Ray job %s's record: %v", l.id, err)
	}
}

// waitTerminal waits until the job has ended (the stream can end first)
// and returns its status.
func (l *rayLaunch) waitTerminal(ctx context.Context) (string, string) {
	deadline := time.Now().Add(time.Duration(rayStopWait(l.r.opt.grace()))*time.Second + 30*time.Second)
	for {
		st, msg, err := l.b.Client.JobStatus(context.WithoutCancel(ctx), l.id)
		if err == nil && rayTerminal(st) || time.Now().After(deadline) {
			if err != nil {
				return "UNKNOWN", err.Error()
			}
			return st, msg
		}
		time.Sleep(l.b.poll())
	}
}
