package exec

import (
	"fmt"
	"syscall"
	"time"
)

// applyRayReport fills rep with the driver's report: every worker's end,
// who failed first, how many were stopped. logs are the workers' log
// files by name ("" without logs); driverAt is when the driver started,
// from the start of the launch.
func applyRayReport(rep *Report, rr *rayReport, logs map[string]string, driverAt time.Duration) error {
	if rr.Error != "" {
		return fmt.Errorf("the driver could not run the workers: %s", rr.Error)
	}
	rep.Workers = make([]WorkerResult, 0, len(rr.Workers))
	rep.Stopped, rep.Killed = 0, 0
	for _, w := range rr.Workers {
		r := WorkerResult{Component: w.Component, Rank: w.Rank, Host: w.Host, Started: w.Started, Stopped: w.Stopped,
			Killed: w.Killed, Err: w.Err, ExitCode: -1, At: driverAt + time.Duration(w.EndedS*float64(time.Second))}
		switch {
		case !w.Started:
		case w.ExitCode == nil:
			return fmt.Errorf("the driver's report has no exit status for %s", r.Name())
		case *w.ExitCode < 0:
			r.Signal = syscall.Signal(w.Signal)
		default:
			r.ExitCode = *w.ExitCode
		}
		r.Log = logs[r.Name()]
		if r.Killed {
			rep.Killed++
		}
		rep.Workers = append(rep.Workers, r)
	}
	if rr.First != nil {
		for i := range rep.Workers {
			if rep.Workers[i].Name() == *rr.First {
				first := rep.Workers[i]
				rep.First = &first
			}
		}
		if rep.First == nil {
			return fmt.Errorf("the driver's report names %s as the first failure, which is not one of its workers", *rr.First)
		}
	}
	for i := range rep.Workers {
		if w := &rep.Workers[i]; w.Stopped && (rep.First == nil || w.Name() != rep.First.Name()) {
			rep.Stopped++
		}
	}
	return nil
}
