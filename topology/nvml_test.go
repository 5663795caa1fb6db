package topology

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rlsolve/rlsolve/model"
)

// fakeNVML implements NVMLLibrary over a table of GPUs. Like go-nvml, it
// treats any call after a failed (or missing) Init as fatal: the test fails.
type fakeNVML struct {
	t       *testing.T
	initErr error
	ready   bool
	calls   []string
	gpus    []fakeGPU
}

type fakeGPU struct {
	uuid, name, bus string
	memMiB          uint64
	affinity        []uint64
	links           []NVLink
}

func (f *fakeNVML) call(name string) {
	f.calls = append(f.calls, name)
	if !f.ready && name != "Init" {
		f.t.Fatalf("%s called without a successful Init: go-nvml would end the process here", name)
	}
}

func (f *fakeNVML) Init() error {
	f.call("Init")
	if f.initErr != nil {
		return f.initErr
	}
	f.ready = true
	return nil
}

func (f *fakeNVML) Shutdown() error {
	f.call("Shutdown")
	f.ready = false
	return nil
}

func (f *fakeNVML) DeviceCount() (int, error) {
	f.call("DeviceCount")
	return len(f.gpus), nil
}

func (f *fakeNVML) Device(i int) (NVMLDevice, error) {
	f.call("Device")
	if i < 0 || i >= len(f.gpus) {
		return nil, errors.New("invalid argument")
	}
	return &fakeDev{f, &f.gpus[i]}, nil
}

type fakeDev struct {
	f *fakeNVML
	g *fakeGPU
}

func (d *fakeDev) UUID() (string, error)          { d.f.call("UUID"); return d.g.uuid, nil }
func (d *fakeDev) Name() (string, error)          { d.f.call("Name"); return d.g.name, nil }
func (d *fakeDev) MemoryBytes() (uint64, error)   { d.f.call("Memory"); return d.g.memMiB << 20, nil }
func (d *fakeDev) PCIBusID() (string, error)      { d.f.call("PCI"); return d.g.bus, nil }
func (d *fakeDev) CPUAffinity() ([]uint64, error) { d.f.call("CPUAffinity"); return d.g.affinity, nil }
func (d *fakeDev) NVLinks() ([]NVLink, error)     { d.f.call("NVLinks"); return d.g.links, nil }

// pairsNode is a 4-GPU workstation with NVLink bridges 0-1 and 2-3, GPUs
// 0-1 near CPUs 0-15 (NUMA 0) and 2-3 near CPUs 16-31 (NUMA 1).
func pairsNode(t *testing.T) *fakeNVML {
	f := &fakeNVML{t: t}
	for i := 0; i < 4; i++ {
		g := fakeGPU{uuid: fmt.Sprintf("GPU-%d", i), name: "NVIDIA RTX A6000", bus: fmt.Sprintf("00000000:%02X:00.0", 0x17+i), memMiB: 49140}
		peer := i ^ 1
		g.links = []NVLink{{0, fmt.Sprintf("00000000:%02X:00.0", 0x17+peer)}, {1, fmt.Sprintf("0000:%02x:00.0", 0x17+peer)}}
		g.affinity = []uint64{0xffff}
		if i >= 2 {
			g.affinity = []uint64{0xffff0000}
		}
		f.gpus = append(f.gpus, g)
	}
	return f
}

var twoNUMA = fstest.MapFS{
	"devices/system/node/node0/cpulist": {Data: []byte("0-15\n")},
	"devices/system/node/node1/cpulist": {Data: []byte("16-31\n")},
}

func TestDiscoverNVMLPairs(t *testing.T) {
	f := pairsNode(t)
	node, err := DiscoverNVML(f, NVMLOptions{SysFS: twoNUMA, Hostname: "ws1", IP: "10.0.0.9"})
	if err != nil {
		t.Fatal(err)
	}
	if node.AccelCount != 4 || node.AccelModel != "RTX A6000" || node.MemoryGiB != 48 || node.Hostname != "ws1" || node.IP != "10.0.0.9" {
		t.Errorf("node %+v", node)
	}
	var peers [][]int
	var numa []int
	for _, dv := range node.Devices {
		peers = append(peers, dv.NVLinkPeers)
		numa = append(numa, dv.NUMANode)
		if !dv.NVLinkKnown || dv.MemoryMiB != 49140 {
			t.Errorf("device %+v", dv)
		}
	}
	if !reflect.DeepEqual(peers, [][]int{{1}, {0}, {3}, {2}}) {
		t.Errorf("peers %v", peers)
	}
	if !reflect.DeepEqual(numa, []int{0, 0, 1, 1}) {
		t.Errorf("NUMA nodes %v (from CPU affinity)", numa)
	}
	if f.calls[0] != "Init" || f.calls[len(f.calls)-1] != "Shutdown" {
		t.Errorf("calls %v", f.calls)
	}
}

// sysfs's numa_node wins over CPU affinity; -1 there means "ask affinity".
func TestDiscoverNVMLSysfsNUMA(t *testing.T) {
	sys := fstest.MapFS{
		"bus/pci/devices/0000:17:00.0/numa_node": {Data: []byte("3\n")},
		"bus/pci/devices/0000:18:00.0/numa_node": {Data: []byte("-1\n")},
	}
	for k, v := range twoNUMA {
		sys[k] = v
	}
	node, err := DiscoverNVML(pairsNode(t), NVMLOptions{SysFS: sys})
	if err != nil {
		t.Fatal(err)
	}
	if node.Devices[0].NUMANode != 3 || node.Devices[1].NUMANode != 0 {
		t.Errorf("NUMA %d %d", node.Devices[0].NUMANode, node.Devices[1].NUMANode)
	}
	// Nothing known: -1.
	node, _ = DiscoverNVML(pairsNode(t), NVMLOptions{SysFS: fstest.MapFS{}})
	if node.Devices[0].NUMANode != -1 {
		t.Errorf("NUMA %d, want -1", node.Devices[0].NUMANode)
	}
}

// A failed Init is the only call: the error names the library.
func TestDiscoverNVMLInitFails(t *testing.T) {
	f := &fakeNVML{t: t, initErr: fmt.Errorf("%w: libnvidia-ml.so.1 could not be loaded", ErrNoNVML)}
	_, err := DiscoverNVML(f, NVMLOptions{SysFS: fstest.MapFS{}})
	if !errors.Is(err, ErrNoNVML) || !strings.Contains(err.Error(), "libnvidia-ml.so.1") {
		t.Errorf("error %v", err)
	}
	if !reflect.DeepEqual(f.calls, []string{"Init"}) {
		t.Errorf("calls after a failed Init: %v", f.calls)
	}
	if _, err := DiscoverNVML(nil, NVMLOptions{}); !errors.Is(err, ErrNoNVML) {
		t.Errorf("nil library: %v", err)
	}
}

// This binary's own NVML: without a driver (as on CI machines) Init fails
// with ErrNoNVML and nothing else is called; the process survives.
func TestOpenNVMLWithoutDriver(t *testing.T) {
	node, err := DiscoverNVML(OpenNVML(), NVMLOptions{})
	if err == nil {
		t.Skipf("this machine has an NVIDIA driver: %d GPU(s)", node.AccelCount)
	}
	if !errors.Is(err, ErrNoNVML) || !strings.Contains(err.Error(), "libnvidia-ml.so.1") {
		t.Errorf("error %v", err)
	}
}

func TestCanonicalBusID(t *testing.T) {
	for in, want := range map[string]string{
		"00000000:07:00.0": "0000:07:00.0",
		"0000:07:00.0":     "0000:07:00.0",
		"00000001:C7:00.0": "0001:c7:00.0",
		"07:00.0":          "0000:07:00.0",
		"junk":             "junk",
	} {
		if got := canonicalBusID(in); got != want {
			t.Errorf("canonicalBusID(%q) = %q, want %q", in, got, want)
		}
	}
}

// The NVML node encodes to YAML and JSON that the inventory grammar reads
// back to the same devices.
func TestEncodeNVMLNodeRoundTrip(t *testing.T) {
	node, err := DiscoverNVML(pairsNode(t), NVMLOptions{SysFS: twoNUMA, Hostname: "ws1", IP: "10.0.0.9"})
	if err != nil {
		t.Fatal(err)
	}
	inv := &model.Inventory{Nodes: []model.Node{*node}}
	for _, format := range []string{FormatYAML, FormatJSON} {
		out, err := Encode(inv, EncodeOptions{Format: format, Ranks: true, Comments: []string{"test"}})
		if err != nil {
			t.Fatal(err)
		}
		back := loadInv(t, "node."+format, out)
		got := back.Nodes[0]
		got.Span = model.Span{}
		want := *node
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s round trip:\n got %+v\nwant %+v\n%s", format, got, want, out)
		}
	}
}
