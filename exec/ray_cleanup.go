package exec

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// checkClean waits until the State API shows no live actor in the
// launch's namespace and no placement group of its own (at most
// CleanupWait), and says which.
func (b *Ray) checkClean(ctx context.Context, id string) string {
	ctx = context.WithoutCancel(ctx)
	start := time.Now()
	deadline := start.Add(b.cleanupWait())
	for {
		left, err := b.Client.Leftovers(ctx, RayNamespace(id), rayPGName(id))
		switch {
		case err == nil && len(left) == 0:
			return fmt.Sprintf("cleanup: no live actor in Ray namespace %s and no placement group %s, checked after %v",
				RayNamespace(id), rayPGName(id), time.Since(start).Round(time.Millisecond))
		case time.Now().After(deadline):
			if err != nil {
				return fmt.Sprintf("cleanup: could not check what is left of the launch on Ray: %v", err)
			}
			return fmt.Sprintf("cleanup: still there after %v: %s", b.cleanupWait(), strings.Join(left, ", "))
		}
		time.Sleep(b.poll())
	}
}

// Stop ends launch id's job (a launch whose rlsolve died: the job goes on
// without it), waits until nothing of it is left, and deletes its record
// unless KeepJob. It returns what it did, one line each.
func (b *Ray) Stop(ctx context.Context, id string) ([]string, error) {
	sub := RaySubmissionID(id)
	status, _, err := b.Client.JobStatus(ctx, sub)
	if errors.Is(err, ErrRayNoJob) {
		return nil, Errorf(ExitUsage, "no Ray job %s on %s (the launch's id is in its first lines and its log directory's name)", sub, b.Client.Address())
	}
	if err != nil {
		return nil, Errorf(ExitStart, "asking %s about job %s: %w", b.Client.Address(), sub, err)
	}
	var out []string
	if !rayTerminal(status) {
		if err := b.Client.StopJob(ctx, sub); err != nil {
			return nil, Errorf(ExitStart, "stopping job %s on %s: %w", sub, b.Client.Address(), err)
		}
		out = append(out, fmt.Sprintf("stopping Ray job %s (was %s)", sub, status))
		for !rayTerminal(status) && ctx.Err() == nil {
			time.Sleep(b.poll())
			if status, _, err = b.Client.JobStatus(ctx, sub); err != nil {
				return out, Errorf(ExitStart, "asking %s about job %s: %w", b.Client.Address(), sub, err)
			}
		}
	}
	out = append(out, fmt.Sprintf("Ray job %s is %s", sub, status))
	out = append(out, b.checkClean(ctx, id))
	if !b.KeepJob {
		if err := b.deleteJob(ctx, sub); err != nil {
			return out, Errorf(ExitStart, "deleting job %s's record: %w", sub, err)
		}
		out = append(out, "deleted the job's record")
	}
	return out, nil
}

// deleteJob deletes a finished job's record once Ray is done with it.
// Ray's job manager watches each job's supervisor actor once a second
// until it sees it die, and marks a job it then cannot find FAILED,
// writing the record again: so wait for the supervisor's death and one
// more round of the watch, and delete again should the record come back.
func (b *Ray) deleteJob(ctx context.Context, sub string) error {
	ctx = context.WithoutCancel(ctx)
	deadline := time.Now().Add(b.cleanupWait())
	for time.Now().Before(deadline) {
		alive, err := b.Client.SupervisorAlive(ctx, sub)
		if err == nil && !alive {
			break
		}
		time.Sleep(b.poll())
	}
	time.Sleep(rayMonitorPeriod)
	for try := 0; ; try++ {
		if err := b.Client.DeleteJob(ctx, sub); err != nil || try == 2 {
			return err
		}
		time.Sleep(rayMonitorPeriod)
		if _, _, err := b.Client.JobStatus(ctx, sub); errors.Is(err, ErrRayNoJob) {
			return nil
		}
	}
}

// rayMonitorPeriod is a round and a half of Ray's job monitor loop
// (JobManager.JOB_MONITOR_LOOP_PERIOD_S, 1s); tests shorten it.
var rayMonitorPeriod = 1500 * time.Millisecond
