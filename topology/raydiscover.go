package topology

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rlsolve/rlsolve/internal/raycli"
	"github.com/rlsolve/rlsolve/model"
)

// RayLiveOptions say how DiscoverRay reads a live cluster.
type RayLiveOptions struct {
	Client *raycli.Client
	// Probe runs python/probe.py on every node (RLINF_NODE_RANK, NVML,
	// Python); without it ranks come from node labels only.
	Probe bool
	// Python runs the probe ("": the head node's Ray's own).
	Python string
	// WaitNodes > 0 waits, polling once a second as RLinf does, until that
	// many nodes are alive, for at most Timeout (0: no limit but ctx's).
	WaitNodes int
	Timeout   time.Duration
	// Progress is told the alive nodes' IPs each time they change while
	// waiting.
	Progress func(alive []string, want int)
	// RLinfOrder numbers unranked nodes as RLinf does, NodeSet reads the
	// set of nodes only (see RayOptions).
	RLinfOrder, NodeSet bool
	// CacheDir keeps the probe's facts per node id (ProbeCacheDir; "":
	// always probe). With every alive node's facts there, no probe runs.
	CacheDir string
	// ProbeRecordAge is how old a finished probe's record must be for the
	// sweep to delete it (0: DefaultProbeRecordAge).
	ProbeRecordAge time.Duration
}

// RayLive is a live cluster as DiscoverRay read it.
type RayLive struct {
	Inventory   *model.Inventory
	Diagnostics model.Diagnostics
	// Facts are the probe's, by node id (nil without a probe).
	Facts map[string]RayFacts
	// Version is the cluster's Ray.
	Version string
	// Swept are the finished probe jobs' records an earlier rlsolve left,
	// deleted (SweepProbeRecords); SweepErr why the sweep stopped.
	Swept    []string
	SweepErr error
	// Cached is true when the facts came from CacheDir, not a probe job.
	Cached bool
}

// aliveIDs are the node ids of the alive nodes.
func aliveIDs(nodes []raycli.Node) []string {
	var out []string
	for _, n := range nodes {
		if strings.EqualFold(n.State, "ALIVE") {
			out = append(out, n.NodeID)
		}
	}
	return out
}

// DiscoverRay reads a live cluster's inventory: the Ray version (refusing
// one older than raycli.MinVersion), the nodes from the State API (after
// waiting for WaitNodes), the probe's facts, ordered as the dump import
// orders a node list. Every call first sweeps the probe job records an
// earlier, killed rlsolve left (SweepProbeRecords), with or without a probe
// of its own: a job record is all it deletes. A cluster that cannot be read is an error
// (*raycli.Error, *RayWaitError, *RayError); rank problems are error
// diagnostics, as ImportRay's.
func DiscoverRay(ctx context.Context, opt RayLiveOptions) (*RayLive, error) {
	c := opt.Client
	v, err := c.CheckVersion(ctx)
	if err != nil {
		return nil, err
	}
	nodes, rows, err := waitNodes(ctx, opt)
	if err != nil {
		return nil, err
	}
	live := &RayLive{Version: v.Ray}
	// Before a probe of its own: what an rlsolve killed mid-probe left.
	live.Swept, live.SweepErr = SweepProbeRecords(ctx, c, time.Now(), opt.ProbeRecordAge)
	if opt.Probe {
		if live.Facts, live.Cached = cachedFacts(opt.CacheDir, aliveIDs(nodes)); !live.Cached {
			if live.Facts, err = RunProbe(ctx, c, opt.Python); err != nil {
				return nil, fmt.Errorf("the inventory probe on %s: %w (--no-probe skips it)", c.Address(), err)
			}
			storeFacts(opt.CacheDir, live.Facts)
		}
	}
	live.Inventory, live.Diagnostics, err = ImportRayLive(c.Address(), rows, live.Facts, RayOptions{RLinfOrder: opt.RLinfOrder, NodeSet: opt.NodeSet})
	return live, err
}

// RayWaitError is a wait for nodes that timed out.
type RayWaitError struct {
	Address string
	Want    int
	// Alive are the IPs of the nodes that joined; Dead those Ray knows
	// but reports dead.
	Alive, Dead []string
	Waited      time.Duration
}

func (e *RayWaitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d Ray nodes alive at %s after %v", len(e.Alive), e.Want, e.Address, e.Waited.Round(time.Second))
	if len(e.Alive) > 0 {
		fmt.Fprintf(&b, " (alive: %s)", strings.Join(e.Alive, ", "))
	}
	fmt.Fprintf(&b, "; %d missing", e.Want-len(e.Alive))
	if len(e.Dead) > 0 {
		fmt.Fprintf(&b, " (Ray lists as dead: %s)", strings.Join(e.Dead, ", "))
	}
	b.WriteString(": on each missing node run `ray start --address HEAD:6379` and check that it reaches the head (its raylet.out under /tmp/ray/session_latest/logs says why it did not join)")
	return b.String()
}

// waitPoll is how often waitNodes asks (RLinf: once a second).
var waitPoll = time.Second

// waitNodes lists the nodes, and lists again until opt.WaitNodes are
// alive or opt.Timeout passes.
func waitNodes(ctx context.Context, opt RayLiveOptions) ([]raycli.Node, []byte, error) {
	start := time.Now()
	if opt.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opt.Timeout)
		defer cancel()
	}
	var said string
	var alive, dead []string
	for {
		nodes, rows, err := opt.Client.Nodes(ctx)
		if err != nil && ctx.Err() == nil {
			return nil, nil, err
		}
		if err == nil {
			alive, dead = nodeIPs(nodes)
			if len(alive) >= opt.WaitNodes {
				return nodes, rows, nil
			}
		}
		if s := strings.Join(alive, ","); s != said && opt.Progress != nil {
			said = s
			opt.Progress(alive, opt.WaitNodes)
		}
		select {
		case <-ctx.Done():
			if opt.Timeout > 0 && ctx.Err() == context.DeadlineExceeded {
				return nil, nil, &RayWaitError{Address: opt.Client.Address(), Want: opt.WaitNodes, Alive: alive, Dead: dead, Waited: time.Since(start)}
			}
			return nil, nil, ctx.Err()
		case <-time.After(waitPoll):
		}
	}
}

// nodeIPs are the alive and the dead nodes' addresses (a dead node that
// came back under the same address counts as alive only).
func nodeIPs(nodes []raycli.Node) (alive, dead []string) {
	up := map[string]bool{}
	for _, n := range nodes {
		if strings.EqualFold(n.State, "ALIVE") {
			up[n.NodeIP] = true
			alive = append(alive, n.NodeIP)
		}
	}
	for _, n := range nodes {
		if !strings.EqualFold(n.State, "ALIVE") && !up[n.NodeIP] {
			dead = append(dead, n.NodeIP)
		}
	}
	return alive, dead
}
