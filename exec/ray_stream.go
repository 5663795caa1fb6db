package exec

import (
	"bytes"
	"encoding/json"
	"strings"
)

// rayMark starts the driver's event lines (python/driver.py's MARK). A
// worker's line cannot pass for one: the driver prefixes every worker line
// with its name.
const rayMark = "rlsolve-ray-event: "

// rayEvent is one of the driver's events.
type rayEvent struct {
	Event string `json:"event"`
	// started: the worker and its node's address.
	Worker string `json:"worker"`
	IP     string `json:"ip"`
	// job: the driver's Ray job id.
	JobID string `json:"job_id"`
	// report: how the launch ended.
	Report *rayReport `json:"report"`
	// bundles: slime's sorted bundles.
	Bundles []rayBundle `json:"bundles"`
}

type rayBundle struct {
	Bundle int    `json:"bundle"`
	IP     string `json:"ip"`
	GPU    int    `json:"gpu"`
}

// rayReport is the driver's report line.
type rayReport struct {
	LaunchID    string            `json:"launch_id"`
	Workers     []rayWorkerResult `json:"workers"`
	First       *string           `json:"first"`
	Interrupted bool              `json:"interrupted"`
	Error       string            `json:"error"`
}

type rayWorkerResult struct {
	Component string `json:"component"`
	Rank      int    `json:"rank"`
	Host      string `json:"host"`
	Started   bool   `json:"started"`
	ExitCode  *int   `json:"exit_code"`
	Signal    int    `json:"signal"`
	Stopped   bool   `json:"stopped"`
	Killed    bool   `json:"killed"`
	Err       string `json:"err"`
	// EndedS is when it ended, in seconds from the driver's start.
	EndedS float64 `json:"ended_s"`
}

// rayStream turns the job's log, as Ray sends it (chunks not aligned to
// lines), into lines: worker lines go to stdout (as they are) and to the
// worker's log (unprefixed), the driver's events to onEvent, and anything
// else (the driver's and Ray's own lines) to stderr and the driver's log.
type rayStream struct {
	sink    *lineSink
	logs    map[string]*workerLog // by worker name
	driver  *workerLog
	onEvent func(rayEvent)
	partial []byte
}

// write takes one chunk of the log.
func (s *rayStream) write(chunk string) {
	s.partial = append(s.partial, chunk...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		s.line(string(s.partial[:i]))
		s.partial = s.partial[i+1:]
	}
	for len(s.partial) >= MaxLine { // a line without end is passed on in pieces
		s.line(string(s.partial[:MaxLine]))
		s.partial = s.partial[MaxLine:]
	}
	if len(s.partial) == 0 {
		s.partial = nil // let a large chunk's buffer go
	}
}

// flush passes on a last line without its newline.
func (s *rayStream) flush() {
	if len(s.partial) > 0 {
		s.line(string(s.partial))
		s.partial = nil
	}
}

func (s *rayStream) line(l string) {
	if rest, ok := strings.CutPrefix(l, rayMark); ok {
		var ev rayEvent
		if err := json.Unmarshal([]byte(rest), &ev); err == nil && ev.Event != "" {
			s.onEvent(ev)
			return
		}
	}
	if name, text, ok := strings.Cut(l, ": "); ok {
		if lg, known := s.logs[name]; known {
			s.sink.write(false, []byte(l+"\n"))
			lg.write([]byte(text + "\n"))
			return
		}
	}
	s.sink.write(true, []byte(l+"\n"))
	s.driver.write([]byte(l + "\n"))
}
