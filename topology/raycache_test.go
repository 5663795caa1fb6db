package topology

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/internal/raycli"
)

// A discovery keeps the probe's facts per node id; the next one on the
// same raylets runs no probe job and orders the nodes the same. A node
// that did not answer, or a file that is not the cache's, means a probe.
func TestProbeCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ray-nodes")
	ids := []string{"0a0a0a0a", "1b1b1b1b", "2c2c2c2c", "3d3d3d3d", "4e4e4e4e"} // the last is dead
	rows := liveList(t)
	for i := range rows {
		rows[i]["node_id"] = ids[i]
	}
	log := probeMarker + `{"nodes": {"0a0a0a0a": {"rank": "0", "ip": "10.77.0.10", "nvml": "unavailable"}, "1b1b1b1b": {"rank": "2", "ip": "10.77.0.9", "nvml": "unavailable"},` +
		`"2c2c2c2c": {"rank": "3", "ip": "10.77.0.100", "nvml": "unavailable"}, "3d3d3d3d": {"rank": "1", "ip": "10.77.0.11", "nvml": "unavailable"}}}` + "\n"
	d := &fakeDashboard{t: t, version: "2.52.1", lists: [][]map[string]any{rows}, status: raycli.JobSucceeded, log: log}
	discover := func() (*RayLive, bool) {
		t.Helper()
		d.submit = nil
		live, err := DiscoverRay(context.Background(), RayLiveOptions{Client: d.client(t), Probe: true, CacheDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if got := liveOrder(live.Inventory); got != "0=10.77.0.10 1=10.77.0.11 2=10.77.0.9 3=10.77.0.100" {
			t.Errorf("order %s", got)
		}
		return live, d.submit != nil
	}
	if live, probed := discover(); !probed || live.Cached {
		t.Fatalf("first discovery: probed %v, cached %v", probed, live.Cached)
	}
	if live, probed := discover(); probed || !live.Cached || *live.Facts["3d3d3d3d"].Rank != "1" {
		t.Fatalf("second discovery: probed %v, cached %v, facts %+v", probed, live.Cached, live.Facts)
	}
	if err := os.WriteFile(filepath.Join(dir, "2c2c2c2c.json"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, probed := discover(); !probed {
		t.Error("a broken cache file did not bring the probe back")
	}
	d.log = probeMarker + `{"nodes": {"0a0a0a0a": {"rank": "0", "ip": "10.77.0.10", "nvml": "unavailable"}}}` + "\n"
	os.RemoveAll(dir)
	d.submit = nil
	if _, err := DiscoverRay(context.Background(), RayLiveOptions{Client: d.client(t), Probe: true, CacheDir: dir}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "1b1b1b1b.json")); err == nil {
		t.Error("a node that did not answer was cached")
	}
	old := time.Now().Add(-cacheKeep - time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "0a0a0a0a.json"), old, old); err != nil {
		t.Fatal(err)
	}
	storeFacts(dir, map[string]RayFacts{"5f5f5f5f": {IP: "10.77.0.13"}})
	if _, err := os.Stat(filepath.Join(dir, "0a0a0a0a.json")); err == nil {
		t.Error("a file older than the cache keeps them was not removed")
	}
	if _, ok := cachedFacts(dir, []string{"5f5f5f5f", "../../etc/passwd"}); ok {
		t.Error("a node id that is no file name was read")
	}
}

// FuzzReadFacts: whatever is in a cache file, reading it does not panic,
// and what it accepts is bounded as a probe's output is.
func FuzzReadFacts(f *testing.F) {
	f.Add([]byte(`{"rank": "1", "ip": "10.0.0.1", "nvml": "pynvml", "gpus": 8, "model": "NVIDIA H100 80GB HBM3", "python": "/v/bin/python"}`))
	f.Add([]byte(`{"ip": "10.0.0.1", "gpus": -1}`))
	f.Add([]byte(`{"ip": "x", "model": "\u0000\u001b[31m"}`))
	f.Add([]byte(`[]`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, "0a0a0a0a.json"), b, 0o600); err != nil {
			t.Fatal(err)
		}
		facts, ok := readFacts(dir, "0a0a0a0a")
		if ok && (facts.IP == "" || facts.GPUs < 0 || facts.GPUs > 1024 || facts.Model != "" && !modelName.MatchString(facts.Model) || len(facts.Python) > 43) {
			t.Errorf("accepted %+v from %q", facts, b)
		}
	})
}
