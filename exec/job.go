// Package exec launches a plan's workers: one process per worker, each with
// the environment RLinf would give it (semantics §6.3) plus the usual
// torch.distributed variables, on this machine (Local) or across a Slurm
// allocation (Slurm). Nothing goes through a shell: programs and arguments
// are passed as argument vectors, so no config value can inject a command.
//
// The environment of a worker is the plan's (the function behind `rlsolve
// plan --output env`), plus MASTER_PORT, chosen by the backend at launch,
// and RLSOLVE_LAUNCH_ID, which marks every process of one launch so that
// none survives it.
package exec

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
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
	// LogDir receives one file per worker, component-rank.log, with its
	// stdout and stderr lines (unprefixed). Empty: no log files.
	LogDir string
	// Grace is how long workers have between SIGTERM and SIGKILL when the
	// launch stops them (a worker failed, or a signal came). Zero: 10s.
	Grace time.Duration
	// Signals are forwarded to every worker (SIGINT, SIGTERM); a second
	// signal while stopping kills at once.
	Signals <-chan os.Signal
	// Environ is the environment the workers inherit (nil: os.Environ()).
	Environ []string
	// Notef, when set, receives notes about the launch (one line each).
	Notef func(format string, args ...any)
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
// *strategies.Cluster implements it (Env is the function behind `rlsolve
// plan --output env`).
type PlanEnv interface {
	Env(cp *model.ComponentPlan, i int) map[string]string
	Interpreter(label string, node int) string
}

// NewJob builds the workers of the components that runs names (component
// name → argv), in plan order. nodes are the plan's cluster nodes (for
// host names and addresses).
func NewJob(plan *model.Plan, src PlanEnv, nodes []model.Node, runs map[string][]string) (*Job, error) {
	if plan == nil {
		return nil, fmt.Errorf("no plan")
	}
	for name, argv := range runs {
		if plan.Component(name) == nil {
			return nil, fmt.Errorf("no component %q in the plan (components: %s)", name, strings.Join(ComponentNames(plan), ", "))
		}
		if len(argv) == 0 || argv[0] == "" {
			return nil, fmt.Errorf("component %s: empty program", name)
		}
	}
	job := &Job{ID: NewLaunchID()}
	for i := range plan.Components {
		cp := &plan.Components[i]
		argv, ok := runs[cp.Name]
		if !ok || len(cp.Placements) == 0 {
			continue
		}
		c := &Component{Name: cp.Name, Workers: make([]Worker, len(cp.Placements))}
		for j := range cp.Placements {
			p := &cp.Placements[j]
			if p.ClusterNodeRank < 0 || p.ClusterNodeRank >= len(nodes) {
				return nil, fmt.Errorf("component %s worker %d: node %d is not in the inventory", cp.Name, j, p.ClusterNodeRank)
			}
			n := &nodes[p.ClusterNodeRank]
			env := src.Env(cp, j)
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

// ComponentNames lists the plan's components in order.
func ComponentNames(plan *model.Plan) []string {
	out := make([]string, 0, len(plan.Components))
	for i := range plan.Components {
		out = append(out, plan.Components[i].Name)
	}
	return out
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
