package topology

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// recorded reads a recorded Slurm output under testdata/topology/slurm.
func recorded(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "topology", "slurm", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fakeSlurm answers commands from recorded outputs; a command it does not
// know fails like a missing binary.
type fakeSlurm map[string]any // command line -> []byte output or error

func (f fakeSlurm) run(_ context.Context, name string, args ...string) ([]byte, error) {
	line := strings.Join(append([]string{name}, args...), " ")
	switch v := f[line].(type) {
	case []byte:
		return v, nil
	case error:
		return nil, v
	}
	return nil, errors.New("`" + line + "`: not recorded")
}

// The recorded CI cluster: key=value records whose values may hold spaces.
func TestParseScontrolCI(t *testing.T) {
	recs, err := ParseScontrolNodes("ci", recorded(t, "scontrol-ci-4nodes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Fatalf("%d records", len(recs))
	}
	for i, r := range recs {
		if r.Name != "n"+string(rune('1'+i)) || r.CPUs != 16 || r.GPUs != 8 || r.Addr != "127.0.0.1" || r.Line != i+1 || !r.Usable() {
			t.Errorf("record %d: %+v", i, r)
		}
	}
	if os := recs[0].Fields["OS"]; os != "Linux 6.18.44-fc-v657 #1 SMP PREEMPT_DYNAMIC @0" {
		t.Errorf("OS = %q", os)
	}
	// The multi-line form (no -o) reads the same.
	multi, err := ParseScontrolNodes("ci", recorded(t, "scontrol-ci-multiline.txt"))
	if err != nil || len(multi) != 1 {
		t.Fatalf("%v %d", err, len(multi))
	}
	for _, k := range []string{"NodeName", "CPUTot", "Gres", "NodeAddr", "NodeHostName", "OS", "Partitions"} {
		if multi[0].Fields[k] != recs[0].Fields[k] {
			t.Errorf("%s: multi-line %q, one-line %q", k, multi[0].Fields[k], recs[0].Fields[k])
		}
	}
}

func TestParseScontrolEdge(t *testing.T) {
	recs, err := ParseScontrolNodes("edge", recorded(t, "scontrol-edge.txt"))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]SlurmNode{}
	for _, r := range recs {
		byName[r.Name] = r
	}
	a2 := byName["gpu-a002"]
	if a2.State != "IDLE+DRAIN" || a2.Usable() {
		t.Errorf("gpu-a002 state %q (a State= inside Reason must not win)", a2.State)
	}
	if !strings.HasPrefix(a2.Fields["Reason"], "NVLink errors on GPU 3,") || !strings.HasSuffix(a2.Fields["Reason"], "[root@2024-01-15T10:02:11]") {
		t.Errorf("reason %q", a2.Fields["Reason"])
	}
	if a3 := byName["gpu-a003"]; a3.State != "DOWN*" || a3.Usable() {
		t.Errorf("gpu-a003 %q", a3.State)
	}
	if m := byName["gpu-m004"]; m.GPUs != 6 || m.GPUType != "a100+v100" || m.CPUs != 96 {
		t.Errorf("gpu-m004 %+v", m)
	}
	if c := byName["cpu-c001"]; c.GPUs != 0 || c.CPUs != 64 || !c.Usable() {
		t.Errorf("cpu-c001 %+v", c)
	}
	if x := byName["gpu-x005"]; x.GPUs != 0 || x.CPUs != 0 {
		t.Errorf("gpu-x005 %+v", x)
	}
}

func TestParseScontrolErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"garbage line", string(recorded(t, "scontrol-bad.txt")), "x:2:1: expected key=value"},
		{"bad gres", string(recorded(t, "scontrol-bad-gres.txt")), "x:1:1: node n1: Gres=gpu:a100:lots"},
		{"no NodeName", "PartitionName=debug Nodes=n[1-4]\n", "x:1:1: expected a record starting with NodeName="},
		{"empty name", "NodeName= CPUTot=4\n", "empty NodeName"},
		{"bad cpus", "NodeName=a CPUTot=many\n", `CPUTot="many"`},
		{"error text", "Node nope not found\n", "expected key=value"},
	} {
		_, err := ParseScontrolNodes("x", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	if recs, err := ParseScontrolNodes("x", nil); err != nil || len(recs) != 0 {
		t.Errorf("empty output: %v %v", recs, err)
	}
}

func TestParseGres(t *testing.T) {
	for in, want := range map[string]struct {
		n   int
		typ string
	}{
		"gpu:8":                         {8, ""},
		"gpu:a100:8":                    {8, "a100"},
		"gpu:a100:8(S:0-1)":             {8, "a100"},
		"gpu:a100:4(S:0),gpu:v100:2":    {6, "a100+v100"},
		"gpu:2(S:0,1),shard:4":          {2, ""},
		"(null)":                        {0, ""},
		"":                              {0, ""},
		"gpu":                           {1, ""},
		"gpu:h100":                      {1, "h100"},
		"mps:100,gpu:tesla:2(IDX:0-1)":  {2, "tesla"},
		"gpu:a100:2,gpu:a100:2(S:1)":    {4, "a100"},
		"license:matlab:3,bandwidth:10": {0, ""},
	} {
		n, typ, err := ParseGres(in)
		if err != nil || n != want.n || typ != want.typ {
			t.Errorf("ParseGres(%q) = %d, %q, %v; want %d, %q", in, n, typ, err, want.n, want.typ)
		}
	}
	for _, in := range []string{"gpu:a:b:c", "gpu:x:many", "gpu:2(S:0", "gpu:5000", "gpu:-1"} {
		if _, _, err := ParseGres(in); err == nil {
			t.Errorf("ParseGres(%q) should fail", in)
		}
	}
}

func edgeSlurm(t *testing.T) fakeSlurm {
	return fakeSlurm{
		"sinfo -h -N -p gpu -o %N":                      recorded(t, "sinfo-gpu.txt"),
		"scontrol show node -o":                         recorded(t, "scontrol-edge.txt"),
		"scontrol show hostnames gpu-a00[1-2],gpu-m004": recorded(t, "hostnames-job.txt"),
	}
}

// A partition leaves out nodes that cannot run jobs, with a warning each.
func TestDiscoverSlurmPartition(t *testing.T) {
	inv, warns, err := DiscoverSlurm(context.Background(), SlurmOptions{Partition: "gpu", Run: edgeSlurm(t).run})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for i, n := range inv.Nodes {
		names = append(names, n.Hostname)
		if n.Rank != i {
			t.Errorf("rank %d: %+v", i, n)
		}
	}
	if !reflect.DeepEqual(names, []string{"gpu-a001", "gpu-m004", "gpu-x005"}) {
		t.Errorf("nodes %v", names)
	}
	a := inv.Nodes[0]
	if a.IP != "10.1.0.11" || a.CPUs != 128 || a.AccelCount != 8 || a.AccelModel != "a100" || a.AccelType != "NV_GPU" {
		t.Errorf("gpu-a001 %+v", a)
	}
	if m := inv.Nodes[1]; m.IP != "" || m.AccelCount != 6 {
		t.Errorf("gpu-m004 %+v", m)
	}
	all := strings.Join(warns, "\n")
	for _, w := range []string{
		"left out node gpu-a002: its state is IDLE+DRAIN (pass --all-states to keep it); reason: NVLink errors on GPU 3",
		"left out node gpu-a003: its state is DOWN*",
		"gpu-m004: NodeAddr gpu-m004.cluster.internal is not an IP address",
		"node gpu-x005 reports no Gres",
		"node gpu-x005 reports no CPUTot",
	} {
		if !strings.Contains(all, w) {
			t.Errorf("warnings lack %q:\n%s", w, all)
		}
	}
	inv, _, err = DiscoverSlurm(context.Background(), SlurmOptions{Partition: "gpu", AllStates: true, Run: edgeSlurm(t).run})
	if err != nil || len(inv.Nodes) != 5 {
		t.Errorf("--all-states: %v %v", inv, err)
	}
}

// An allocation keeps its nodes in host-list order, whatever their state.
func TestDiscoverSlurmAllocation(t *testing.T) {
	inv, warns, err := DiscoverSlurm(context.Background(), SlurmOptions{NodeList: "gpu-a00[1-2],gpu-m004", Run: edgeSlurm(t).run})
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Nodes) != 3 || inv.Nodes[1].Hostname != "gpu-a002" || inv.Nodes[2].Hostname != "gpu-m004" {
		t.Errorf("nodes %+v", inv.Nodes)
	}
	if !strings.Contains(strings.Join(warns, "\n"), "node gpu-a002 is in state IDLE+DRAIN") {
		t.Errorf("warnings %v", warns)
	}
}

// Failing commands and missing nodes are errors, never panics.
func TestDiscoverSlurmFailures(t *testing.T) {
	ctx := context.Background()
	bad := errors.New("`scontrol show node -o` failed (exit status 1): slurm_load_node error: Unable to contact slurm controller")
	for _, tc := range []struct {
		name string
		opt  SlurmOptions
		f    fakeSlurm
		want string
	}{
		{"no allocation", SlurmOptions{}, fakeSlurm{}, "SLURM_JOB_NODELIST is not set"},
		{"unknown partition", SlurmOptions{Partition: "nope"}, fakeSlurm{"sinfo -h -N -p nope -o %N": []byte("")}, `no nodes in partition "nope"`},
		{"sinfo fails", SlurmOptions{Partition: "gpu"}, fakeSlurm{}, "not recorded"},
		{"scontrol fails", SlurmOptions{Partition: "gpu"}, fakeSlurm{"sinfo -h -N -p gpu -o %N": recorded(t, "sinfo-gpu.txt"), "scontrol show node -o": bad}, "Unable to contact slurm controller"},
		{"garbage", SlurmOptions{Partition: "gpu"}, fakeSlurm{"sinfo -h -N -p gpu -o %N": recorded(t, "sinfo-gpu.txt"), "scontrol show node -o": recorded(t, "scontrol-bad.txt")}, "scontrol show node -o:2:1"},
		{"node not described", SlurmOptions{NodeList: "x1"}, fakeSlurm{"scontrol show hostnames x1": []byte("x1\n"), "scontrol show node -o": recorded(t, "scontrol-edge.txt")}, "does not describe x1"},
		{"empty host list", SlurmOptions{NodeList: "x"}, fakeSlurm{"scontrol show hostnames x": []byte("\n")}, "named no nodes"},
		{"all drained", SlurmOptions{Partition: "p"}, fakeSlurm{"sinfo -h -N -p p -o %N": []byte("gpu-a002\ngpu-a003\n"), "scontrol show node -o": recorded(t, "scontrol-edge.txt")}, "no usable nodes"},
	} {
		tc.opt.Run = tc.f.run
		inv, _, err := DiscoverSlurm(ctx, tc.opt)
		if err == nil || inv != nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, %v; want an error with %q", tc.name, inv, err, tc.want)
		}
	}
}
