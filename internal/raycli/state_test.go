package raycli

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

func stateRoutes() map[string]string {
	return map[string]string{
		"GET /api/v0/nodes":            "nodes.json",
		"GET /api/v0/actors":           "actors.json",
		"GET /api/v0/placement_groups": "placement_groups.json",
	}
}

func TestNodes(t *testing.T) {
	r := newReplay(t, stateRoutes())
	nodes, raw, err := r.client().Nodes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 1 {
		t.Fatalf("nodes: %+v", nodes)
	}
	n := nodes[0]
	if n.State != "ALIVE" || !n.IsHead || n.NodeIP == "" || len(n.NodeID) != 56 || n.ResourcesTotal["GPU"] != 2 || n.ResourcesTotal["CPU"] != 2 ||
		n.Labels["ray.io/node-id"] != n.NodeID {
		t.Errorf("node %+v", n)
	}
	// The raw rows are the list `ray list nodes --detail --format json`
	// prints: a JSON list of the same rows.
	var rows []map[string]any
	if err := json.Unmarshal(raw, &rows); err != nil || len(rows) != 1 || rows[0]["node_ip"] != n.NodeIP {
		t.Errorf("raw rows %s: %v", raw, err)
	}
	q, _ := url.ParseQuery(r.last().Query)
	if q.Get("detail") != "true" || q.Get("limit") != "10000" {
		t.Errorf("nodes query %s", r.last().Query)
	}
}

func TestActorsAndPlacementGroups(t *testing.T) {
	r := newReplay(t, stateRoutes())
	c := r.client()
	actors, err := c.Actors(context.Background(), Filter{"ray_namespace", "=", "rec-ns"}, Filter{"state", "!=", "DEAD"})
	if err != nil {
		t.Fatal(err)
	}
	// The recording holds an earlier run's actor (DEAD) and this run's.
	var alive []Actor
	for _, a := range actors {
		if a.Name != "rec-actor" || a.RayNamespace != "rec-ns" || a.PID == 0 || a.ClassName != "Holder" || a.JobID == "" {
			t.Errorf("actor %+v", a)
		}
		if a.State == "ALIVE" {
			alive = append(alive, a)
		}
	}
	if len(actors) != 2 || len(alive) != 1 {
		t.Fatalf("actors %+v", actors)
	}
	q, _ := url.ParseQuery(r.last().Query)
	if strings.Join(q["filter_keys"], ",") != "ray_namespace,state" || strings.Join(q["filter_predicates"], ",") != "=,!=" ||
		strings.Join(q["filter_values"], ",") != "rec-ns,DEAD" || q.Has("detail") {
		t.Errorf("actors query %s", r.last().Query)
	}
	pgs, err := c.PlacementGroups(context.Background(), Filter{"state", "!=", "REMOVED"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pgs) != 1 || pgs[0].Name != "rec-pg" || pgs[0].State != "CREATED" || pgs[0].CreatorJobID != alive[0].JobID || pgs[0].PlacementGroupID == "" {
		t.Errorf("placement groups %+v", pgs)
	}
	if _, err := c.Actors(context.Background(), Filter{"state", "~", "x"}); err == nil || !strings.Contains(err.Error(), "= or !=") {
		t.Errorf("a bad operator: %v", err)
	}
}

// A list Ray truncated, a failed list, and rows of the wrong shape are
// errors, never a partial answer.
func TestStateRefused(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"result": false, "msg": "Failed to get nodes", "data": {}}`, "Ray says: Failed to get nodes"},
		{`{"result": true, "msg": "", "data": {"result": {"total": 20000, "num_after_truncation": 10000, "result": []}}}`, "Ray has 20000 nodes"},
		{`{"result": true, "msg": "", "data": {"result": {"total": 1, "num_after_truncation": 1, "result": {"a": 1}}}}`, "not the JSON Ray sends"},
		{`<html>`, "not the JSON Ray sends"},
	} {
		c := answering(t, 200, tc.body)
		_, _, err := c.Nodes(context.Background())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.body, err, tc.want)
		}
	}
	c := answering(t, 200, `{"result": true, "msg": "", "data": {"result": {"total": 0, "num_after_truncation": 0, "result": null}}}`)
	if nodes, raw, err := c.Nodes(context.Background()); err != nil || len(nodes) != 0 || string(raw) != "[]" {
		t.Errorf("no nodes: %v %s %v", nodes, raw, err)
	}
}

// FuzzStateList: any answer is rows or an error, never a panic.
func FuzzStateList(f *testing.F) {
	for _, name := range []string{"nodes.json", "actors.json", "placement_groups.json"} {
		_, b := recorded(f, name)
		f.Add(b)
	}
	f.Add([]byte(`{"result": true, "data": {"result": {"result": [{"pid": "x"}]}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		c := &Client{base: mustURL("http://fuzz:1")}
		var env stateEnvelope
		if c.decode("fuzz", body, &env) != nil {
			return
		}
		decodeRows[Node](c, "fuzz", env.Data.Result.Result)
		decodeRows[Actor](c, "fuzz", env.Data.Result.Result)
	})
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// FuzzAddress: any address is a normalised base URL or an error.
func FuzzAddress(f *testing.F) {
	for _, s := range []string{"http://head:8265", "ray://1.2.3.4:8265", "head", "[::1]:80", "https://x/y/", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := parseAddress(s)
		if err != nil {
			return
		}
		if u.Hostname() == "" || u.Port() == "" || (u.Scheme != "http" && u.Scheme != "https") {
			t.Errorf("%q -> %s", s, u)
		}
	})
}
