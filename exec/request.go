package exec

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/rlsolve/rlsolve/model"
)

// Request is what launch's command line asks for beside the config: the
// backend, the programs and where the workers run.
type Request struct {
	Backend string
	// Runs are the --run COMPONENT=CMD values; Component and Tail are
	// --component NAME with the program after --.
	Runs          []string
	Component     string
	Tail          []string
	Grace         time.Duration
	Node          int // -1: every node's workers
	MasterPort    int
	Oversubscribe bool
}

// Specs checks the request's settings against one another and parses
// its programs. Every error it returns is a usage error.
func (r *Request) Specs() ([]RunSpec, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	var specs []RunSpec
	for _, s := range r.Runs {
		spec, err := ParseRun(s)
		if err != nil {
			return nil, err
		}
		specs = append(specs, spec)
	}
	if r.Component != "" {
		specs = append(specs, RunSpec{Names: []string{r.Component}, Argv: r.Tail})
	}
	if len(specs) == 0 {
		return nil, errors.New("nothing to launch: give --run COMPONENT='program args' or --component NAME -- program args")
	}
	return specs, nil
}

// backendName is a backend as messages name it.
var backendName = map[string]string{"slurm": "Slurm", "ray": "Ray"}

// check refuses settings that do not go together.
func (r *Request) check() error {
	switch {
	case r.Backend != "local" && r.Backend != "slurm" && r.Backend != "ray":
		return fmt.Errorf("--backend must be local, slurm or ray, not %q", r.Backend)
	case r.Backend != "local" && (r.Node >= 0 || r.Oversubscribe):
		return fmt.Errorf("--node and --oversubscribe are for the local backend; the %s backend places every worker on its node", backendName[r.Backend])
	case r.Grace < 0:
		return errors.New("--grace must not be negative")
	case r.MasterPort != 0 && r.Node < 0:
		return errors.New("--master-port goes with --node (the whole plan's ports are chosen free)")
	case r.Component == "" && len(r.Tail) > 0:
		return errors.New("a program after -- needs --component NAME")
	case r.Component != "" && len(r.Tail) == 0:
		return fmt.Errorf("--component %s needs its program after --: --component %s -- program args", r.Component, r.Component)
	}
	return nil
}

// Prepare matches the programs to the plan's components and builds the
// job, of the request's node only when it names one. skipped names the
// components given no program (also when the job cannot be built, so
// that the note comes before the error). Every error is a usage error.
func (r *Request) Prepare(plan *model.Plan, env PlanEnv, nodes []model.Node, specs []RunSpec, file string) (job *Job, skipped []string, err error) {
	runs, skipped, err := MatchRuns(plan, specs, file)
	if err != nil {
		return nil, nil, err
	}
	if job, err = NewJob(plan, env, nodes, runs); err != nil {
		return nil, skipped, err
	}
	if r.Node >= 0 {
		if n := len(nodes); r.Node >= n {
			return nil, skipped, fmt.Errorf("--node %d: the plan has nodes 0-%d", r.Node, n-1)
		}
		if err := job.OnNode(r.Node, r.MasterPort); err != nil {
			return nil, skipped, fmt.Errorf("--node %d: %v", r.Node, err)
		}
	}
	return job, skipped, nil
}

// NewSlurmLauncher is the Slurm backend of a launch: jobID "" is
// $SLURM_JOB_ID, shim "" this binary (which every node must see).
func NewSlurmLauncher(jobID, shim, gres string) (*Slurm, error) {
	if jobID == "" {
		jobID = os.Getenv("SLURM_JOB_ID")
	}
	if shim == "" {
		var err error
		if shim, err = os.Executable(); err != nil {
			return nil, Errorf(ExitStart, "cannot find the rlsolve binary for the shim: %v", err)
		}
	}
	return &Slurm{JobID: jobID, ShimArgv: []string{shim, "shim"}, Gres: gres}, nil
}

// Start runs job with l until it ends, with this process's signals
// forwarded to the workers. o.LogDir "" is DefaultLogDir; o.Report is
// made absolute, since the guardian writes it should launch be killed.
// Its error is an *Error with launch's exit status.
func Start(l Launcher, job *Job, o Options) (*Report, error) {
	if o.LogDir == "" {
		dir, err := DefaultLogDir(os.Getenv)
		if err != nil {
			return nil, Errorf(ExitUsage, "%v", err)
		}
		o.LogDir = dir
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE)
	defer signal.Stop(sigs)
	o.Signals = sigs
	if o.Report != "" {
		o.Report, _ = filepath.Abs(o.Report) // its path was checked before the launch
	}
	rep, err := l.Launch(context.Background(), job, o)
	if err != nil {
		code := ExitInternal
		var le *Error
		if errors.As(err, &le) {
			code = le.Code
		}
		return nil, &Error{Code: code, Err: err}
	}
	return rep, nil
}
