package exec

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"time"
)

// The Ray backend hands the driver (python/driver.py) the launch as a JSON
// file, plan.json, beside it in the job's working directory. Its fields
// are the driver's; rayPlan is their one definition on the Go side.
type rayPlan struct {
	LaunchID  string `json:"launch_id"`
	Namespace string `json:"namespace"`
	// Mode is "rlinf" (named actors pinned to nodes) or "slime" (the
	// bundles of one PACK placement group).
	Mode   string  `json:"mode"`
	GraceS float64 `json:"grace_s"`
	// StopKey and KillKey are the package keys rlsolve uploads to tell the
	// driver which signal a stop forwards, and to kill at once.
	StopKey string `json:"stop_key"`
	KillKey string `json:"kill_key"`
	// Nodes are the plan's nodes in order, each with the Ray node id that
	// rlsolve's preflight found at its place in RLinf's order: the driver
	// pins to these ids and only checks that each is alive, at its IP,
	// with its GPUs (the order is decided in Go, topology's rules).
	Nodes []rayPlanNode `json:"nodes"`
	// Bundles is the slime placement group's size.
	Bundles    int                `json:"bundles,omitempty"`
	Components []rayPlanComponent `json:"components"`
}

type rayPlanNode struct {
	NodeID string `json:"node_id,omitempty"`
	IP     string `json:"ip"`
	GPUs   int    `json:"gpus"`
}

type rayPlanComponent struct {
	Name    string          `json:"name"`
	Workers []rayPlanWorker `json:"workers"`
}

type rayPlanWorker struct {
	Rank int               `json:"rank"`
	Node int               `json:"node"`
	Argv []string          `json:"argv"`
	Env  map[string]string `json:"env"`
	// Bundle is slime's: the index into the sorted bundles, and the GPU
	// (and CPU) fraction the actor asks for.
	Bundle      int     `json:"bundle"`
	GPUFraction float64 `json:"gpu_fraction,omitempty"`
}

// RaySlot is where slime puts one worker: its place among the sorted
// bundles and the GPU fraction its actor asks for (0.4 training, 0.2 a
// rollout engine).
type RaySlot struct {
	Bundle   int
	Fraction float64
}

// RayNamespace is the Ray namespace of a launch's actors: its own, so that
// the cleanup check and --stop find exactly its actors.
func RayNamespace(id string) string { return "rlsolve-" + id }

// RaySubmissionID is the Jobs API submission id of a launch: fixed by the
// launch id, so a retried submit is the same job and --stop finds it.
func RaySubmissionID(id string) string { return "rlsolve-" + id }

// rayPGName is the name of a slime launch's placement group.
func rayPGName(id string) string { return "rlsolve-" + id }

// rayKey is a package URI of the launch's own, a control key the driver
// reads (Ray stores a package under its URI in its internal KV).
func rayKey(id, what string) string {
	sum := sha256.Sum256([]byte("rlsolve/" + id + "/" + what))
	return "gcs://_ray_pkg_" + hex.EncodeToString(sum[:16]) + ".zip"
}

// rayStopWait is RAY_JOB_STOP_WAIT_TIME_S: the grace, and a margin for the
// driver to stop its actors and report, before Ray kills it.
func rayStopWait(grace time.Duration) int {
	return int(math.Ceil(grace.Seconds())) + 15
}

// newRayPlan is the driver's view of job.
func newRayPlan(job *Job, nodes []rayPlanNode, grace time.Duration, slots map[string]RaySlot, bundles int) *rayPlan {
	p := &rayPlan{LaunchID: job.ID, Namespace: RayNamespace(job.ID), Mode: "rlinf", GraceS: grace.Seconds(),
		StopKey: rayKey(job.ID, "stop"), KillKey: rayKey(job.ID, "kill"), Nodes: nodes}
	if slots != nil {
		p.Mode, p.Bundles = "slime", bundles
	}
	for _, c := range job.Components {
		pc := rayPlanComponent{Name: c.Name}
		for _, w := range c.Workers {
			pw := rayPlanWorker{Rank: w.Rank, Node: w.Node, Argv: w.Argv, Env: w.Env}
			if s, ok := slots[w.Name()]; ok {
				pw.Bundle, pw.GPUFraction = s.Bundle, s.Fraction
			}
			pc.Workers = append(pc.Workers, pw)
		}
		p.Components = append(p.Components, pc)
	}
	return p
}

func (p *rayPlan) marshal() ([]byte, error) { return json.MarshalIndent(p, "", "  ") }
