package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/internal/raycli"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/topology"
	"github.com/spf13/cobra"
)

// isRayURL reports whether an --inventory or --ray argument names a live
// cluster's dashboard rather than a file.
func isRayURL(s string) bool {
	// Any scheme is a URL (one Ray does not speak is refused by name, not
	// looked for as a file).
	return strings.Contains(s, "://")
}

// rayLiveFlags are topology's flags for a live cluster.
type rayLiveFlags struct {
	waitNodes int
	timeout   time.Duration
	noProbe   bool
}

func (lf *rayLiveFlags) register(c *cobra.Command) {
	fl := c.Flags()
	fl.IntVar(&lf.waitNodes, "wait-nodes", 0, "with --ray URL: wait until `N` nodes are alive (polling once a second, as RLinf does)")
	fl.DurationVar(&lf.timeout, "timeout", 10*time.Minute, "with --wait-nodes: give up after `D` (exit 2, naming the nodes that joined)")
	fl.BoolVar(&lf.noProbe, "no-probe", false, "with --ray URL: skip the probe job (HTTP only: RLINF_NODE_RANK is then read from node labels only, and NVML is not compared)")
}

// check refuses live-cluster flags that do not fit the command line.
func (lf *rayLiveFlags) check(c *cobra.Command, live bool) error {
	for _, name := range []string{"wait-nodes", "timeout", "no-probe"} {
		if c.Flags().Changed(name) && !live {
			return usageErrorf("--%s goes with --ray URL (a live cluster: http://HEAD:8265 or ray://HEAD:8265)", name)
		}
	}
	switch {
	case lf.waitNodes < 0 || lf.waitNodes > grammar.DefaultLimits.MaxClusterNodes:
		return usageErrorf("--wait-nodes must be a node count from 1 to %d, not %d", grammar.DefaultLimits.MaxClusterNodes, lf.waitNodes)
	case lf.timeout <= 0:
		return usageErrorf("--timeout must be positive, not %v", lf.timeout)
	case c.Flags().Changed("timeout") && lf.waitNodes == 0:
		return usageErrorf("--timeout goes with --wait-nodes N")
	}
	return nil
}

// discoverRay reads the live cluster at address. Ctrl-C ends it cleanly (the
// probe job is stopped and deleted). Progress and notes go to stderr; a
// cluster that cannot be read is one error, exit 2.
func discoverRay(cmd *cobra.Command, address string, lf rayLiveFlags, rlinfOrder bool) (*topology.RayLive, error) {
	c, err := raycli.New(address, raycli.Options{})
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	ctx, stderr := context.Background(), io.Writer(os.Stderr)
	if cmd != nil { // nil: a caller without a command (suggest's inventory)
		ctx, stderr = cmd.Context(), cmd.ErrOrStderr()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	opt := topology.RayLiveOptions{Client: c, Probe: !lf.noProbe, WaitNodes: lf.waitNodes, RLinfOrder: rlinfOrder, CacheDir: topology.ProbeCacheDir()}
	if lf.waitNodes > 0 {
		opt.Timeout = lf.timeout
		opt.Progress = func(alive []string, want int) {
			fmt.Fprintf(stderr, "rlsolve: waiting for %d Ray nodes at %s: %d alive%s\n", want, c.Address(), len(alive), listed(alive))
		}
	}
	live, err := topology.DiscoverRay(ctx, opt)
	if err != nil {
		var re *topology.RayError
		if errors.As(err, &re) {
			return nil, usageErrorf("%s: %s", c.Address(), re.Msg)
		}
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			return nil, usageErrorf("interrupted while reading the Ray cluster at %s", c.Address())
		}
		return nil, usageErrorf("%v", err)
	}
	diag.Text(stderr, live.Diagnostics, diag.MapSources(nil), useColor())
	sweptNote(stderr, "rlsolve", live)
	if lf.noProbe {
		fmt.Fprintln(stderr, "rlsolve: note: --no-probe: RLINF_NODE_RANK is read only from node labels (ray start --labels), and NVML's GPU count is not compared with Ray's")
	}
	if live.Inventory == nil || live.Diagnostics.HasErrors() {
		return nil, usageErrorf("%s: rlsolve cannot number these nodes (the errors above say why)", c.Address())
	}
	return live, nil
}

// sweptNote says which probe job records an earlier rlsolve left (killed
// before it could delete them) this run deleted, or why it could not look.
func sweptNote(w io.Writer, who string, live *topology.RayLive) {
	if len(live.Swept) > 0 {
		fmt.Fprintf(w, "%s: note: deleted %d finished probe job record(s) an earlier rlsolve left on the cluster: %s\n", who, len(live.Swept), strings.Join(live.Swept, ", "))
	}
	if live.SweepErr != nil {
		fmt.Fprintf(w, "%s: note: could not clear probe job records an earlier rlsolve left: %v\n", who, live.SweepErr)
	}
}

func listed(ips []string) string {
	if len(ips) == 0 {
		return ""
	}
	return " (" + strings.Join(ips, ", ") + ")"
}

// topologyRayLive prints a live cluster's inventory, with what the probe
// saw on each node as comments.
func topologyRayLive(cmd *cobra.Command, f *topologyFlags) error {
	live, err := discoverRay(cmd, f.ray, f.live, f.rlinfOrder)
	if err != nil {
		return err
	}
	inv := live.Inventory
	comments := []string{fmt.Sprintf("rlsolve topology --ray %s: %d alive node(s), Ray %s", f.ray, len(inv.Nodes), live.Version)}
	if live.Cached {
		comments[0] += fmt.Sprintf(" (the probe's facts about these raylets kept from an earlier probe in %s)", topology.ProbeCacheDir())
	}
	byIP := map[string]topology.RayFacts{}
	for _, fact := range live.Facts {
		byIP[fact.IP] = fact
	}
	for _, n := range inv.Nodes {
		if fact, ok := byIP[n.IP]; ok {
			comments = append(comments, nodeFactsComment(n, fact))
		}
	}
	return writeInventory(cmd, inv, f.output, true, comments...)
}

// nodeFactsComment says what the probe saw on node n.
func nodeFactsComment(n model.Node, f topology.RayFacts) string {
	rank := "unset"
	if f.Rank != nil {
		rank = *f.Rank
	}
	gpus := "NVML unavailable"
	if f.NVMLAvailable() {
		gpus = fmt.Sprintf("NVML: %d GPU(s)", f.GPUs)
		if f.Model != "" {
			gpus += " " + f.Model
		}
	}
	return fmt.Sprintf("node %d (%s): RLINF_NODE_RANK %s, %s, python %s", n.Rank, n.IP, rank, gpus, f.Python)
}

// loadInventoryArg reads an --inventory argument: a file, or a live Ray
// cluster's URL (probed, not waited for).
func loadInventoryArg(cmd *cobra.Command, arg string) (*model.Inventory, *pipeline.Outcome) {
	if !isRayURL(arg) {
		return pipeline.LoadInventory(arg, grammar.DefaultLimits)
	}
	live, err := discoverRay(cmd, arg, rayLiveFlags{timeout: time.Minute}, false)
	if err != nil {
		return nil, &pipeline.Outcome{File: arg, IOError: true, Diagnostics: model.Diagnostics{{
			Severity: model.SeverityError, Primary: model.Span{File: arg}, Summary: err.Error()}}}
	}
	return live.Inventory, nil
}
