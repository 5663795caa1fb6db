package raycli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// JobSubmit is a job to submit: JobSubmitRequest in Ray's
// python/ray/dashboard/modules/job/common.py.
type JobSubmit struct {
	Entrypoint string
	// SubmissionID names the job; a fixed one makes a retried submit
	// idempotent.
	SubmissionID string
	// RuntimeEnv holds env_vars, working_dir ("gcs://_ray_pkg_<hash>.zip"), ...
	RuntimeEnv map[string]any
	Metadata   map[string]string
	// EntrypointNumCPUs and EntrypointNumGPUs reserve resources for the
	// entrypoint (0: not sent, so the entrypoint runs on the head node).
	EntrypointNumCPUs, EntrypointNumGPUs float64
}

// submitRequest is JobSubmitRequest's JSON.
type submitRequest struct {
	Entrypoint        string            `json:"entrypoint"`
	SubmissionID      string            `json:"submission_id,omitempty"`
	RuntimeEnv        map[string]any    `json:"runtime_env,omitempty"`
	Metadata          map[string]string `json:"metadata,omitempty"`
	EntrypointNumCPUs float64           `json:"entrypoint_num_cpus,omitempty"`
	EntrypointNumGPUs float64           `json:"entrypoint_num_gpus,omitempty"`
}

// submitResponse is JobSubmitResponse (common.py).
type submitResponse struct {
	JobID        string `json:"job_id"`
	SubmissionID string `json:"submission_id"`
}

// JobStatus is a job's status: JobStatus in common.py.
type JobStatus string

// The statuses a job goes through.
const (
	JobPending   JobStatus = "PENDING"
	JobRunning   JobStatus = "RUNNING"
	JobStopped   JobStatus = "STOPPED"
	JobSucceeded JobStatus = "SUCCEEDED"
	JobFailed    JobStatus = "FAILED"
)

// Terminal reports whether the job has ended (it will not change again).
func (s JobStatus) Terminal() bool {
	return s == JobStopped || s == JobSucceeded || s == JobFailed
}

// JobInfo is a job's record: JobDetails in Ray's
// python/ray/dashboard/modules/job/pydantic_models.py (JobInfo in
// common.py plus the submission id).
type JobInfo struct {
	SubmissionID string    `json:"submission_id"`
	Status       JobStatus `json:"status"`
	Message      string    `json:"message"`
	// DriverExitCode is nil until the driver has exited (and absent in
	// Ray before 2.40).
	DriverExitCode *int `json:"driver_exit_code"`
	// StartTime and EndTime are Unix times in milliseconds (0: not yet).
	StartTime    int64             `json:"start_time"`
	EndTime      int64             `json:"end_time"`
	Metadata     map[string]string `json:"metadata"`
	DriverNodeID string            `json:"driver_node_id"`
	RuntimeEnv   map[string]any    `json:"runtime_env"`
}

// submissionID is what Ray accepts as a submission id in a path.
var submissionID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`)

// jobPath is /api/jobs/{id}, refusing an id that would change the path.
func (c *Client) jobPath(op, id string) (string, error) {
	if !submissionID.MatchString(id) {
		return "", c.fail(op, 0, fmt.Sprintf("%q is not a job submission id (letters, digits, '.', '_', ':', '-')", clip(id)))
	}
	return "/api/jobs/" + url.PathEscape(id), nil
}

// SubmitJob submits j and returns its submission id. Submitting again
// with the same SubmissionID while that job exists is not an error (a
// retried submit after a lost answer).
func (c *Client) SubmitJob(ctx context.Context, j *JobSubmit) (string, error) {
	op := "submit job " + j.SubmissionID
	if j.SubmissionID == "" {
		op = "submit a job"
	} else if _, err := c.jobPath(op, j.SubmissionID); err != nil {
		return "", err
	}
	if strings.TrimSpace(j.Entrypoint) == "" {
		return "", c.fail(op, 0, "the job has no entrypoint")
	}
	req := submitRequest{Entrypoint: j.Entrypoint, SubmissionID: j.SubmissionID, RuntimeEnv: j.RuntimeEnv,
		Metadata: j.Metadata, EntrypointNumCPUs: j.EntrypointNumCPUs, EntrypointNumGPUs: j.EntrypointNumGPUs}
	body, err := json.Marshal(req)
	if err != nil {
		return "", c.fail(op, 0, err.Error())
	}
	// The trailing slash is required: Ray routes /api/jobs/ only.
	r, err := c.do(ctx, request{op: op, method: http.MethodPost, path: "/api/jobs/", body: bytes.NewReader(body), contentType: "application/json"})
	if err != nil {
		// Ray 2.52 answers 500 with a traceback ending "ValueError: Job
		// with submission_id X already exists" (older ones 400); the job
		// being there is what a retry wanted.
		if r != nil && j.SubmissionID != "" && bytes.Contains(r.body, []byte("already exists")) {
			if _, gerr := c.Job(ctx, j.SubmissionID); gerr == nil {
				return j.SubmissionID, nil
			}
		}
		return "", err
	}
	var resp submitResponse
	if err := c.decode(op, r.body, &resp); err != nil {
		return "", err
	}
	if resp.SubmissionID == "" {
		return "", c.fail(op, 0, "Ray's answer names no submission_id")
	}
	return resp.SubmissionID, nil
}

// Job reads a job's record; an unknown id is an error matching
// ErrNotFound.
func (c *Client) Job(ctx context.Context, id string) (*JobInfo, error) {
	op := "read job " + id
	path, err := c.jobPath(op, id)
	if err != nil {
		return nil, err
	}
	var j JobInfo
	if err := c.getJSON(ctx, op, path, &j); err != nil {
		return nil, err
	}
	return &j, nil
}

// StopJob asks Ray to stop a job (its supervisor sends RAY_JOB_STOP_SIGNAL,
// then SIGKILL after RAY_JOB_STOP_WAIT_TIME_S); false when the job had
// already ended.
func (c *Client) StopJob(ctx context.Context, id string) (bool, error) {
	op := "stop job " + id
	path, err := c.jobPath(op, id)
	if err != nil {
		return false, err
	}
	var r struct {
		Stopped bool `json:"stopped"` // JobStopResponse (common.py)
	}
	err = c.sendJSON(ctx, op, http.MethodPost, path+"/stop", struct{}{}, &r)
	return r.Stopped, err
}

// DeleteJob deletes an ended job's record (Ray refuses a running one).
func (c *Client) DeleteJob(ctx context.Context, id string) (bool, error) {
	op := "delete job " + id
	path, err := c.jobPath(op, id)
	if err != nil {
		return false, err
	}
	resp, err := c.do(ctx, request{op: op, method: http.MethodDelete, path: path})
	if err != nil {
		return false, err
	}
	var r struct {
		Deleted bool `json:"deleted"` // JobDeleteResponse (common.py)
	}
	return r.Deleted, c.decode(op, resp.body, &r)
}

// JobLogs returns the job's driver log so far (at most MaxBodyBytes).
func (c *Client) JobLogs(ctx context.Context, id string) (string, error) {
	op := "read the log of job " + id
	path, err := c.jobPath(op, id)
	if err != nil {
		return "", err
	}
	var r struct {
		Logs string `json:"logs"` // JobLogsResponse (common.py)
	}
	err = c.getJSON(ctx, op, path+"/logs", &r)
	return r.Logs, err
}

// Jobs lists the cluster's job records (GET /api/jobs/, the list of
// JobDetails that `ray job list` prints), at most MaxBodyBytes of them.
func (c *Client) Jobs(ctx context.Context) ([]JobInfo, error) {
	var out []JobInfo
	// The trailing slash is required, as for a submit.
	err := c.getJSON(ctx, "list jobs", "/api/jobs/", &out)
	return out, err
}
