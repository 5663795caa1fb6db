package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/rlsolve/rlsolve/diag"
	rlexec "github.com/rlsolve/rlsolve/exec"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/spf13/cobra"
)

func init() { register(newLaunch) }

type launchFlags struct {
	in            inputFlags
	backend       string
	runs          []string
	component     string
	logDir        string
	report        string
	grace         time.Duration
	oversubscribe bool
	node          int
	masterPort    int
	jobID         string
	gres          string
	shim          string
	// reportBad: --report names a file that cannot be written (said
	// before anything started; not tried again at the end).
	reportBad bool
	ray       rayFlags
}

func newLaunch() *cobra.Command {
	var f launchFlags
	c := &cobra.Command{
		Use:   "launch FILE --run COMPONENT='program args'... | launch FILE --component NAME -- program args...",
		Short: "Start the plan's workers: local processes, srun steps in a Slurm allocation, or Ray actors",
		Long: `launch checks the config like check (and refuses what check rejects), then
starts one process per worker of each component given a program, with the
environment RLinf would give it (what 'plan --output env' prints) plus
MASTER_PORT, a free port on rank 0's node chosen once per component.

Programs and arguments are split on spaces with shell-like quoting ('...',
"...", \) but never through a shell: no $VAR, ~, glob, pipe or redirection
is interpreted. A program named python or python3 is replaced by the node
group's python_interpreter_path when it sets one.

--backend local (default) runs the workers on this machine, each in its own
process group: a plan spanning several nodes is refused unless
--oversubscribe (all here) or --node N (node N's share, as a per-node agent
would; every node's agent gets the same --master-port). --backend slurm runs
inside an allocation (salloc, sbatch, or --jobid): one srun step per
component, each task placed on the node the plan says (the inventory's host
names must be the Slurm node names), and the rlsolve binary and --log-dir
must be visible on every node. --backend ray submits one Ray job to the
dashboard at --ray-address: its driver checks the live nodes against the
plan, pins one actor per worker to its node (as RLinf does) and runs the
program as the actor's child; Ctrl-C stops the job, a second one kills at
once, and --stop LAUNCH_ID ends a launch whose rlsolve died. With --slime
FLAGS (a slime layout, as check and plan take it) the components are actor
and rollout, placed on slime's sorted placement-group bundles (docs/ray.md).

Output lines are prefixed with component/rank and written to the run's own
log directory, LOG_DIR/LAUNCH_ID/component-rank.log (LOG_DIR/latest points
at the newest run; LOG_DIR defaults to $XDG_STATE_HOME/rlsolve/logs, else
~/.local/state/rlsolve/logs). SIGINT is forwarded to the workers, SIGTERM,
SIGHUP and SIGQUIT as SIGTERM; a closed stdout only stops the echo. When a
worker fails, the others get SIGTERM, then SIGKILL after --grace. Nothing
the workers start outlives the run, even when launch itself is killed.

Exit status: 0 when every worker exits 0; otherwise the status of the worker
that failed first (128+N for signal N), or 128+N when signal N interrupted
the launch. Launch's own failures have their own range: 121 invalid config,
122 usage error, 123 could not start, 124 lost control of the run, 125
internal error; a worker whose own status is in 120-125 makes launch exit
120. --report FILE writes how every worker ended as JSON (a FILE that cannot
be written is refused before anything starts; should launch be killed, the
guardian that outlives it writes the report, outcome lost).

A console that stops reading (| less, Ctrl-S) never holds the workers or
their logs up: after two seconds without progress, lines are left out of the
terminal (only), and the summary says how many.`,
		Example: `  rlsolve launch train.yaml --run actor='python train_actor.py --lr 1e-4' --run rollout='python rollout.py'
  rlsolve launch train.yaml --component actor -- torchrun_wrapper.sh --config cfg.yaml
  rlsolve launch train.yaml --run '*=python worker.py' --log-dir logs --report launch.json
  rlsolve launch train.yaml --run '*=python worker.py' --node 3 --master-port 29500
  salloc -N4 --gres=gpu:8 rlsolve launch train.yaml --inventory cluster.yaml --backend slurm --run actor='python train.py'
  rlsolve launch train.yaml --inventory ray://head:8265 --backend ray --ray-address http://head:8265 --run '*=python3 /shared/worker.py'
  rlsolve launch --backend ray --ray-address http://head:8265 --stop 20261128-221516-a446686f`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLaunch(cmd, &f, args)
		},
	}
	c.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{code: rlexec.ExitUsage, msg: suggestFlag(c, err).Error() + " (see rlsolve launch --help)"}
	})
	f.in.register(c)
	fl := c.Flags()
	fl.StringVar(&f.backend, "backend", "local", "where to run the workers: local, slurm or ray")
	fl.StringArrayVar(&f.runs, "run", nil, "`COMPONENT=CMD`: run CMD for every worker of COMPONENT (a,b=CMD for several, *=CMD for all); repeatable")
	fl.StringVar(&f.component, "component", "", "with -- program args: the component they run")
	fl.StringVar(&f.logDir, "log-dir", "", "parent of the run's log directory (default $XDG_STATE_HOME/rlsolve/logs, else ~/.local/state/rlsolve/logs)")
	fl.StringVar(&f.report, "report", "", "write how the launch and every worker ended to `FILE` as JSON (format_version 1)")
	fl.DurationVar(&f.grace, "grace", 10*time.Second, "time between SIGTERM and SIGKILL when workers are stopped")
	fl.BoolVar(&f.oversubscribe, "oversubscribe", false, "local: run every worker of a multi-node plan on this machine")
	fl.IntVar(&f.node, "node", -1, "local: run only node `N`'s share of the plan (a per-node agent; needs --master-port)")
	fl.IntVar(&f.masterPort, "master-port", 0, "with --node: MASTER_PORT of the first launched component (the next get +1, ...), the same on every node")
	fl.StringVar(&f.jobID, "jobid", "", "slurm: the allocation's job id (default $SLURM_JOB_ID)")
	fl.StringVar(&f.gres, "gres", "auto", "slurm: what each step asks for: auto (the allocation's GPUs per node), none, or a --gres value")
	fl.StringVar(&f.shim, "shim", "", "slurm: path of rlsolve on the nodes (default: this binary)")
	f.ray.register(c)
	return c
}

// runLaunch launches, then reports: the summary, the JSON report, and an
// exit status that tells launch's own failures from a worker's.
func runLaunch(cmd *cobra.Command, f *launchFlags, args []string) error {
	// A closed stdout or stderr (| head) must not kill launch, now or when
	// it prints its summary: SIGPIPE stays caught (not ignored, which the
	// workers would inherit) for the rest of the process.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	rep, err := launch(cmd, f, args)
	if err != nil {
		var ee *exitError
		if !errors.As(err, &ee) {
			ee = &exitError{code: rlexec.ExitInternal, msg: err.Error()}
		}
		ee.code = launchCode(ee.code)
		msg := ee.msg
		if msg == "" {
			msg = "launch: nothing started"
		}
		if rep == nil {
			rep = &rlexec.Report{Backend: f.backend, Stopped: -1}
		}
		rep.Err = rlexec.Errorf(ee.code, "%s", msg)
		err = ee
	}
	if f.report != "" && !f.reportBad {
		if werr := rlexec.WriteReport(f.report, rep); werr != nil {
			fmt.Fprintf(os.Stderr, "rlsolve: launch: %v\n", werr)
		}
	}
	if err != nil || rep == nil { // no report: --stop
		return err
	}
	fmt.Fprint(os.Stderr, rep.Summary())
	if code := rep.ExitCode(); code != 0 {
		return &exitError{code: code}
	}
	return nil
}

// launchCode moves rlsolve's shared exit statuses (1 invalid, 2 usage, 3
// internal) into launch's own range; launch's own pass as they are.
func launchCode(code int) int {
	switch code {
	case exitInvalid:
		return rlexec.ExitInvalid
	case exitUsage:
		return rlexec.ExitUsage
	case exitInternal:
		return rlexec.ExitInternal
	}
	return code
}

// launch checks the config, builds the job and runs it. An error is
// launch's own (a launch that started returns its report).
func launch(cmd *cobra.Command, f *launchFlags, args []string) (*rlexec.Report, error) {
	if f.ray.stop != "" {
		return nil, f.rayStop(args)
	}
	specs, file, err := f.programs(cmd, args)
	if err != nil {
		return nil, err
	}
	if f.report != "" {
		if err := rlexec.CheckReportPath(f.report); err != nil {
			f.reportBad = true
			return nil, usageErrorf("launch: --report: %v; nothing started", err)
		}
	}
	if f.in.slime != "" {
		return f.slimeLaunch(file, specs)
	}
	// The same check as `rlsolve check`; launch refuses what it rejects.
	inv, bad := f.in.loadInventory()
	if bad != nil {
		return nil, reportOutcome(bad, diag.DiskSources())
	}
	o := f.in.analyze(file, inv)
	if o.Failed() || o.Result == nil || o.Result.Plan == nil {
		if err := reportOutcome(o, f.in.sources()); err != nil {
			return nil, err
		}
		return nil, &exitError{code: exitInvalid, msg: "launch: no plan to launch"}
	}
	launchDiagnostics(o.Diagnostics, f.in.sources())
	runs, skipped, err := rlexec.MatchRuns(o.Result.Plan, specs, file)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	note := func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, "launch: note: %s\n", diag.Printable(fmt.Sprintf(format, a...)))
	}
	if len(skipped) > 0 {
		note("not launching %s (no program given)", strings.Join(skipped, ", "))
	}
	job, err := rlexec.NewJob(o.Result.Plan, o.Result.Cluster, o.Result.Cluster.Nodes, runs)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	if f.node >= 0 {
		if n := len(o.Result.Cluster.Nodes); f.node >= n {
			return nil, usageErrorf("--node %d: the plan has nodes 0-%d", f.node, n-1)
		}
		if err := job.OnNode(f.node, f.masterPort); err != nil {
			return nil, usageErrorf("--node %d: %v", f.node, err)
		}
	}
	launcher, err := f.launcher(o, job)
	if err != nil {
		return nil, err
	}
	return f.start(launcher, job, note)
}

// start runs the job with the launcher: its log directory, its signals.
func (f *launchFlags) start(launcher rlexec.Launcher, job *rlexec.Job, note func(string, ...any)) (*rlexec.Report, error) {
	var err error
	logDir := f.logDir
	if logDir == "" {
		if logDir, err = rlexec.DefaultLogDir(os.Getenv); err != nil {
			return nil, usageErrorf("launch: %v", err)
		}
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE)
	defer signal.Stop(sigs)
	report := f.report
	if report != "" {
		report, _ = filepath.Abs(report) // checked above; the guardian writes it should launch be killed
	}
	rep, err := launcher.Launch(context.Background(), job, rlexec.Options{
		Stdout: os.Stdout, Stderr: os.Stderr, LogDir: logDir, Grace: f.grace, Signals: sigs, Notef: note, Report: report})
	if err != nil {
		code := rlexec.ExitInternal
		var le *rlexec.Error
		if errors.As(err, &le) {
			code = le.Code
		}
		return nil, &exitError{code: code, msg: "launch: " + err.Error()}
	}
	return rep, nil
}

// programs reads the flags that say what to run: the specs and the config.
func (f *launchFlags) programs(cmd *cobra.Command, args []string) ([]rlexec.RunSpec, string, error) {
	if err := f.in.prepare(); err != nil {
		return nil, "", err
	}
	files, tail := args, []string(nil)
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		files, tail = args[:dash], args[dash:]
	}
	files, err := f.in.files(files)
	if err != nil {
		return nil, "", err
	}
	if len(files) != 1 && !(f.in.slime != "" && len(files) == 0) {
		return nil, "", usageErrorf("launch takes one config FILE, got %d (put the program after --component NAME --)", len(files))
	}
	switch {
	case f.backend != "local" && f.backend != "slurm" && f.backend != "ray":
		return nil, "", usageErrorf("--backend must be local, slurm or ray, not %q", f.backend)
	case f.backend == "ray" && (f.node >= 0 || f.oversubscribe):
		return nil, "", usageErrorf("--node and --oversubscribe are for the local backend; the Ray backend places every worker on its node")
	case f.grace < 0:
		return nil, "", usageErrorf("--grace must not be negative")
	case f.backend == "slurm" && (f.node >= 0 || f.oversubscribe):
		return nil, "", usageErrorf("--node and --oversubscribe are for the local backend; the Slurm backend places every worker on its node")
	case f.masterPort != 0 && f.node < 0:
		return nil, "", usageErrorf("--master-port goes with --node (the whole plan's ports are chosen free)")
	case (f.component == "") != (len(tail) == 0):
		if f.component == "" {
			return nil, "", usageErrorf("a program after -- needs --component NAME")
		}
		return nil, "", usageErrorf("--component %s needs its program after --: --component %s -- program args", f.component, f.component)
	}
	var specs []rlexec.RunSpec
	for _, r := range f.runs {
		s, err := rlexec.ParseRun(r)
		if err != nil {
			return nil, "", usageErrorf("%v", err)
		}
		specs = append(specs, s)
	}
	if f.component != "" {
		specs = append(specs, rlexec.RunSpec{Names: []string{f.component}, Argv: tail})
	}
	if len(specs) == 0 {
		return nil, "", usageErrorf("nothing to launch: give --run COMPONENT='program args' or --component NAME -- program args")
	}
	file := ""
	if len(files) > 0 {
		file = files[0]
	}
	return specs, file, nil
}

// launcher is the backend the flags choose.
func (f *launchFlags) launcher(o *pipeline.Outcome, job *rlexec.Job) (rlexec.Launcher, error) {
	switch f.backend {
	case "ray":
		var at model.Span
		if o.Config != nil {
			at = o.Config.NumNodesSpan
		}
		return f.rayLauncher(o.File, o.Result.Cluster.Nodes, at)
	case "local":
		return rlexec.Local{Oversubscribe: f.oversubscribe}, nil
	}
	var at model.Span
	if o.Config != nil {
		at = o.Config.NumNodesSpan
	}
	if ds := rlexec.NeedHostNames(job, o.Result.Cluster.Nodes, at); len(ds) > 0 {
		return nil, report(ds, diag.DiskSources(), o.File, nil, exitInvalid)
	}
	jobID := f.jobID
	if jobID == "" {
		jobID = os.Getenv("SLURM_JOB_ID")
	}
	shim := f.shim
	if shim == "" {
		var err error
		if shim, err = os.Executable(); err != nil {
			return nil, &exitError{code: rlexec.ExitStart, msg: "launch: cannot find the rlsolve binary for the shim: " + err.Error()}
		}
	}
	return &rlexec.Slurm{JobID: jobID, ShimArgv: []string{shim, "shim"}, Gres: f.gres}, nil
}

// launchDiagnostics shows a valid config's warnings before the launch
// starts, in full (one may be why a run fails), and counts its notes in one
// line: the user who ran check has read them, and the workers' output
// should not start below a screen of them.
func launchDiagnostics(ds model.Diagnostics, src diag.Sources) {
	var shown model.Diagnostics
	notes := 0
	for _, d := range ds {
		if d.Severity == model.SeverityNote {
			notes++
			continue
		}
		shown = append(shown, d)
	}
	diag.Text(os.Stderr, shown, src, useColor())
	if notes > 0 {
		fmt.Fprintf(os.Stderr, "launch: note: %d note(s) from check not shown; `rlsolve check` shows them\n", notes)
	}
}
