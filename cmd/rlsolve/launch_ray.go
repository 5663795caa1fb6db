package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/rlsolve/rlsolve/diag"
	rlexec "github.com/rlsolve/rlsolve/exec"
	"github.com/rlsolve/rlsolve/internal/raycli"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/topology"
	"github.com/spf13/cobra"
)

// rayFlags are launch's flags for --backend ray.
type rayFlags struct {
	address string
	stop    string
	keepJob bool
	python  string
}

func (r *rayFlags) register(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVar(&r.address, "ray-address", "", "ray: the dashboard's `URL` (http://HEAD:8265; default $RAY_API_SERVER_ADDRESS, else $RAY_ADDRESS when it is an http(s) URL)")
	fl.StringVar(&r.stop, "stop", "", "ray: stop launch `LAUNCH_ID` (one whose rlsolve died: its job goes on), check that nothing of it is left, delete its job")
	fl.BoolVar(&r.keepJob, "keep-job", false, "ray: keep the job's record on the cluster (ray job logs/status still work)")
	fl.StringVar(&r.python, "ray-python", "", "ray: the `PYTHON` that runs the driver on the head node (default: the interpreter the head's Ray runs on)")
}

// resolveAddress is --ray-address, else what `ray job submit` reads.
func (r *rayFlags) resolveAddress(getenv func(string) string) (string, error) {
	if r.address != "" {
		return r.address, nil
	}
	if a := getenv("RAY_API_SERVER_ADDRESS"); a != "" {
		return a, nil
	}
	if a := getenv("RAY_ADDRESS"); strings.HasPrefix(a, "http://") || strings.HasPrefix(a, "https://") {
		return a, nil
	}
	return "", usageErrorf("--backend ray needs the dashboard's address: --ray-address http://HEAD:8265 (or RAY_API_SERVER_ADDRESS; " +
		"RAY_ADDRESS counts only when it is an http(s) URL, since ray.init reads a GCS address there)")
}

// client connects to the dashboard; failures are launch's "could not start".
func (r *rayFlags) client() (*raycli.Client, error) {
	addr, err := r.resolveAddress(os.Getenv)
	if err != nil {
		return nil, err
	}
	c, err := raycli.New(addr, raycli.Options{})
	if err != nil {
		return nil, usageErrorf("--ray-address: %v", err)
	}
	return c, nil
}

// rayLauncher checks the live cluster against the plan's nodes before
// anything starts (RLinf mode): Ray's version, then its live nodes in
// RLinf's order, which the probe job's RLINF_NODE_RANK decides (at locates
// a refusal when the nodes have no place of their own).
func (f *launchFlags) rayLauncher(file string, nodes []model.Node, at model.Span) (*rlexec.Ray, error) {
	return f.rayPreflight(file, nodes, at, true)
}

// rayPreflight is rayLauncher for either mode: slime's needs the node set
// only (slime sorts its bundles itself and never reads RLINF_NODE_RANK), so
// no probe and no rank rules.
func (f *launchFlags) rayPreflight(file string, nodes []model.Node, at model.Span, rlinf bool) (*rlexec.Ray, error) {
	raw, err := f.ray.client()
	if err != nil {
		return nil, err
	}
	// Ctrl-C here ends the probe job, whose record is then deleted.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cluster, err := f.ray.discover(ctx, raw, file, rlinf)
	if err != nil {
		return nil, err
	}
	specs, ds := rlexec.RayPreflight(cluster, nodes, at)
	if len(ds) > 0 {
		return nil, report(ds, diag.DiskSources(), file, nil, exitInvalid)
	}
	return &rlexec.Ray{Client: rlexec.NewRayAPI(raw), Python: f.ray.python, KeepJob: f.ray.keepJob, Nodes: specs}, nil
}

// discover reads the live cluster as `topology --ray` does (the version,
// the nodes, and the sweep of what probes killed earlier left): in RLinf
// mode with the probe and RLinf's order (topology's rules), in slime mode
// the node set only.
func (r *rayFlags) discover(ctx context.Context, c *raycli.Client, file string, rlinf bool) (rlexec.RayCluster, error) {
	opt := topology.RayLiveOptions{Client: c, NodeSet: true}
	if rlinf {
		opt = topology.RayLiveOptions{Client: c, Probe: true, Python: r.python, RLinfOrder: true, CacheDir: topology.ProbeCacheDir()}
	}
	live, err := topology.DiscoverRay(ctx, opt)
	if err != nil {
		return rlexec.RayCluster{}, rayStartError(ctx, c, err)
	}
	sweptNote(os.Stderr, "launch", live)
	if live.Diagnostics.HasErrors() {
		// Located at the cluster's address: no file to quote.
		return rlexec.RayCluster{}, report(live.Diagnostics, diag.MapSources(nil), file, nil, exitInvalid)
	}
	if !rlinf {
		return rlexec.RayNodeSetOf(c.Address(), live), nil
	}
	return rlexec.RayClusterOf(c.Address(), live), nil
}

// rayStartError is a cluster that could not be read: launch could not start.
func rayStartError(ctx context.Context, c *raycli.Client, err error) error {
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return &exitError{code: rlexec.ExitStart, msg: "launch: interrupted while checking the Ray cluster at " + c.Address()}
	}
	return &exitError{code: rlexec.ExitStart, msg: "launch: " + err.Error()}
}

// slimeLaunch launches a slime layout (--slime, and/or a FILE with a
// slime: key) on Ray, in the backend's slime mode: the components are
// "actor" (training ranks) and "rollout" (engine workers).
func (f *launchFlags) slimeLaunch(file string, specs []rlexec.RunSpec) (*rlexec.Report, error) {
	if f.backend != "ray" {
		return nil, usageErrorf("a --slime layout launches on Ray only (slime places its actors on a Ray placement group): add --backend ray")
	}
	src := f.in.sources()
	inv, command, source, bad := f.in.inputs()
	if bad != nil {
		return nil, reportOutcome(bad, src)
	}
	_, so := pipeline.Check(file, command, f.in.options(inv, source))
	if so == nil || so.Failed() || so.Plan == nil || so.Topology == nil {
		if so != nil {
			if err := reportOutcome(so.Outcome, src); err != nil {
				return nil, err
			}
		}
		return nil, &exitError{code: exitInvalid, msg: "launch: no slime layout to launch"}
	}
	for name, text := range so.Sources {
		src.Files[name] = text
	}
	diag.Text(os.Stderr, so.Diagnostics, src, useColor())
	runs, skipped, err := rlexec.MatchRuns(so.Plan.Plan, specs, file)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	note := func(format string, a ...any) { fmt.Fprintf(os.Stderr, "launch: note: "+format+"\n", a...) }
	if len(skipped) > 0 {
		note("not launching %s (no program given)", strings.Join(skipped, ", "))
	}
	job, slots, bundles, err := rlexec.NewSlimeJob(so.Plan, so.Topology.Nodes, runs)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	b, err := f.rayPreflight(file, so.Topology.Nodes, so.Topology.Span, false)
	if err != nil {
		return nil, err
	}
	b.Slots, b.Bundles = slots, bundles
	return f.start(b, job, note)
}

// rayStop is `launch --backend ray --stop LAUNCH_ID`.
func (f *launchFlags) rayStop(args []string) error {
	if f.backend != "ray" {
		return usageErrorf("--stop is for --backend ray (local and Slurm runs end with their launch)")
	}
	if len(args) > 0 {
		return usageErrorf("--stop takes no config FILE (got %s)", args[0])
	}
	if f.report != "" {
		return usageErrorf("--stop writes no --report: the launch's own rlsolve writes it, and it is gone")
	}
	c, err := f.ray.client()
	if err != nil {
		return err
	}
	b := &rlexec.Ray{Client: rlexec.NewRayAPI(c), KeepJob: f.ray.keepJob}
	lines, err := b.Stop(context.Background(), f.ray.stop)
	for _, l := range lines {
		fmt.Fprintf(os.Stderr, "launch: %s\n", l)
	}
	if err != nil {
		return &exitError{code: launchCodeOf(err), msg: "launch: " + err.Error()}
	}
	return nil
}

// launchCodeOf is the exit status of launch's own error.
func launchCodeOf(err error) int {
	var le *rlexec.Error
	if errors.As(err, &le) {
		return le.Code
	}
	return rlexec.ExitInternal
}
