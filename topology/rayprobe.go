package topology

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rlsolve/rlsolve/internal/raycli"
	"github.com/rlsolve/rlsolve/python"
)

// RayFacts is what the probe (python/probe.py) saw on one node.
type RayFacts struct {
	// Rank is RLINF_NODE_RANK in the raylet's environment (nil: unset).
	Rank *string `json:"rank"`
	IP   string  `json:"ip"`
	// Python is the interpreter Ray's workers run on that node.
	Python string `json:"python"`
	// NVML says how the GPUs were counted: "pynvml", "libnvidia-ml", or
	// "unavailable" (no driver: GPUs Ray was told about with --num-gpus).
	NVML  string `json:"nvml"`
	GPUs  int    `json:"gpus"`
	Model string `json:"model"`
	// Error is why the node did not answer, or why NVML could not be read.
	Error string `json:"error"`
}

// NVMLAvailable reports whether the probe counted the node's GPUs.
func (f RayFacts) NVMLAvailable() bool { return f.NVML != "" && f.NVML != "unavailable" }

// probeMarker starts the probe's one line of results (probe.py's MARKER).
const probeMarker = "RLSOLVE_PROBE_RESULT "

// ParseProbe reads the probe's results, keyed by Ray node id, from its
// job's log: the last line that starts with the marker.
func ParseProbe(log string) (map[string]RayFacts, error) {
	i := strings.LastIndex(log, "\n"+probeMarker)
	if i < 0 && !strings.HasPrefix(log, probeMarker) {
		return nil, errors.New("the probe printed no result line")
	}
	line := log[i+1+len(probeMarker):]
	if i < 0 {
		line = log[len(probeMarker):]
	}
	line, _, _ = strings.Cut(line, "\n")
	var out struct {
		Nodes map[string]RayFacts `json:"nodes"`
	}
	if err := json.Unmarshal([]byte(line), &out); err != nil {
		return nil, fmt.Errorf("the probe's result line is not its JSON: %v", err)
	}
	if len(out.Nodes) > maxNodes {
		return nil, fmt.Errorf("the probe reports %d nodes; rlsolve reads at most %d", len(out.Nodes), maxNodes)
	}
	for id, f := range out.Nodes {
		f, err := cleanFacts(id, f)
		if err != nil {
			return nil, err
		}
		out.Nodes[id] = f
	}
	return out.Nodes, nil
}

// cleanFacts bounds what a probe said about node id (its own output, or
// the cache's copy of it).
func cleanFacts(id string, f RayFacts) (RayFacts, error) {
	if f.GPUs < 0 || f.GPUs > 1024 {
		return f, fmt.Errorf("the probe counts %d GPUs on node %s; expected 0 to 1024", f.GPUs, clip(id))
	}
	if !modelName.MatchString(f.Model) {
		f.Model = ""
	}
	f.Python, f.Error = clip(f.Python), clipLong(f.Error)
	return f, nil
}

func clipLong(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// probePoll is how often RunProbe reads the probe job's status.
var probePoll = 500 * time.Millisecond

// RunProbe runs python/probe.py on the cluster as a short job (its working
// directory uploaded as a package, a submission id of its own, deleted
// afterwards) and returns what it saw per node. python runs it ("": the
// head node's Ray's own, see raycli.Entrypoint).
func RunProbe(ctx context.Context, c *raycli.Client, python string) (map[string]RayFacts, error) {
	src, err := pythonFiles.ReadFile("probe.py")
	if err != nil {
		return nil, err
	}
	zip, err := raycli.ZipDir(map[string][]byte{"probe.py": src})
	if err != nil {
		return nil, err
	}
	uri := raycli.PackageURI(zip)
	if ok, err := c.PackageExists(ctx, uri); err != nil {
		return nil, err
	} else if !ok {
		if err := c.UploadPackage(ctx, uri, zip); err != nil {
			return nil, err
		}
	}
	var b [6]byte
	rand.Read(b[:])
	id := probePrefix + hex.EncodeToString(b[:])
	_, err = c.SubmitJob(ctx, &raycli.JobSubmit{Entrypoint: raycli.Entrypoint(python, "probe.py"), SubmissionID: id,
		RuntimeEnv: map[string]any{"working_dir": uri}, Metadata: map[string]string{probeMetaKey: probeMetaValue}})
	if err != nil {
		return nil, err
	}
	defer removeJob(ctx, c, id)
	job, err := waitJob(ctx, c, id)
	if err != nil {
		return nil, err
	}
	log, err := c.JobLogs(ctx, id)
	if err != nil {
		return nil, err
	}
	if job.Status != raycli.JobSucceeded {
		return nil, fmt.Errorf("the probe job %s ended %s: %s; its log ends:\n%s", id, job.Status, firstLine(job.Message), lastLines(log, 8))
	}
	facts, err := ParseProbe(log)
	if err != nil {
		return nil, fmt.Errorf("probe job %s: %v; its log ends:\n%s", id, err, lastLines(log, 8))
	}
	return facts, nil
}

// pythonFiles is the embedded Python (a variable, so tests can swap it).
var pythonFiles = python.Files

// waitJob reads the job until it has ended.
func waitJob(ctx context.Context, c *raycli.Client, id string) (*raycli.JobInfo, error) {
	for {
		job, err := c.Job(ctx, id)
		if err != nil {
			return nil, err
		}
		if job.Status.Terminal() {
			return job, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("the probe job %s is still %s: %w", id, job.Status, ctx.Err())
		case <-time.After(probePoll):
		}
	}
}

// removeJob stops the probe job if it still runs and deletes its record,
// even when ctx has ended (a probe must not outlive rlsolve).
func removeJob(ctx context.Context, c *raycli.Client, id string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if job, err := c.Job(ctx, id); err == nil && !job.Status.Terminal() {
		c.StopJob(ctx, id)
		waitJob(ctx, c, id)
	}
	c.DeleteJob(ctx, id)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return clipLong(s)
}

// lastLines is the end of a log, for an error.
func lastLines(log string, n int) string {
	lines := strings.Split(strings.TrimRight(log, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		lines[i] = "  " + clipLong(l)
	}
	return strings.Join(lines, "\n")
}
