package topology_test

import (
	"context"
	"errors"
	"flag"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/internal/raycli"
	"github.com/rlsolve/rlsolve/internal/raytest"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/topology"
)

var updateLive = flag.Bool("update", false, "rewrite the live Ray inventory goldens under testdata/")

// The live inventory of scripts/ray-test-cluster.sh's cluster, through the
// State API and the probe job, equals a golden: every node's IP, 2 GPUs,
// and the order of each raylet's RLINF_NODE_RANK (which differs from both
// IP orders). The probe sees no NVML there (fake GPUs): a note per node.
func TestRayLiveCluster(t *testing.T) {
	cl := raytest.Require(t)
	c, err := raycli.New(cl.Address, raycli.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// A bound against a hung cluster, not a timing assertion.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	live, err := topology.DiscoverRay(ctx, topology.RayLiveOptions{Client: c, Probe: true, WaitNodes: cl.Nodes, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	out, err := topology.Encode(live.Inventory, topology.EncodeOptions{Ranks: true})
	if err != nil {
		t.Fatal(err)
	}
	// The script's nodes share a /24 (10.77.0 by default, RAY_TEST_NET, or
	// 127.0.0 in loopback mode) and end in .10 .9 .100 .11 in every mode:
	// the golden writes the network as NET.
	u, _ := url.Parse(cl.Address)
	net := u.Hostname()
	if i := strings.LastIndex(net, "."); i > 0 {
		net = net[:i]
	}
	out = []byte(strings.ReplaceAll(string(out), `"`+net+".", `"NET.`))
	golden := filepath.Join("testdata", "ray_live.golden")
	if *updateLive {
		if err := os.WriteFile(golden, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (-update writes it)", err)
	}
	if string(out) != string(want) {
		t.Errorf("the live inventory (mode %s, network %s) differs from %s:\n%s\nwant:\n%s", cl.Mode, net, golden, out, want)
	}
	for _, n := range cl.Layout { // the script's own record of each raylet's rank
		f := factsAt(live.Facts, n.IP)
		if f == nil || f.Rank == nil || *f.Rank != strconv.Itoa(n.Rank) || f.Python == "" {
			t.Errorf("node %s: the probe saw %+v, the script set rank %d", n.IP, f, n.Rank)
		}
	}
	noted := ""
	for _, d := range live.Diagnostics {
		if d.Severity == model.SeverityNote && strings.Contains(d.Summary, "NVML is unavailable on ") {
			noted = d.Summary
		}
	}
	for _, n := range cl.Layout {
		if !strings.Contains(noted, n.IP) && !anyNVML(live.Facts) {
			t.Errorf("no note that NVML is unavailable on fake-GPU node %s: %v", n.IP, live.Diagnostics)
		}
	}
}

func factsAt(facts map[string]topology.RayFacts, ip string) *topology.RayFacts {
	for _, f := range facts {
		if f.IP == ip {
			return &f
		}
	}
	return nil
}

func anyNVML(facts map[string]topology.RayFacts) bool {
	for _, f := range facts {
		if f.NVMLAvailable() {
			return true
		}
	}
	return false
}

// Without the probe the cluster's nodes carry no rank (the script sets
// RLINF_NODE_RANK in the environment, not as labels): D13's numeric order,
// with RLS-W0602 since RLinf's differs.
func TestRayLiveClusterNoProbe(t *testing.T) {
	cl := raytest.Require(t)
	c, _ := raycli.New(cl.Address, raycli.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	live, err := topology.DiscoverRay(ctx, topology.RayLiveOptions{Client: c})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range live.Inventory.Nodes {
		got = append(got, n.IP)
	}
	want := append([]string(nil), got...)
	sort.Slice(want, func(i, j int) bool { return netip.MustParseAddr(want[i]).Less(netip.MustParseAddr(want[j])) })
	if strings.Join(got, " ") != strings.Join(want, " ") || len(got) != cl.Nodes {
		t.Errorf("order %v, want numeric %v", got, want)
	}
}

// Waiting for more nodes than the cluster has times out with the nodes
// that joined.
func TestRayLiveClusterWaitTimeout(t *testing.T) {
	cl := raytest.Require(t)
	c, _ := raycli.New(cl.Address, raycli.Options{})
	_, err := topology.DiscoverRay(context.Background(), topology.RayLiveOptions{Client: c, WaitNodes: cl.Nodes + 1, Timeout: 3 * time.Second})
	var we *topology.RayWaitError
	if !errors.As(err, &we) || len(we.Alive) != cl.Nodes || !strings.Contains(err.Error(), strconv.Itoa(cl.Nodes)+" of "+strconv.Itoa(cl.Nodes+1)+" Ray nodes alive") {
		t.Errorf("%v", err)
	}
}
