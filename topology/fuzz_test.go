package topology

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
)

// addFiles seeds a fuzz target with every recorded file matching pattern.
func addFiles(f *testing.F, pattern string) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "topology", pattern))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seeds for %s: %v", pattern, err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzParseScontrolNodes: any output is parsed or refused with a position,
// never a panic; what parses yields an inventory that the grammar reads
// back.
func FuzzParseScontrolNodes(f *testing.F) {
	addFiles(f, "slurm/scontrol-*.txt")
	f.Add([]byte("NodeName=a Gres=gpu:x:1(S:0,1),gpu:2 CPUTot=3 State=IDLE+DRAIN Reason=a b=c State=X\n"))
	f.Add([]byte("NodeName=a\n   OS=Linux 1 #2\n\nNodeName=b NodeAddr=::1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		recs, err := ParseScontrolNodes("fuzz", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz:") {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		var names []string
		for _, r := range recs {
			if r.Name == "" || r.GPUs < 0 || r.GPUs > 1024 || r.CPUs < 0 {
				t.Fatalf("record %+v", r)
			}
			_ = r.Usable()
			names = append(names, r.Name)
		}
		if len(names) == 0 {
			return
		}
		run := fakeSlurm{
			"scontrol show node -o":     data,
			"sinfo -h -N -p p -o %N":    []byte(strings.Join(names, "\n")),
			"scontrol show hostnames x": []byte(strings.Join(names, " ")),
		}.run
		for _, opt := range []SlurmOptions{{Partition: "p", AllStates: true, Run: run}, {NodeList: "x", Run: run}} {
			inv, _, err := DiscoverSlurm(context.Background(), opt)
			if err != nil {
				continue
			}
			roundTrip(t, inv)
		}
	})
}

// FuzzImportRay: any dump is imported or refused with file:line:col, never
// a panic; an imported inventory has ranks 0..n-1 and reads back.
func FuzzImportRay(f *testing.F) {
	addFiles(f, "ray/*")
	f.Add([]byte(`[{"node_ip": "10.0.0.1", "state": "ALIVE", "RLINF_NODE_RANK": " 0 ", "resources_total": {"GPU": 2, "accelerator_type:A10G": 1}}]`))
	f.Add([]byte(`{"nodes": [{"NodeManagerAddress": "::1", "Alive": true, "Labels": {"RLINF_NODE_RANK": 0}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		set := nodeSetOf(t, data)
		inv, ds, err := ImportRay("fuzz.json", data)
		if err == nil && !ds.HasErrors() && !sameIPs(inv.Nodes, set) {
			t.Fatalf("the node set %v is not the ranked import's %v", set, inv.Nodes)
		}
		if err != nil {
			if inv != nil || !strings.HasPrefix(err.Error(), "fuzz.json") {
				t.Fatalf("%v / %v", inv, err)
			}
			return
		}
		if ds.HasErrors() {
			if inv != nil {
				t.Fatal("an inventory despite errors")
			}
			return
		}
		if inv == nil || len(inv.Nodes) == 0 {
			t.Fatalf("no inventory and no error: %+v", ds)
		}
		roundTrip(t, inv)
	})
}

// nodeSetOf imports data as slime mode does (NodeSet): only a shared
// address may refuse it (never a rank), and a refused set is nil.
func nodeSetOf(t *testing.T, data []byte) []model.Node {
	t.Helper()
	inv, ds, err := ImportRayWith("fuzz.json", data, RayOptions{NodeSet: true})
	switch {
	case err != nil:
		return nil
	case ds.HasErrors():
		if last := ds[len(ds)-1]; last.Code != model.CodeInventoryDuplicate || inv != nil {
			t.Fatalf("the node set was refused by %+v", last)
		}
		return nil
	}
	return inv.Nodes
}

// sameIPs reports whether a and b hold the same addresses, in any order.
func sameIPs(a, b []model.Node) bool {
	ips := func(ns []model.Node) []string {
		out := make([]string, len(ns))
		for i, n := range ns {
			out[i] = n.IP
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(ips(a), ips(b))
}

// roundTrip checks ranks 0..n-1 and that the encoded inventory loads
// with the same nodes.
func roundTrip(t *testing.T, in *model.Inventory) {
	t.Helper()
	for i, n := range in.Nodes {
		if n.Rank != i {
			t.Fatalf("node %d has rank %d", i, n.Rank)
		}
	}
	for _, format := range []string{FormatYAML, FormatJSON} {
		out, err := Encode(in, EncodeOptions{Format: format, Ranks: true})
		if err != nil {
			t.Fatal(err)
		}
		back, ds := grammar.LoadInventory("back."+format, out, grammar.DefaultLimits)
		if ds.HasErrors() || back == nil || len(back.Nodes) != len(in.Nodes) {
			t.Fatalf("%s does not read back: %+v\n%s", format, ds, out)
		}
		for i := range back.Nodes {
			a, b := back.Nodes[i], in.Nodes[i]
			if a.Hostname != b.Hostname || a.IP != b.IP || a.AccelCount != b.AccelCount || a.AccelModel != b.AccelModel || a.CPUs != b.CPUs {
				t.Fatalf("node %d: %+v became %+v", i, b, a)
			}
		}
	}
}
