package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
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
	in      inputFlags
	backend string // also req.Backend; the Ray backend's file reads it here
	req     rlexec.Request
	logDir  string
	report  string
	jobID   string
	gres    string
	shim    string
	// reportBad: --report names a file that cannot be written (said
	// before anything started; not tried again at the end).
	reportBad bool
	ray       rayFlags
}

func newLaunch() *cobra.Command {
	var f launchFlags
	c := &cobra.Command{
		Use:     "launch FILE --run COMPONENT='program args'... | launch FILE --component NAME -- program args...",
		Short:   "Start the plan's workers: local processes, srun steps in a Slurm allocation, or Ray actors",
		Long:    help("launch"),
		Example: help("launch.example"),
		Args:    cobra.ArbitraryArgs,
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
	fl.StringArrayVar(&f.req.Runs, "run", nil, "`COMPONENT=CMD`: run CMD for every worker of COMPONENT (a,b=CMD for several, *=CMD for all); repeatable")
	fl.StringVar(&f.req.Component, "component", "", "with -- program args: the component they run")
	fl.StringVar(&f.logDir, "log-dir", "", "parent of the run's log directory (default $XDG_STATE_HOME/rlsolve/logs, else ~/.local/state/rlsolve/logs)")
	fl.StringVar(&f.report, "report", "", "write how the launch and every worker ended to `FILE` as JSON (format_version 1)")
	fl.DurationVar(&f.req.Grace, "grace", 10*time.Second, "time between SIGTERM and SIGKILL when workers are stopped")
	fl.BoolVar(&f.req.Oversubscribe, "oversubscribe", false, "local: run every worker of a multi-node plan on this machine")
	fl.IntVar(&f.req.Node, "node", -1, "local: run only node `N`'s share of the plan (a per-node agent; needs --master-port)")
	fl.IntVar(&f.req.MasterPort, "master-port", 0, "with --node: MASTER_PORT of the first launched component (the next get +1, ...), the same on every node")
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
	if notes := diag.TextWithoutNotes(os.Stderr, o.Diagnostics, f.in.sources(), useColor()); notes > 0 {
		fmt.Fprintf(os.Stderr, "launch: note: %d note(s) from check not shown; `rlsolve check` shows them\n", notes)
	}
	note := func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, "launch: note: %s\n", diag.Printable(fmt.Sprintf(format, a...)))
	}
	job, skipped, err := f.req.Prepare(o.Result.Plan, o.Result.Cluster, o.Result.Cluster.Nodes, specs, file)
	if len(skipped) > 0 {
		note("not launching %s (no program given)", strings.Join(skipped, ", "))
	}
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	launcher, err := f.launcher(o, job)
	if err != nil {
		return nil, err
	}
	return f.start(launcher, job, note)
}

// start runs the job with the launcher.
func (f *launchFlags) start(launcher rlexec.Launcher, job *rlexec.Job, note func(string, ...any)) (*rlexec.Report, error) {
	rep, err := rlexec.Start(launcher, job, rlexec.Options{
		Stdout: os.Stdout, Stderr: os.Stderr, LogDir: f.logDir, Grace: f.req.Grace, Notef: note, Report: f.report})
	if err != nil {
		return nil, &exitError{code: launchCodeOf(err), msg: "launch: " + err.Error()}
	}
	return rep, nil
}

// programs reads the flags that say what to run: the specs and the config.
func (f *launchFlags) programs(cmd *cobra.Command, args []string) ([]rlexec.RunSpec, string, error) {
	if err := f.in.prepare(); err != nil {
		return nil, "", err
	}
	files := args
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		files, f.req.Tail = args[:dash], args[dash:]
	}
	files, err := f.in.files(files)
	if err != nil {
		return nil, "", err
	}
	if len(files) != 1 && !(f.in.slime != "" && len(files) == 0) {
		return nil, "", usageErrorf("launch takes one config FILE, got %d (put the program after --component NAME --)", len(files))
	}
	f.req.Backend = f.backend
	specs, err := f.req.Specs()
	if err != nil {
		return nil, "", usageErrorf("%v", err)
	}
	file := ""
	if len(files) > 0 {
		file = files[0]
	}
	return specs, file, nil
}

// launcher is the backend the flags choose.
func (f *launchFlags) launcher(o *pipeline.Outcome, job *rlexec.Job) (rlexec.Launcher, error) {
	var at model.Span
	if o.Config != nil {
		at = o.Config.NumNodesSpan
	}
	switch f.backend {
	case "ray":
		return f.rayLauncher(o.File, o.Result.Cluster.Nodes, at)
	case "local":
		return rlexec.Local{Oversubscribe: f.req.Oversubscribe}, nil
	}
	if ds := rlexec.NeedHostNames(job, o.Result.Cluster.Nodes, at); len(ds) > 0 {
		return nil, report(ds, diag.DiskSources(), o.File, nil, exitInvalid)
	}
	l, err := rlexec.NewSlurmLauncher(f.jobID, f.shim, f.gres)
	if err != nil {
		return nil, &exitError{code: launchCodeOf(err), msg: "launch: " + err.Error()}
	}
	return l, nil
}
