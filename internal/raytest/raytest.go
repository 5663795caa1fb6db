// Package raytest gives tests the Ray test cluster that
// scripts/ray-test-cluster.sh starts (4 nodes, 2 fake GPUs each, one
// network namespace per node) from the variables its start prints.
package raytest

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/internal/testlock"
)

// Cluster is the running test cluster.
type Cluster struct {
	Address string // the head's dashboard, http://IP:PORT (Jobs and State APIs)
	Nodes   int    // how many nodes the script started
	Python  string // the venv's python, with ray installed, for job entrypoints
	Mode    string // "netns" (an IP per node) or "loopback" (127.0.0.x, own ports)
	Layout  []Node // the nodes as the script set them up, head first
}

// Node is one node as the script set it up.
type Node struct {
	IP   string
	Rank int // the RLINF_NODE_RANK in its raylet's environment
}

const howToStart = "run `eval \"$(scripts/python-venv.sh)\" && eval \"$(scripts/ray-test-cluster.sh start)\"` as root"

// Require returns the running test cluster. Without one the test is skipped
// with how to start it, unless RLSOLVE_REQUIRE_RAY is set (CI sets it, so
// that Ray tests can never silently stop running). The test then holds the
// cluster until it ends: one Require per test.
func Require(tb testing.TB) Cluster {
	tb.Helper()
	c, missing := lookup(os.Getenv, reachable)
	if missing == "" {
		testlock.Hold(tb, lockName(c.Address))
		return c
	}
	msg := "no Ray test cluster (" + missing + "): " + howToStart
	if os.Getenv("RLSOLVE_REQUIRE_RAY") != "" {
		tb.Fatal(msg)
	} else {
		tb.Skip(msg)
	}
	return Cluster{}
}

// lookup reads the cluster from the environment and says what is missing,
// "" when it is usable.
func lookup(getenv func(string) string, probe func(string) error) (Cluster, string) {
	c := Cluster{Address: getenv("RLSOLVE_RAY_ADDRESS"), Python: getenv("RLSOLVE_RAY_PYTHON"), Mode: getenv("RLSOLVE_RAY_MODE")}
	if c.Address == "" {
		return c, "RLSOLVE_RAY_ADDRESS is not set"
	}
	n, err := strconv.Atoi(getenv("RLSOLVE_RAY_NODES"))
	if err != nil || n < 1 {
		return c, fmt.Sprintf("RLSOLVE_RAY_NODES=%q is not a node count", getenv("RLSOLVE_RAY_NODES"))
	}
	c.Nodes = n
	if st, err := os.Stat(c.Python); c.Python == "" || err != nil || st.IsDir() {
		return c, fmt.Sprintf("RLSOLVE_RAY_PYTHON=%q is not a python", c.Python)
	}
	if state := getenv("RLSOLVE_RAY_STATE"); state != "" {
		layout, err := readLayout(filepath.Join(state, "nodes"))
		if err != nil {
			return c, err.Error()
		}
		if len(layout) != n {
			return c, fmt.Sprintf("%s lists %d nodes, RLSOLVE_RAY_NODES=%d", filepath.Join(state, "nodes"), len(layout), n)
		}
		c.Layout = layout
	}
	if err := probe(c.Address); err != nil {
		return c, fmt.Sprintf("RLSOLVE_RAY_ADDRESS=%s does not answer: %v", c.Address, err)
	}
	return c, ""
}

// lockName names the lock of the cluster at address: tests on two clusters
// on one machine need not wait for each other.
func lockName(address string) string {
	h := fnv.New32a()
	h.Write([]byte(address))
	return fmt.Sprintf("rlsolve-ray-tests-%08x", h.Sum32())
}

// reachable asks the dashboard its version, the cheapest request it has.
func reachable(address string) error {
	req, err := http.NewRequest("GET", address+"/api/version", nil)
	if err != nil {
		return err
	}
	Authorize(req.Header)
	client := http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /api/version: %s", resp.Status)
	}
	return nil
}

// Authorize adds the cluster's token, which the script's start exports as
// RAY_AUTH_TOKEN (its nodes run with RAY_AUTH_MODE=token), to a request
// made with plain net/http; without the token it adds nothing.
func Authorize(h http.Header) {
	if t := os.Getenv("RAY_AUTH_TOKEN"); t != "" {
		h.Set("Authorization", "Bearer "+t)
	}
}
