package topology

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

func liveRows(t testing.TB) []byte {
	b, err := os.ReadFile("testdata/raylive_nodes.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func rankOf(s string) *string { return &s }

// liveOrder is the inventory's node IPs in rank order.
func liveOrder(inv *model.Inventory) string {
	var ips []string
	for _, n := range inv.Nodes {
		ips = append(ips, fmt.Sprintf("%d=%s", n.Rank, n.IP))
	}
	return strings.Join(ips, " ")
}

// codes lists the diagnostics' severities and codes (or first words).
func codes(ds model.Diagnostics) string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%v:%s", d.Severity, d.Code))
	}
	return strings.Join(out, " ")
}

func TestImportRayLive(t *testing.T) {
	nvml := func(n int, model string) RayFacts { return RayFacts{NVML: "pynvml", GPUs: n, Model: model} }
	withRank := func(f RayFacts, r string) RayFacts { f.Rank = rankOf(r); return f }
	fake := RayFacts{NVML: "unavailable", Error: "libnvidia-ml.so.1: cannot open shared object file"}
	for _, tc := range []struct {
		name   string
		facts  map[string]RayFacts
		order  string
		diags  []string // substrings, in order
		errMsg string
	}{
		{"no probe: numeric IP order (D13)", nil,
			"0=10.77.0.9 1=10.77.0.10 2=10.77.0.11 3=10.77.0.100", []string{"left out node 10.77.0.12", "RLinf would order these nodes differently"}, ""},
		{"the probe's ranks", map[string]RayFacts{"n0": withRank(fake, "0"), "n1": withRank(fake, "2"), "n2": withRank(fake, " 3"), "n3": withRank(fake, "1")},
			"0=10.77.0.10 1=10.77.0.11 2=10.77.0.9 3=10.77.0.100", []string{"NVML is unavailable on 10.77.0.10, 10.77.0.9, 10.77.0.100, 10.77.0.11 (libnvidia-ml.so.1", "would see none there", "left out"}, ""},
		{"NVML agrees, model from NVML", map[string]RayFacts{"n0": nvml(2, "NVIDIA H100"), "n1": nvml(2, "NVIDIA H100"), "n2": nvml(2, "NVIDIA H100"), "n3": nvml(2, "NVIDIA H100")},
			"0=10.77.0.9 1=10.77.0.10 2=10.77.0.11 3=10.77.0.100", []string{"left out", "RLinf would order"}, ""},
		{"NVML disagrees", map[string]RayFacts{"n0": nvml(8, ""), "n1": nvml(2, ""), "n2": nvml(2, ""), "n3": nvml(2, "")},
			"0=10.77.0.9 1=10.77.0.10 2=10.77.0.11 3=10.77.0.100", []string{"node 10.77.0.10: Ray's GPU resource is 2 but NVML counts 8 GPU(s); RLinf counts NVML"}, ""},
		{"a node the probe missed", map[string]RayFacts{"n0": nvml(2, ""), "n1": nvml(2, ""), "n2": {Error: "GetTimeoutError: Get timed out"}},
			"0=10.77.0.9 1=10.77.0.10 2=10.77.0.11 3=10.77.0.100", []string{"learnt nothing from node 10.77.0.100 (GetTimeoutError", "learnt nothing from node 10.77.0.11 (it did not answer)"}, ""},
		{"a rank RLinf refuses", map[string]RayFacts{"n0": withRank(fake, "zero")}, "", nil, `node 10.77.0.10: its raylet's RLINF_NODE_RANK is "zero". Invalid NODE_RANK value`},
		{"some ranks set: RLinf's mix error", map[string]RayFacts{"n0": withRank(nvml(2, ""), "0"), "n1": nvml(2, ""), "n2": nvml(2, ""), "n3": nvml(2, "")},
			"", []string{"Either all nodes set RLINF_NODE_RANK"}, ""},
	} {
		inv, ds, err := ImportRayLive("http://head:8265", liveRows(t), tc.facts, RayOptions{})
		if tc.errMsg != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errMsg) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.errMsg)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := ""
		if inv != nil {
			got = liveOrder(inv)
		}
		if got != tc.order {
			t.Errorf("%s: order %q, want %q", tc.name, got, tc.order)
		}
		all := ""
		for _, d := range ds {
			all += d.Summary + "\n"
		}
		rest := all
		for _, w := range tc.diags {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%s: diagnostics do not say %q (in order):\n%s", tc.name, w, all)
				break
			}
			rest = rest[i+len(w):]
		}
		if want := strings.HasPrefix(tc.name, "the probe's ranks"); inv != nil && inv.RLinfRanks != want {
			t.Errorf("%s: RLinfRanks %v", tc.name, inv.RLinfRanks)
		}
		if tc.name == "NVML disagrees" && !strings.Contains(codes(ds), "warning:"+model.WarnRayGPUsNVML) {
			t.Errorf("%s: %s", tc.name, codes(ds))
		}
		if tc.name == "NVML agrees, model from NVML" && (inv.Nodes[0].AccelModel != "NVIDIA H100" || inv.Nodes[0].AccelCount != 2) {
			t.Errorf("%s: %+v", tc.name, inv.Nodes[0])
		}
	}
}

// --rlinf-order applies to a live cluster too: the head first, IPs as
// strings.
func TestImportRayLiveRLinfOrder(t *testing.T) {
	inv, _, err := ImportRayLive("http://head:8265", liveRows(t), nil, RayOptions{RLinfOrder: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := liveOrder(inv); got != "0=10.77.0.10 1=10.77.0.100 2=10.77.0.11 3=10.77.0.9" {
		t.Errorf("order %s", got)
	}
}

func TestParseProbe(t *testing.T) {
	log := "Running entrypoint\nRLSOLVE_PROBE_RESULT {\"nodes\": {}}\nnoise\n" +
		`RLSOLVE_PROBE_RESULT {"nodes": {"n0": {"rank": "1", "ip": "10.0.0.1", "python": "/v/bin/python", "nvml": "pynvml", "gpus": 8, "model": "NVIDIA H100 80GB HBM3"}, "n1": {"rank": null, "ip": "10.0.0.2", "nvml": "unavailable", "error": "no driver", "model": "bad\u0000name"}}}` + "\nbye\n"
	facts, err := ParseProbe(log)
	if err != nil {
		t.Fatal(err)
	}
	n0, n1 := facts["n0"], facts["n1"]
	if len(facts) != 2 || *n0.Rank != "1" || n0.GPUs != 8 || n0.Model != "NVIDIA H100 80GB HBM3" || !n0.NVMLAvailable() || n0.Python != "/v/bin/python" {
		t.Errorf("n0 %+v", n0)
	}
	if n1.Rank != nil || n1.NVMLAvailable() || n1.Error != "no driver" || n1.Model != "" {
		t.Errorf("n1 %+v", n1)
	}
	for _, bad := range []string{"", "no marker\n", "RLSOLVE_PROBE_RESULT {not json\n", `RLSOLVE_PROBE_RESULT {"nodes": {"a": {"gpus": 5000}}}`} {
		if _, err := ParseProbe(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// FuzzParseProbe: any log is facts or an error, and facts are bounded.
func FuzzParseProbe(f *testing.F) {
	f.Add(`RLSOLVE_PROBE_RESULT {"nodes": {"n0": {"rank": "1", "gpus": 8, "model": "A100"}}}`)
	f.Add("x\nRLSOLVE_PROBE_RESULT {\"nodes\": null}\n")
	f.Fuzz(func(t *testing.T, log string) {
		facts, err := ParseProbe(log)
		if err != nil {
			return
		}
		for _, fa := range facts {
			if fa.GPUs < 0 || fa.GPUs > 1024 || !modelName.MatchString(fa.Model) && fa.Model != "" {
				t.Errorf("%+v", fa)
			}
		}
	})
}

// python/probe.py, run by python3 against a stand-in ray (and pynvml), says
// what RLinf's node probe would, and rlsolve reads it back.
func TestProbePython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("RLSOLVE_REQUIRE_PYTHON") != "" {
			t.Fatal("python3 is required (RLSOLVE_REQUIRE_PYTHON) but not on PATH")
		}
		t.Skip("python3 not on PATH: the probe's Python is not run")
	}
	nodes := `[{"id": "n0", "ip": "10.77.0.10", "env": {"RLINF_NODE_RANK": "0", "FAKE_NVML": "2:NVIDIA H100"}},
	 {"id": "n1", "ip": "10.77.0.9", "env": {"RLINF_NODE_RANK": "2", "FAKE_NVML": "8:NVIDIA H100"}},
	 {"id": "n2", "ip": "10.77.0.100", "env": {"RLINF_NODE_RANK": "3"}},
	 {"id": "n3", "ip": "10.77.0.11", "env": {"RLINF_NODE_RANK": "1", "FAKE_NVML": "2:NVIDIA H100"}},
	 {"id": "n4", "ip": "10.77.0.12", "alive": false}]`
	for _, tc := range []struct {
		name, path string
		want       map[string]string // node id: "rank nvml gpus model"
	}{
		{"pynvml", "testdata/fakeray" + string(os.PathListSeparator) + "testdata/fakenvml", map[string]string{
			"n0": "0 pynvml 2 NVIDIA H100", "n1": "2 pynvml 8 NVIDIA H100", "n2": "3 unavailable 0 ", "n3": "1 pynvml 2 NVIDIA H100"}},
		// Without pynvml the probe loads libnvidia-ml.so.1 itself: absent
		// here (no driver), so every node says unavailable.
		{"ctypes", "testdata/fakeray", nil},
	} {
		cmd := exec.Command(py, filepath.Join("..", "python", "probe.py"))
		cmd.Env = append(os.Environ(), "PYTHONPATH="+tc.path, "FAKE_RAY_NODES="+nodes, "PYTHONDONTWRITEBYTECODE=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.name, err, out)
		}
		facts, err := ParseProbe(string(out))
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.name, err, out)
		}
		if _, ok := facts["n4"]; ok || len(facts) != 4 {
			t.Errorf("%s: probed %d nodes (the dead one too?): %v", tc.name, len(facts), facts)
		}
		for id, f := range facts {
			if f.Python == "" || f.IP == "" {
				t.Errorf("%s: %s: %+v", tc.name, id, f)
			}
			if tc.want == nil {
				if f.NVML != "unavailable" || f.Error == "" {
					t.Skipf("%s: this machine has an NVIDIA driver (%+v): the no-driver path is not exercised", tc.name, f)
				}
				continue
			}
			if got := fmt.Sprintf("%s %s %d %s", *f.Rank, f.NVML, f.GPUs, f.Model); got != tc.want[id] {
				t.Errorf("%s: %s: %q, want %q", tc.name, id, got, tc.want[id])
			}
		}
		if tc.want == nil {
			continue
		}
		// What the probe printed, with the cluster's rows, orders the nodes
		// by RLINF_NODE_RANK and warns where NVML and Ray disagree.
		inv, ds, err := ImportRayLive("http://head:8265", liveRows(t), facts, RayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := liveOrder(inv); got != "0=10.77.0.10 1=10.77.0.11 2=10.77.0.9 3=10.77.0.100" {
			t.Errorf("order %s", got)
		}
		if c := codes(ds); !strings.Contains(c, "warning:"+model.WarnRayGPUsNVML) || !strings.Contains(c, "note:") {
			t.Errorf("diagnostics %s", c)
		}
	}
}
