package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/rlsolve/rlsolve/diag"
	rlexec "github.com/rlsolve/rlsolve/exec"
	"github.com/rlsolve/rlsolve/internal/hostlist"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/spf13/cobra"
)

func init() { register(newLaunch) }

type launchFlags struct {
	in        inputFlags
	backend   string
	runs      []string
	component string
	logDir    string
	grace     time.Duration
	jobID     string
	gres      string
	shim      string
}

func newLaunch() *cobra.Command {
	var f launchFlags
	c := &cobra.Command{
		Use:   "launch FILE --run COMPONENT='program args'... | launch FILE --component NAME -- program args...",
		Short: "Start the plan's workers: local processes, or srun steps in a Slurm allocation",
		Long: `launch checks the config like check (and refuses what check rejects), then
starts one process per worker of each component given a program, with the
environment RLinf would give it (what 'plan --output env' prints) plus
MASTER_PORT, a free port on rank 0's node chosen once per component.

Programs and arguments are split on spaces with shell-like quoting ('...',
"...", \) but never through a shell: no $VAR, ~, glob, pipe or redirection
is interpreted. A program named python or python3 is replaced by the node
group's python_interpreter_path when it sets one.

--backend local (default) runs every worker on this machine, each in its own
process group. --backend slurm runs inside an allocation (salloc, sbatch, or
--jobid): one srun step per component, each task placed on the node the plan
says (the inventory's host names must be the Slurm node names), and the
rlsolve binary and --log-dir must be visible on every node.

Output lines are prefixed with component/rank and also written to
LOG_DIR/component-rank.log. SIGINT and SIGTERM are forwarded to the workers.
When a worker fails, the others get SIGTERM, then SIGKILL after --grace.
Exit status: 0 when every worker exits 0; 1 invalid config; 2 usage or I/O;
3 internal error; otherwise the status of the worker that failed first
(128+N for signal N), or 128+N when signal N interrupted the launch.`,
		Example: `  rlsolve launch train.yaml --run actor='python train_actor.py --lr 1e-4' --run rollout='python rollout.py'
  rlsolve launch train.yaml --component actor -- torchrun_wrapper.sh --config cfg.yaml
  rlsolve launch train.yaml --run '*=python worker.py' --log-dir logs/run1
  salloc -N4 --gres=gpu:8 rlsolve launch train.yaml --inventory cluster.yaml --backend slurm --run actor='python train.py'`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLaunch(cmd, &f, args)
		},
	}
	f.in.register(c)
	fl := c.Flags()
	fl.StringVar(&f.backend, "backend", "local", "where to run the workers: local or slurm")
	fl.StringArrayVar(&f.runs, "run", nil, "`COMPONENT=CMD`: run CMD for every worker of COMPONENT (a,b=CMD for several, *=CMD for all); repeatable")
	fl.StringVar(&f.component, "component", "", "with -- program args: the component they run")
	fl.StringVar(&f.logDir, "log-dir", "", "per-worker log files go here (default rlsolve-logs/LAUNCH_ID)")
	fl.DurationVar(&f.grace, "grace", 10*time.Second, "time between SIGTERM and SIGKILL when workers are stopped")
	fl.StringVar(&f.jobID, "jobid", "", "slurm: the allocation's job id (default $SLURM_JOB_ID)")
	fl.StringVar(&f.gres, "gres", "auto", "slurm: what each step asks for: auto (the allocation's GPUs per node), none, or a --gres value")
	fl.StringVar(&f.shim, "shim", "", "slurm: path of rlsolve on the nodes (default: this binary)")
	return c
}

func runLaunch(cmd *cobra.Command, f *launchFlags, args []string) error {
	if _, err := f.in.strategyMode(); err != nil {
		return err
	}
	files, tail := args, []string(nil)
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		files, tail = args[:dash], args[dash:]
	}
	if len(files) != 1 {
		return usageErrorf("launch takes one config FILE, got %d (put the program after --component NAME --)", len(files))
	}
	switch f.backend {
	case "local", "slurm":
	default:
		return usageErrorf("--backend must be local or slurm, not %q", f.backend)
	}
	if f.grace < 0 {
		return usageErrorf("--grace must not be negative")
	}
	if (f.component == "") != (len(tail) == 0) {
		if f.component == "" {
			return usageErrorf("a program after -- needs --component NAME")
		}
		return usageErrorf("--component %s needs its program after --: --component %s -- program args", f.component, f.component)
	}
	// COMPONENT=CMD, split without a shell.
	type runSpec struct {
		names []string
		argv  []string
	}
	var specs []runSpec
	for _, r := range f.runs {
		keys, command, ok := strings.Cut(r, "=")
		if !ok || strings.TrimSpace(keys) == "" {
			return usageErrorf("--run %q: want COMPONENT='program args'", r)
		}
		argv, err := rlexec.SplitArgs(command)
		if err != nil {
			return usageErrorf("--run %s: %v", keys, err)
		}
		if len(argv) == 0 {
			return usageErrorf("--run %s: no program", keys)
		}
		var names []string
		for _, k := range strings.Split(keys, ",") {
			names = append(names, strings.TrimSpace(k))
		}
		specs = append(specs, runSpec{names, argv})
	}
	if f.component != "" {
		specs = append(specs, runSpec{[]string{f.component}, tail})
	}
	if len(specs) == 0 {
		return usageErrorf("nothing to launch: give --run COMPONENT='program args' or --component NAME -- program args")
	}

	// The same check as `rlsolve check`; launch refuses what it rejects.
	inv, bad := f.in.loadInventory()
	if bad != nil {
		diag.Text(os.Stderr, bad.Diagnostics, diag.DiskSources(), useColor())
		diag.Summary(os.Stderr, bad.Diagnostics, bad.File)
		return exitFor([]*pipeline.Outcome{bad}, f.in.strict)
	}
	o := f.in.analyze(files[0], inv)
	diag.Text(os.Stderr, o.Diagnostics, diag.DiskSources(), useColor())
	if o.Failed(f.in.strict) || o.Result == nil || o.Result.Plan == nil {
		diag.Summary(os.Stderr, o.Diagnostics, o.File)
		strictNote(o, f.in.strict)
		if err := exitFor([]*pipeline.Outcome{o}, f.in.strict); err != nil {
			return err
		}
		return &exitError{code: exitInvalid, msg: "launch: no plan to launch"}
	}
	plan := o.Result.Plan
	all := rlexec.ComponentNames(plan)
	// Named components first; '*' gives the rest a program.
	runs := map[string][]string{}
	var star []string
	for _, s := range specs {
		for _, n := range s.names {
			switch {
			case n == "*":
				if star != nil {
					return usageErrorf("'*' is given two programs")
				}
				star = s.argv
			case plan.Component(n) == nil:
				return usageErrorf("no component %q in %s (components: %s)", n, files[0], strings.Join(all, ", "))
			case runs[n] != nil:
				return usageErrorf("component %s is given two programs", n)
			default:
				runs[n] = s.argv
			}
		}
	}
	for _, n := range all {
		if runs[n] == nil && star != nil {
			runs[n] = star
		}
	}
	var skipped []string
	for _, n := range all {
		if _, ok := runs[n]; !ok {
			skipped = append(skipped, n)
		}
	}
	note := func(format string, a ...any) { fmt.Fprintf(os.Stderr, "launch: note: "+format+"\n", a...) }
	if len(skipped) > 0 {
		note("not launching %s (no program given)", strings.Join(skipped, ", "))
	}
	job, err := rlexec.NewJob(plan, o.Result.Cluster, o.Result.Cluster.Nodes, runs)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if f.backend == "slurm" {
		if err := needHostNames(o, job); err != nil {
			return err
		}
	}
	logDir := f.logDir
	if logDir == "" {
		logDir = filepath.Join("rlsolve-logs", job.ID)
	}

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	var launcher rlexec.Launcher = rlexec.Local{}
	if f.backend == "slurm" {
		jobID := f.jobID
		if jobID == "" {
			jobID = os.Getenv("SLURM_JOB_ID")
		}
		shim := f.shim
		if shim == "" {
			if shim, err = os.Executable(); err != nil {
				return &exitError{code: exitInternal, msg: "launch: cannot find the rlsolve binary for the shim: " + err.Error()}
			}
		}
		launcher = &rlexec.Slurm{JobID: jobID, ShimArgv: []string{shim, "shim"}, Gres: f.gres,
			ExpandHostlist: func(s string) ([]string, error) { return hostlist.Expand(s, 1<<16) }}
	}
	rep, err := launcher.Launch(context.Background(), job, rlexec.Options{
		Stdout: os.Stdout, Stderr: os.Stderr, LogDir: logDir, Grace: f.grace, Signals: sigs, Notef: note})
	if err != nil {
		return &exitError{code: exitUsage, msg: "launch: " + err.Error()}
	}
	fmt.Fprint(os.Stderr, rep.Summary())
	if code := rep.ExitCode(); code != 0 {
		return &exitError{code: code}
	}
	return nil
}

// needHostNames reports, as RLS-E0901, every node that runs a launched
// worker but has no host name for Slurm.
func needHostNames(o *pipeline.Outcome, job *rlexec.Job) error {
	missing := map[int][]string{}
	for _, c := range job.Components {
		for _, w := range c.Workers {
			if w.Host == "" {
				missing[w.Node] = append(missing[w.Node], w.Name())
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	nodes := make([]int, 0, len(missing))
	for n := range missing {
		nodes = append(nodes, n)
	}
	sort.Ints(nodes)
	var ds model.Diagnostics
	for _, n := range nodes {
		at := o.Result.Cluster.Nodes[n].Span
		if at.File == "" && o.Config != nil {
			at = o.Config.NumNodesSpan
		}
		ws := missing[n]
		d := model.Diagnostic{Code: model.CodeLaunchNoHost, Severity: model.SeverityError, Primary: at,
			Summary:      fmt.Sprintf("node %d has no host name, but the Slurm backend must place %d worker(s) there (%s)", n, len(ws), ws[0]),
			PrimaryLabel: fmt.Sprintf("node %d", n),
			Help:         []model.Fix{{Message: "give the node its Slurm node name in the inventory (hostname: NAME, or hostnames: n[1-4] for a range)"}}}
		ds = append(ds, d)
	}
	diag.Text(os.Stderr, ds, diag.DiskSources(), useColor())
	diag.Summary(os.Stderr, ds, o.File)
	return &exitError{code: exitInvalid}
}
