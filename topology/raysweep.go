package topology

import (
	"context"
	"strings"
	"time"

	"github.com/rlsolve/rlsolve/internal/raycli"
)

// A probe job is rlsolve's by two marks it gets on submit: its submission
// id's prefix and its metadata. A record is rlsolve's to delete only when
// it has both: a job someone else named rlsolve-probe-* keeps its record.
const (
	probePrefix    = "rlsolve-probe-"
	probeMetaKey   = "rlsolve"
	probeMetaValue = "inventory probe"
)

// DefaultProbeRecordAge is how long a finished probe's record is left
// alone: the rlsolve that submitted it may still be reading its log (a few
// seconds), and is then the one to delete it. Older ones were left by an
// rlsolve that died (SIGKILL) before it could. The age is measured from
// the job's end by this machine's clock.
const DefaultProbeRecordAge = 5 * time.Minute

// SweepProbeRecords deletes the records of finished probe jobs that an
// earlier rlsolve left on the cluster, ones that ended age or more before
// now (age <= 0: DefaultProbeRecordAge), and returns their ids. It never touches a running job, a job without rlsolve's
// marks, or anything but job records. A failure to list or delete is
// returned with what was deleted so far; callers go on without the sweep.
func SweepProbeRecords(ctx context.Context, c *raycli.Client, now time.Time, age time.Duration) ([]string, error) {
	if age <= 0 {
		age = DefaultProbeRecordAge
	}
	jobs, err := c.Jobs(ctx)
	if err != nil {
		return nil, err
	}
	var deleted []string
	for _, j := range jobs {
		if !staleProbe(j, now, age) {
			continue
		}
		if _, err := c.DeleteJob(ctx, j.SubmissionID); err != nil {
			return deleted, err
		}
		deleted = append(deleted, j.SubmissionID)
	}
	return deleted, nil
}

// staleProbe reports whether j is a probe's record that rlsolve left.
func staleProbe(j raycli.JobInfo, now time.Time, age time.Duration) bool {
	return strings.HasPrefix(j.SubmissionID, probePrefix) && j.Metadata[probeMetaKey] == probeMetaValue &&
		j.Status.Terminal() && j.EndTime > 0 && now.Sub(time.UnixMilli(j.EndTime)) >= age
}
