package topology

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Without a driver, or with a bad RLINF_NODE_RANK, this node cannot be
// described; the error says how to go on.
func TestDiscoverThisNodeErrors(t *testing.T) {
	none := func(string) (string, bool) { return "", false }
	_, err := DiscoverThisNode(nil, NVMLRequest{Rank: 0, LookupEnv: none})
	if err == nil || !strings.Contains(err.Error(), NoDriverHelp) {
		t.Errorf("no library: %v", err)
	}
	bad := func(string) (string, bool) { return "first", true }
	_, err = DiscoverThisNode(nil, NVMLRequest{Rank: -1, LookupEnv: bad})
	if err == nil || !strings.Contains(err.Error(), `RLINF_NODE_RANK="first"`) {
		t.Errorf("bad RLINF_NODE_RANK: %v", err)
	}
}

// The allocation comes from $SLURM_JOB_NODELIST, else $SLURM_NODELIST.
func TestDiscoverAllocationEnv(t *testing.T) {
	for _, env := range []string{"SLURM_JOB_NODELIST", "SLURM_NODELIST"} {
		getenv := func(k string) string {
			if k == env {
				return "gpu-a00[1-2],gpu-m004"
			}
			return ""
		}
		d, warns, err := DiscoverAllocation(context.Background(), SlurmOptions{Run: edgeSlurm(t).run}, getenv)
		if err != nil {
			t.Fatalf("%s: %v", env, err)
		}
		if len(d.Inventory.Nodes) != 3 || !d.Ranked || len(warns) == 0 {
			t.Errorf("%s: %d nodes, ranked %v, warnings %v", env, len(d.Inventory.Nodes), d.Ranked, warns)
		}
		if !strings.HasPrefix(d.Comments[0], "rlsolve topology --slurm: 3 node(s) of ") {
			t.Errorf("%s: comments %q", env, d.Comments)
		}
	}
}

func TestReadRayDump(t *testing.T) {
	good, _ := raySample(t, "list-nodes-detail.json")
	bad, _ := raySample(t, "bad-not-a-list.json")
	for _, tc := range []struct {
		file, err string
		ds        int // diagnostics to show, at least
	}{
		{good, "", 1},
		{bad, "bad-not-a-list.json is not a usable Ray node list", 1},
		{filepath.Join(t.TempDir(), "none.json"), "topology --ray: ", 0},
	} {
		d, ds, _, err := ReadRayDump(tc.file, RayOptions{})
		switch {
		case tc.err == "" && (err != nil || d == nil || len(d.Inventory.Nodes) != 4):
			t.Errorf("%s: %v", tc.file, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q", tc.file, err, tc.err)
		case len(ds) < tc.ds:
			t.Errorf("%s: %d diagnostics, want at least %d", tc.file, len(ds), tc.ds)
		}
	}
}

func TestMergeFiles(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, ip := range []string{"10.0.0.2", "10.0.0.1"} {
		f := filepath.Join(dir, "node"+string(rune('0'+i))+".yaml")
		if err := os.WriteFile(f, []byte(nodeFile(-1, "h"+ip, ip)), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	d, _, texts, read := MergeFiles(files)
	if read != nil || d == nil || len(texts) != 2 {
		t.Fatalf("merge: %v %v", d, read)
	}
	if got := ips(d.Inventory); got[0] != "10.0.0.1" || !strings.Contains(d.Comments[0], "2 node(s) from ") {
		t.Errorf("order %v, comments %q", got, d.Comments)
	}
	if _, _, _, read := MergeFiles(append(files, filepath.Join(dir, "none.yaml"))); read == nil {
		t.Error("a missing file is not reported")
	}
	dup := append(files, files[0])
	if d, ds, _, _ := MergeFiles(dup); d != nil || !ds.HasErrors() {
		t.Errorf("the same node twice merges: %v", ds)
	}
}
