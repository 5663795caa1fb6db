package exec

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rlsolve/rlsolve/internal/raycli"
	"github.com/rlsolve/rlsolve/python"
)

// Ray runs the plan on a Ray cluster: the embedded driver (python/driver.py)
// and the plan go to the cluster as one Jobs API job, whose driver starts
// one actor per worker where the plan says and runs the worker's program as
// the actor's child (docs/ray.md). The environment contract, log
// directory, report and exit statuses are local's; the supervisor's
// policy (first failure stops the rest, grace, kill) runs in the driver.
type Ray struct {
	Client RayAPI
	// Python runs the driver on the head node: an interpreter that imports
	// ray there ("": the one the head's Ray runs on, see raycli.Entrypoint).
	Python string
	// Nodes are the plan's nodes in order, as RayPreflight matched them to
	// the cluster's; the driver checks that they are still there.
	Nodes []RayNodeSpec
	// Slots and Bundles make a slime launch: each worker's place among the
	// placement group's sorted bundles; nil: RLinf mode.
	Slots   map[string]RaySlot
	Bundles int
	// KeepJob keeps the job's record on the cluster after the launch.
	KeepJob bool
	// CleanupWait bounds the check that nothing of the launch is left
	// (zero: 30s); Poll is how often it asks (zero: 500ms).
	CleanupWait, Poll time.Duration
}

// RayNodeSpec is one of the plan's nodes as the driver checks it: the
// Ray node it pins the node's workers to (RLinf mode), which must be alive
// with this address and GPU count.
type RayNodeSpec struct {
	NodeID string
	IP     string
	GPUs   int
}

// RayAPI is what the Ray backend needs of a Ray dashboard (NewRayAPI
// adapts internal/raycli's client; tests use a fake).
type RayAPI interface {
	// Address is the dashboard's URL, for messages.
	Address() string
	// CheckVersion refuses a Ray older than RLinf's floor; it returns the
	// cluster's version.
	CheckVersion(ctx context.Context) (string, error)
	// NodeRows lists the nodes as `ray list nodes --detail --format json`
	// prints them.
	NodeRows(ctx context.Context) ([]byte, error)
	// UploadDir uploads files as a working_dir package and returns its URI.
	UploadDir(ctx context.Context, files map[string][]byte) (string, error)
	// PutKey stores data under a package URI the driver reads.
	PutKey(ctx context.Context, uri string, data []byte) error
	SubmitJob(ctx context.Context, j *RayJobSpec) error
	// JobStatus is the job's status (PENDING ... FAILED) and message;
	// ErrRayNoJob when there is no such job.
	JobStatus(ctx context.Context, id string) (status, message string, err error)
	StopJob(ctx context.Context, id string) error
	DeleteJob(ctx context.Context, id string) error
	// TailJobLogs calls fn with the job's log as Ray streams it, from its
	// start, until the job ends.
	TailJobLogs(ctx context.Context, id string, fn func(chunk string) error) error
	// Leftovers describes the live actors of namespace and the placement
	// groups named pgName that are not removed.
	Leftovers(ctx context.Context, namespace, pgName string) ([]string, error)
	// SupervisorAlive reports whether the job's supervisor actor is still
	// alive (a job deleted before it died comes back as FAILED).
	SupervisorAlive(ctx context.Context, id string) (bool, error)
}

// RayJobSpec is a job to submit.
type RayJobSpec struct {
	SubmissionID, Entrypoint, WorkingDir string
	Env, Metadata                        map[string]string
}

// ErrRayNoJob is a job the cluster does not know.
var ErrRayNoJob = errors.New("no such Ray job")

// rayTerminal reports whether a job status is final.
func rayTerminal(status string) bool {
	return status == "STOPPED" || status == "SUCCEEDED" || status == "FAILED"
}

func (b *Ray) poll() time.Duration {
	if b.Poll <= 0 {
		return 500 * time.Millisecond
	}
	return b.Poll
}

func (b *Ray) cleanupWait() time.Duration {
	if b.CleanupWait <= 0 {
		return 30 * time.Second
	}
	return b.CleanupWait
}

// Launch submits the driver with the job's plan, streams its log, waits
// for its report and checks that nothing of the launch is left.
func (b *Ray) Launch(ctx context.Context, job *Job, opt Options) (*Report, error) {
	r := newRun(job, &opt, "ray")
	r.rep.Containment = "Ray namespace " + RayNamespace(job.ID)
	plan, err := b.plan(job, opt.grace()).marshal()
	if err != nil {
		return nil, Errorf(ExitInternal, "writing the driver's plan: %w", err)
	}
	driver, err := python.Files.ReadFile("driver.py")
	if err != nil {
		return nil, Errorf(ExitInternal, "the embedded driver: %w", err)
	}
	if err := r.openDir(); err != nil {
		return nil, err
	}
	l, err := newRayLaunch(b, r)
	if err != nil {
		r.dir.close()
		return nil, err
	}
	defer l.close()
	if err := l.submit(ctx, map[string][]byte{"driver.py": driver, "plan.json": plan}); err != nil {
		return nil, err
	}
	l.follow(ctx)
	l.end(ctx)
	r.rep.Elapsed = time.Since(r.start)
	return r.rep, nil
}

func (b *Ray) plan(job *Job, grace time.Duration) *rayPlan {
	nodes := make([]rayPlanNode, len(b.Nodes))
	for i, n := range b.Nodes {
		nodes[i] = rayPlanNode{NodeID: n.NodeID, IP: n.IP, GPUs: n.GPUs}
	}
	return newRayPlan(job, nodes, grace, b.Slots, b.Bundles)
}

// submit uploads the driver and plan and submits the job.
func (l *rayLaunch) submit(ctx context.Context, files map[string][]byte) error {
	c := l.b.Client
	uri, err := c.UploadDir(ctx, files)
	if err != nil {
		return Errorf(ExitStart, "uploading the driver to %s: %w", c.Address(), err)
	}
	spec := &RayJobSpec{SubmissionID: l.id, Entrypoint: raycli.Entrypoint(l.b.Python, "driver.py"), WorkingDir: uri,
		Env: map[string]string{"RAY_JOB_STOP_SIGNAL": "SIGINT", "RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO": "0", "RAY_DEDUP_LOGS": "0",
			"RAY_JOB_STOP_WAIT_TIME_S": fmt.Sprint(rayStopWait(l.r.opt.grace()))},
		Metadata: map[string]string{"rlsolve_launch_id": l.r.job.ID}}
	if err := c.SubmitJob(ctx, spec); err != nil {
		return Errorf(ExitStart, "submitting the driver to %s: %w", c.Address(), err)
	}
	l.r.notef("Ray job %s on %s (stop it with: rlsolve launch --backend ray --ray-address %s --stop %s)",
		l.id, c.Address(), c.Address(), l.r.job.ID)
	return nil
}
