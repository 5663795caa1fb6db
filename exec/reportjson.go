package exec

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// ReportFormatVersion is the version of the JSON report's format; it
// changes when a field changes meaning or goes away (new fields may be
// added within a version).
const ReportFormatVersion = "1"

// jsonReport is the JSON form of a Report (`launch --report FILE`).
type jsonReport struct {
	FormatVersion string `json:"format_version"`
	LaunchID      string `json:"launch_id"`
	Backend       string `json:"backend"`
	// ExitStatus is launch's; Outcome says whose it is: "ok",
	// "worker_failed", "interrupted", "launch_error" (launch's own, 120-125)
	// or "lost" (launch lost control of the workers, 124).
	ExitStatus    int          `json:"exit_status"`
	Outcome       string       `json:"outcome"`
	Error         string       `json:"error,omitempty"`
	FirstFailure  *jsonWorker  `json:"first_failure,omitempty"`
	InterruptedBy string       `json:"interrupted_by,omitempty"`
	ForwardedAs   string       `json:"forwarded_as,omitempty"`
	Total         int          `json:"total"`
	Stopped       int          `json:"stopped"`
	Killed        int          `json:"killed"`
	Leftovers     int          `json:"leftovers"`
	AllStartedS   float64      `json:"all_started_s"`
	ElapsedS      float64      `json:"elapsed_s"`
	LogDir        string       `json:"log_dir,omitempty"`
	Containment   string       `json:"containment,omitempty"`
	Workers       []jsonWorker `json:"workers"`
	Notes         []string     `json:"notes"`
}

// jsonWorker is one worker's end. Status is what a shell would show
// (128+N for signal N, 127 when it could not start).
type jsonWorker struct {
	Component  string  `json:"component"`
	Rank       *int    `json:"rank"` // null: a component's srun as a whole
	Host       string  `json:"host,omitempty"`
	Started    bool    `json:"started"`
	Status     int     `json:"status"`
	ExitCode   *int    `json:"exit_code"` // null when a signal ended it
	Signal     string  `json:"signal,omitempty"`
	Stopped    bool    `json:"stopped"`
	Killed     bool    `json:"killed"`
	Error      string  `json:"error,omitempty"`
	EndedAfter float64 `json:"ended_after_s"`
	Log        string  `json:"log,omitempty"`
}

func newJSONWorker(r *WorkerResult) jsonWorker {
	w := jsonWorker{Component: r.Component, Host: r.Host, Started: r.Started, Status: r.Status(), Stopped: r.Stopped,
		Killed: r.Killed, Error: r.Err, EndedAfter: r.At.Seconds(), Log: r.Log}
	if r.Rank >= 0 {
		rank := r.Rank
		w.Rank = &rank
	}
	if r.Started && r.ExitCode >= 0 {
		code := r.ExitCode
		w.ExitCode = &code
	}
	if r.Signal != 0 {
		w.Signal = signalName(r.Signal)
	}
	return w
}

// Outcome is whose the exit status is, in one word (see jsonReport).
func (r *Report) Outcome() string {
	switch {
	case r.Err != nil:
		return "launch_error"
	case r.Lost != "":
		return "lost"
	case r.First != nil:
		return "worker_failed"
	case r.Interrupted != nil:
		return "interrupted"
	}
	return "ok"
}

// MarshalJSON writes the report in its versioned JSON form.
func (r *Report) MarshalJSON() ([]byte, error) {
	j := jsonReport{FormatVersion: ReportFormatVersion, LaunchID: r.ID, Backend: r.Backend, ExitStatus: r.ExitCode(),
		Outcome: r.Outcome(), Total: r.Total, Stopped: r.Stopped, Killed: r.Killed, Leftovers: r.Leftovers,
		AllStartedS: r.AllStarted.Seconds(), ElapsedS: r.Elapsed.Seconds(), LogDir: r.LogDir, Containment: r.Containment,
		Workers: []jsonWorker{}, Notes: append([]string{}, r.Notes...)}
	if r.Err != nil {
		j.Error = r.Err.Error()
	} else if r.Lost != "" {
		j.Error = r.Lost
	}
	if r.First != nil {
		f := newJSONWorker(r.First)
		j.FirstFailure = &f
	}
	if r.Interrupted != nil {
		j.InterruptedBy = signalName(r.Interrupted)
		if r.Forwarded != 0 {
			j.ForwardedAs = signalName(r.Forwarded)
		}
	}
	for i := range r.Workers {
		j.Workers = append(j.Workers, newJSONWorker(&r.Workers[i]))
	}
	return json.Marshal(j)
}

// CheckReportPath finds, before a launch starts, what would stop
// WriteReport writing path at its end: a folder in the way, or a folder
// it cannot create a file in (it creates one and removes it).
func CheckReportPath(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a folder, not a file", path)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// WriteReport writes the report's JSON to path, atomically (a new file
// renamed over it), so that a reader never sees half a report.
func WriteReport(path string, r *Report) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err = f.Write(append(data, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("report: %w", err)
	}
	return nil
}
