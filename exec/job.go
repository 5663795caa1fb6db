// Package exec launches a plan's workers: one process per worker, each with
// the environment RLinf would give it (semantics §6.3) plus the usual
// torch.distributed variables, on this machine (Local) or across a Slurm
// allocation (Slurm). Nothing goes through a shell: programs and arguments
// are passed as argument vectors, so no config value can inject a command.
//
// The environment of a worker is the plan's (the function behind `rlsolve
// plan --output env`), plus MASTER_PORT, chosen by the backend at launch,
// and RLSOLVE_LAUNCH_ID, which marks every process of one launch.
//
// Both backends share one supervisor (supervisor.go: signals, grace, the
// first failure, kill) and one guardian (guard.go): the process, started
// from the launch binary, that owns the units (local workers, or srun
// steps), writes the per-run logs, and outlives launch so that nothing of
// a run survives it, even when launch is killed outright. Launch's own
// failures exit in 120-125 (report.go).
package exec

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/rlsolve/rlsolve/model"
)

// LaunchIDVar marks every process a launch starts (and their descendants,
// which inherit it): the sweep at the end of a launch finds survivors by it.
const LaunchIDVar = "RLSOLVE_LAUNCH_ID"

// Launcher starts a job's workers, waits for them and reports how they
// ended. An error means nothing could be started (or the backend failed);
// a worker failing is in the Report, not an error.
type Launcher interface {
	Launch(ctx context.Context, job *Job, opt Options) (*Report, error)
}

// Options are what every backend takes.
type Options struct {
	// Stdout and Stderr receive the workers' output, each line prefixed
	// with "component/rank: ". Nil discards.
	Stdout, Stderr Writer
	// LogDir is the parent of the run's own log directory: the run makes
	// LogDir/LAUNCH_ID (new, never reused), writes one file per worker
	// there, component-rank.log, with its stdout and stderr lines
	// (unprefixed), and points LogDir/latest at it. Empty: no log files.
	LogDir string
	// Grace is how long workers have between SIGTERM and SIGKILL when the
	// launch stops them (a worker failed, or a signal came). Zero: 10s.
	Grace time.Duration
	// Signals stop the launch: SIGINT is forwarded to every worker,
	// SIGTERM, SIGHUP and SIGQUIT as SIGTERM; then the grace period. A
	// second signal while stopping kills at once (a second SIGHUP does
	// not); SIGPIPE changes nothing.
	Signals <-chan os.Signal
	// Environ is the environment the workers inherit (nil: os.Environ()).
	Environ []string
	// Notef, when set, receives notes about the launch (one line each).
	Notef func(format string, args ...any)
	// Guard runs the guardian, the process that owns the workers (see
	// GuardCommand): the launch binary and GuardCommand. Nil: this
	// executable with GuardCommand.
	Guard []string
	// Report is launch's --report file (an absolute path): should launch
	// be killed, the guardian writes it. Launch writes it otherwise.
	Report string
}

func (o *Options) guard() ([]string, error) {
	if len(o.Guard) > 0 {
		return o.Guard, nil
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding the launch binary for the guardian: %w", err)
	}
	return []string{self, GuardCommand}, nil
}

// Writer is an io.Writer (kept as its own name so that Options documents
// itself); writes of whole lines are never split.
type Writer interface {
	Write(p []byte) (int, error)
}

func (o *Options) grace() time.Duration {
	if o.Grace <= 0 {
		return 10 * time.Second
	}
	return o.Grace
}

func (o *Options) environ() []string {
	if o.Environ == nil {
		return os.Environ()
	}
	return o.Environ
}

func (o *Options) notef(format string, args ...any) {
	if o.Notef != nil {
		o.Notef(format, args...)
	}
}

// Job is what to launch: some of a plan's components, each with a program.
type Job struct {
	// ID is the launch's identity (RLSOLVE_LAUNCH_ID).
	ID         string
	Components []*Component
	// Node is the cluster node whose share of the plan this job is
	// (OnNode), -1 for the whole plan.
	Node int
}

// Component is one component's workers; they share MASTER_ADDR/MASTER_PORT.
type Component struct {
	Name string
	// MasterAddr is the address of rank 0's node as the plan knows it
	// (inventory IP, else host name); "" when it knows neither.
	MasterAddr string
	// MasterPort is chosen by the backend at launch when 0.
	MasterPort int
	Workers    []Worker
}

// Worker is one process to start.
type Worker struct {
	Component string
	Rank      int
	// Node is the cluster node rank; Host and IP what the inventory says.
	Node     int
	Host, IP string
	// Argv is the program and its arguments, the python interpreter
	// already substituted.
	Argv []string
	// Env is the worker's variables: the plan's, RLSOLVE_LAUNCH_ID, and
	// (once launched) MASTER_ADDR and MASTER_PORT. They are applied over
	// the inherited environment by MergeEnv.
	Env map[string]string
}

// Name is "component/rank", the prefix of the worker's output lines.
func (w *Worker) Name() string { return w.Component + "/" + strconv.Itoa(w.Rank) }

// PlanEnv is what the plan offers to build workers from;
// *strategies.Cluster implements it (EnvOf is the function behind `rlsolve
// plan --output env`).
type PlanEnv interface {
	EnvOf(cp *model.ComponentPlan, p *model.Placement) map[string]string
	Interpreter(label string, node int) string
}

// NewJob builds the workers of the components that runs names (component
// name → argv), in plan order. nodes are the plan's cluster nodes (for
// host names and addresses).
func NewJob(plan *model.Plan, src PlanEnv, nodes []model.Node, runs map[string][]string) (*Job, error) {
	if plan == nil {
		return nil, errors.New("no plan")
	}
	if err := checkRuns(plan, runs); err != nil {
		return nil, err
	}
	job := &Job{ID: NewLaunchID(), Node: -1}
	for i := range plan.Components {
		cp := &plan.Components[i]
		argv, ok := runs[cp.Name]
		if !ok || cp.Placements.Len() == 0 {
			continue
		}
		c := &Component{Name: cp.Name, Workers: make([]Worker, cp.Placements.Len())}
		for j, p := range cp.Placements.All() {
			if p.ClusterNodeRank < 0 || p.ClusterNodeRank >= len(nodes) {
				return nil, fmt.Errorf("component %s worker %d: node %d is not in the inventory", cp.Name, j, p.ClusterNodeRank)
			}
			n := &nodes[p.ClusterNodeRank]
			env := src.EnvOf(cp, &p)
			env[LaunchIDVar] = job.ID
			w := Worker{Component: cp.Name, Rank: p.Rank, Node: p.ClusterNodeRank, Host: n.Hostname, IP: n.IP,
				Argv: InterpreterArgv(argv, src.Interpreter(p.NodeGroupLabel, p.ClusterNodeRank)), Env: env}
			c.Workers[j] = w
		}
		c.MasterAddr = c.Workers[0].Env["MASTER_ADDR"]
		job.Components = append(job.Components, c)
	}
	return job, nil
}

// InterpreterArgv replaces a bare `python`/`python3` program with the node
// group's python_interpreter_path (semantics §6.3), when it sets one.
func InterpreterArgv(argv []string, interpreter string) []string {
	out := append([]string(nil), argv...)
	if interpreter != "" && len(out) > 0 && (out[0] == "python" || out[0] == "python3") {
		out[0] = interpreter
	}
	return out
}

// NewLaunchID returns a fresh launch identity: time and randomness, safe in
// file names and environment values.
func NewLaunchID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// setMaster records the component's MASTER_ADDR/MASTER_PORT in every
// worker's variables.
func (c *Component) setMaster(addr string, port int) {
	c.MasterAddr, c.MasterPort = addr, port
	ps := strconv.Itoa(port)
	for i := range c.Workers {
		if addr != "" {
			c.Workers[i].Env["MASTER_ADDR"] = addr
		}
		c.Workers[i].Env["MASTER_PORT"] = ps
	}
}

// nodes counts the cluster nodes the job's workers are on.
func (j *Job) nodes() int {
	seen := map[int]bool{}
	for _, w := range j.workers() {
		seen[w.Node] = true
	}
	return len(seen)
}

// OnNode keeps only the workers on cluster node n: one node's share of the
// plan, what a per-node agent launches. Every node's agent must agree on
// each component's rendezvous, so the components keep the plan's
// MASTER_ADDR and get MASTER_PORT basePort+i, i counting the job's
// components in plan order before any is dropped.
func (j *Job) OnNode(n, basePort int) error {
	if basePort <= 0 || basePort+len(j.Components) > 65536 {
		return fmt.Errorf("one node's share needs a MASTER_PORT base every node agrees on (--master-port 1-%d), not %d", 65536-len(j.Components), basePort)
	}
	var kept []*Component
	for i, c := range j.Components {
		if c.MasterAddr == "" {
			return fmt.Errorf("component %s: the inventory gives rank 0's node (%d) no ip or hostname for MASTER_ADDR, which every node must reach", c.Name, c.Workers[0].Node)
		}
		c.MasterPort = basePort + i
		ws := slices.DeleteFunc(slices.Clone(c.Workers), func(w Worker) bool { return w.Node != n })
		if len(ws) > 0 {
			c.Workers = ws
			kept = append(kept, c)
		}
	}
	j.Components, j.Node = kept, n
	return nil
}

// workers lists every worker of the job, component by component.
func (j *Job) workers() []*Worker {
	var out []*Worker
	for _, c := range j.Components {
		for i := range c.Workers {
			out = append(out, &c.Workers[i])
		}
	}
	return out
}
