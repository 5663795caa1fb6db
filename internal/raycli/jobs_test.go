package raycli

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
)

func jobRoutes(t *testing.T, id string, over map[string]string) map[string]string {
	routes := map[string]string{
		"POST /api/jobs/":                     "job_submit.json",
		"GET /api/jobs/" + id:                 "job_running.json",
		"GET /api/jobs/" + id + "/logs":       "job_logs.json",
		"POST /api/jobs/" + id + "/stop":      "job_stop.json",
		"DELETE /api/jobs/" + id:              "job_delete.json",
		"GET /api/jobs/rec-no-such-job":       "job_missing.txt",
		"POST /api/jobs/rec-no-such-job/stop": "job_stop_missing.txt",
		"DELETE /api/jobs/rec-no-such-job":    "job_missing.txt",
		"GET /api/jobs/rec-no-such-job/logs":  "job_missing.txt",
	}
	for k, v := range over {
		routes[k] = v
	}
	return routes
}

// A submit sends JobSubmitRequest's fields, and no entrypoint resources
// unless asked.
func TestSubmitJob(t *testing.T) {
	id := recordedID(t)
	r := newReplay(t, jobRoutes(t, id, nil))
	j := &JobSubmit{Entrypoint: "python probe.py", SubmissionID: id,
		RuntimeEnv: map[string]any{"working_dir": "gcs://_ray_pkg_ab.zip", "env_vars": map[string]string{"A": "1"}},
		Metadata:   map[string]string{"by": "rlsolve"}}
	got, err := r.client().SubmitJob(context.Background(), j)
	if err != nil || got != id {
		t.Fatalf("submit: %q, %v", got, err)
	}
	req := r.last()
	if req.Path != "/api/jobs/" || req.ContentType != "application/json" {
		t.Errorf("submit went to %s %s", req.Path, req.ContentType)
	}
	var body map[string]any
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body["entrypoint"] != "python probe.py" || body["submission_id"] != id || body["metadata"].(map[string]any)["by"] != "rlsolve" ||
		body["runtime_env"].(map[string]any)["working_dir"] != "gcs://_ray_pkg_ab.zip" {
		t.Errorf("submit body %s", req.Body)
	}
	if _, ok := body["entrypoint_num_cpus"]; ok {
		t.Errorf("entrypoint_num_cpus sent unasked: %s", req.Body)
	}
	j.EntrypointNumCPUs = 0.5
	r.client().SubmitJob(context.Background(), j)
	if !strings.Contains(string(r.last().Body), `"entrypoint_num_cpus":0.5`) {
		t.Errorf("entrypoint_num_cpus not sent: %s", r.last().Body)
	}
}

// Submitting again with the same id (Ray: 500, "already exists") is not
// an error while the job exists; it is when it does not.
func TestSubmitJobAgain(t *testing.T) {
	id := recordedID(t)
	r := newReplay(t, jobRoutes(t, id, map[string]string{"POST /api/jobs/": "job_submit_again.txt"}))
	got, err := r.client().SubmitJob(context.Background(), &JobSubmit{Entrypoint: "x", SubmissionID: id})
	if err != nil || got != id {
		t.Errorf("resubmit: %q, %v", got, err)
	}
	r = newReplay(t, jobRoutes(t, id, map[string]string{"POST /api/jobs/": "job_submit_again.txt", "GET /api/jobs/" + id: "job_missing.txt"}))
	_, err = r.client().SubmitJob(context.Background(), &JobSubmit{Entrypoint: "x", SubmissionID: id})
	if err == nil || !strings.Contains(err.Error(), "ValueError: Job with submission_id") || !strings.Contains(err.Error(), "HTTP 500") {
		t.Errorf("resubmit of a job that is gone: %v", err)
	}
}

func TestSubmitJobRefused(t *testing.T) {
	r := newReplay(t, nil)
	for _, j := range []*JobSubmit{{Entrypoint: " ", SubmissionID: "a"}, {Entrypoint: "x", SubmissionID: "../etc"}, {Entrypoint: "x", SubmissionID: "a/b"}} {
		if _, err := r.client().SubmitJob(context.Background(), j); err == nil {
			t.Errorf("%+v: no error", j)
		}
	}
	if len(r.got) != 0 {
		t.Errorf("refused submits reached the server: %v", r.got)
	}
}

func TestJob(t *testing.T) {
	id := recordedID(t)
	ctx := context.Background()
	for _, tc := range []struct {
		file   string
		status JobStatus
		term   bool
		check  func(*JobInfo) bool
	}{
		{"job_running.json", JobRunning, false, func(j *JobInfo) bool {
			return j.DriverExitCode == nil && j.StartTime > 0 && j.EndTime == 0 && j.Metadata["by"] == "record.sh" &&
				j.DriverNodeID != "" && j.RuntimeEnv["working_dir"] != nil
		}},
		{"job_stopped.json", JobStopped, true, func(j *JobInfo) bool { return j.EndTime >= j.StartTime && j.Message != "" }},
		{"job_failed.json", JobFailed, true, func(j *JobInfo) bool { return j.DriverExitCode != nil && *j.DriverExitCode == 3 }},
	} {
		r := newReplay(t, jobRoutes(t, id, map[string]string{"GET /api/jobs/" + id: tc.file}))
		j, err := r.client().Job(ctx, id)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if j.Status != tc.status || j.Status.Terminal() != tc.term || !tc.check(j) {
			t.Errorf("%s: %+v", tc.file, j)
		}
	}
	r := newReplay(t, jobRoutes(t, id, nil))
	_, err := r.client().Job(ctx, "rec-no-such-job")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "Job rec-no-such-job does not exist") {
		t.Errorf("missing job: %v", err)
	}
}

func TestStopDeleteLogs(t *testing.T) {
	id := recordedID(t)
	ctx := context.Background()
	c := newReplay(t, jobRoutes(t, id, nil)).client()
	if ok, err := c.StopJob(ctx, id); !ok || err != nil {
		t.Errorf("stop: %v %v", ok, err)
	}
	if ok, err := c.DeleteJob(ctx, id); !ok || err != nil {
		t.Errorf("delete: %v %v", ok, err)
	}
	logs, err := c.JobLogs(ctx, id)
	if err != nil || !strings.Contains(logs, "ready\n") {
		t.Errorf("logs: %q %v", logs, err)
	}
	c = newReplay(t, jobRoutes(t, id, map[string]string{
		"POST /api/jobs/" + id + "/stop": "job_stop_again.json", "DELETE /api/jobs/" + id: "job_delete_running.txt"})).client()
	if ok, err := c.StopJob(ctx, id); ok || err != nil {
		t.Errorf("stop of an ended job: %v %v", ok, err)
	}
	_, err = c.DeleteJob(ctx, id)
	if err == nil || !strings.Contains(err.Error(), "non-terminal state RUNNING") {
		t.Errorf("delete of a running job: %v", err)
	}
	if _, err := c.StopJob(ctx, "rec-no-such-job"); !errors.Is(err, ErrNotFound) {
		t.Errorf("stop of a missing job: %v", err)
	}
}

// Jobs reads the list of JobDetails that GET /api/jobs/ answers.
func TestJobs(t *testing.T) {
	body := `[{"type": "SUBMISSION", "job_id": "02000000", "submission_id": "rlsolve-probe-0a1b2c3d4e5f", "driver_info": null,
 "status": "SUCCEEDED", "entrypoint": "python probe.py", "message": "Job finished successfully.", "error_type": null,
 "start_time": 1764370000000, "end_time": 1764370004000, "metadata": {"rlsolve": "inventory probe"}, "runtime_env": {},
 "driver_agent_http_address": null, "driver_node_id": "abc", "driver_exit_code": 0},
 {"type": "SUBMISSION", "submission_id": "theirs", "status": "RUNNING", "start_time": 1764370000000, "end_time": null, "metadata": null}]`
	var path string
	addr := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path = r.Method + " " + r.URL.Path
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	}))
	c, err := New(addr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := c.Jobs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if path != "GET /api/jobs/" || len(jobs) != 2 || jobs[0].SubmissionID != "rlsolve-probe-0a1b2c3d4e5f" || jobs[0].Metadata["rlsolve"] != "inventory probe" ||
		jobs[0].EndTime != 1764370004000 || !jobs[0].Status.Terminal() || jobs[1].Status.Terminal() || jobs[1].EndTime != 0 {
		t.Errorf("%s: %+v", path, jobs)
	}
}
