package raytest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/internal/shellquote"
)

// placeEverywhere is a Ray driver that runs one task on every alive node,
// pinned there with hard NodeAffinity, and prints where each one ran.
const placeEverywhere = `
import json, os, ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
ray.init()
@ray.remote(num_cpus=0)
def where():
    return {"node_id": ray.get_runtime_context().get_node_id(),
            "ip": ray.util.get_node_ip_address(),
            "rank": os.environ.get("RLINF_NODE_RANK", "")}
nodes = [n for n in ray.nodes() if n["Alive"]]
refs = [where.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False)).remote() for n in nodes]
out = [dict(r, want_id=n["NodeID"], want_ip=n["NodeManagerAddress"], gpus=n["Resources"].get("GPU", 0))
       for n, r in zip(nodes, ray.get(refs))]
print("RAYTEST " + json.dumps(out))
`

type placed struct {
	NodeID string  `json:"node_id"`
	IP     string  `json:"ip"`
	Rank   string  `json:"rank"`
	WantID string  `json:"want_id"`
	WantIP string  `json:"want_ip"`
	GPUs   float64 `json:"gpus"`
}

// The cluster is real: a job submitted through the Jobs API reaches every
// node the script started, each with its own IP, its RLINF_NODE_RANK and 2
// GPUs, and NodeAffinity puts a task where it is told.
func TestJobPlacesOneTaskPerNode(t *testing.T) {
	c := Require(t)
	t.Logf("Ray test cluster: %s, %d nodes, mode %s", c.Address, c.Nodes, c.Mode)
	logs := runJob(t, c, shellquote.Quote(c.Python)+" -c "+shellquote.Quote(placeEverywhere))
	m := regexp.MustCompile(`(?m)^RAYTEST (.*)$`).FindStringSubmatch(logs)
	if m == nil {
		t.Fatalf("the job printed no RAYTEST line:\n%s", logs)
	}
	var got []placed
	if err := json.Unmarshal([]byte(m[1]), &got); err != nil {
		t.Fatalf("%v: %s", err, m[1])
	}
	if len(got) != c.Nodes {
		t.Fatalf("%d alive nodes, want %d: %+v", len(got), c.Nodes, got)
	}
	rankOf := map[string]string{}
	for _, n := range c.Layout {
		rankOf[n.IP] = strconv.Itoa(n.Rank)
	}
	seen := map[string]bool{}
	for _, p := range got {
		if seen[p.IP] {
			t.Errorf("two nodes have IP %s: every node must have its own", p.IP)
		}
		seen[p.IP] = true
		if p.NodeID != p.WantID || p.IP != p.WantIP {
			t.Errorf("a task pinned to %s (%s) ran on %s (%s)", p.WantID, p.WantIP, p.NodeID, p.IP)
		}
		if p.GPUs != 2 {
			t.Errorf("node %s has %v GPUs, want 2", p.IP, p.GPUs)
		}
		if c.Layout == nil {
			continue
		}
		if want, ok := rankOf[p.IP]; !ok || p.Rank != want {
			t.Errorf("node %s: RLINF_NODE_RANK=%q, the script set %q (known: %t)", p.IP, p.Rank, want, ok)
		}
	}
}

// The script's layout is what the ordering tests need: sorting its nodes
// by IP string, by IP number and by rank gives three different orders.
func TestLayoutOrdersDiffer(t *testing.T) {
	c := Require(t)
	if c.Layout == nil {
		t.Skip("RLSOLVE_RAY_STATE is not set: the layout is unknown")
	}
	order := func(less func(a, b Node) bool) string {
		nodes := append([]Node(nil), c.Layout...)
		sort.Slice(nodes, func(i, j int) bool { return less(nodes[i], nodes[j]) })
		ips := make([]string, len(nodes))
		for i, n := range nodes {
			ips[i] = n.IP
		}
		return strings.Join(ips, " ")
	}
	byString := order(func(a, b Node) bool { return a.IP < b.IP })
	byNumber := order(func(a, b Node) bool { return ipNumber(a.IP) < ipNumber(b.IP) })
	byRank := order(func(a, b Node) bool { return a.Rank < b.Rank })
	if byString == byNumber || byString == byRank || byNumber == byRank {
		t.Fatalf("orders coincide: string %s, number %s, rank %s", byString, byNumber, byRank)
	}
}

func ipNumber(ip string) uint32 {
	var a, b, c, d uint32
	fmt.Sscanf(ip, "%d.%d.%d.%d", &a, &b, &c, &d)
	return a<<24 | b<<16 | c<<8 | d
}

// runJob submits entrypoint through the Jobs API, waits for it to end,
// deletes it and returns its logs; a job that does not succeed fails t.
func runJob(t *testing.T, c Cluster, entrypoint string) string {
	t.Helper()
	id := fmt.Sprintf("rlsolve-raytest-%d", time.Now().UnixNano())
	body, _ := json.Marshal(map[string]string{"entrypoint": entrypoint, "submission_id": id})
	call(t, "POST", c.Address+"/api/jobs/", body, nil)
	defer call(t, "DELETE", c.Address+"/api/jobs/"+id, nil, nil)
	var status struct{ Status, Message string }
	// A bound against a hung cluster, not a timing assertion.
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(time.Second) {
		call(t, "GET", c.Address+"/api/jobs/"+id, nil, &status)
		if status.Status == "SUCCEEDED" || status.Status == "FAILED" || status.Status == "STOPPED" {
			break
		}
		if time.Now().After(deadline) {
			call(t, "POST", c.Address+"/api/jobs/"+id+"/stop", nil, nil)
			t.Fatalf("job %s still %s after 5 minutes", id, status.Status)
		}
	}
	var logs struct{ Logs string }
	call(t, "GET", c.Address+"/api/jobs/"+id+"/logs", nil, &logs)
	if status.Status != "SUCCEEDED" {
		t.Fatalf("job %s %s: %s\n%s", id, status.Status, status.Message, logs.Logs)
	}
	return logs.Logs
}

// call makes one request to the dashboard and decodes its JSON into out.
func call(t *testing.T, method, url string, body []byte, out any) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	Authorize(req.Header)
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %s: %s", method, url, resp.Status, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, url, err, data)
		}
	}
}
