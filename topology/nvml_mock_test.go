//go:build cgo && nvml

package topology_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/render"
	"github.com/rlsolve/rlsolve/topology"
)

// dgxA100 is go-nvml's mock library set up as a DGX A100: eight
// "Mock NVIDIA A100-SXM4-40GB" (the model of go-nvml's dgxa100 mock) with
// bus ids 0000:0N:00.0, twelve NVLinks each, two to each of six NVSwitches
// (which are not GPUs, so every GPU reaches every other through the
// fabric), and CPU affinity 0-63 for GPUs 0-3, 64-127 for GPUs 4-7.
// Functions the code must not call stay nil: go-nvml's mock panics then.
// (pkg/nvml/mock/dgxa100 itself needs github.com/google/uuid, which this
// module does not require; the device model is the same.)
func dgxA100(switches bool) *mock.Interface {
	devs := make([]nvml.Device, 8)
	for i := range devs {
		i := i
		d := &mock.Device{
			GetUUIDFunc: func() (string, nvml.Return) {
				return fmt.Sprintf("GPU-a100-%08x-0000-0000-0000-%012d", 0xdead0000+i, i), nvml.SUCCESS
			},
			GetNameFunc:       func() (string, nvml.Return) { return "Mock NVIDIA A100-SXM4-40GB", nvml.SUCCESS },
			GetMemoryInfoFunc: func() (nvml.Memory, nvml.Return) { return nvml.Memory{Total: 40960 << 20}, nvml.SUCCESS },
			GetPciInfoFunc: func() (nvml.PciInfo, nvml.Return) {
				p := nvml.PciInfo{Domain: 0, Bus: uint32(i), Device: 0}
				copy8(p.BusId[:], fmt.Sprintf("0000:%02x:00.0", i))
				return p, nvml.SUCCESS
			},
			GetCpuAffinityFunc: func(n int) ([]uint, nvml.Return) {
				set := make([]uint, 2)
				set[i/4] = ^uint(0)
				return set, nvml.SUCCESS
			},
			GetNvLinkStateFunc: func(link int) (nvml.EnableState, nvml.Return) {
				if !switches {
					return 0, nvml.ERROR_NOT_SUPPORTED
				}
				if link >= 12 {
					return 0, nvml.ERROR_INVALID_ARGUMENT
				}
				return nvml.FEATURE_ENABLED, nvml.SUCCESS
			},
			GetNvLinkRemotePciInfoFunc: func(link int) (nvml.PciInfo, nvml.Return) {
				var p nvml.PciInfo
				copy8(p.BusId[:], fmt.Sprintf("00000000:%02X:00.0", 0xC0+link/2)) // NVSwitch N
				return p, nvml.SUCCESS
			},
		}
		devs[i] = d
	}
	return &mock.Interface{
		InitFunc:           func() nvml.Return { return nvml.SUCCESS },
		ShutdownFunc:       func() nvml.Return { return nvml.SUCCESS },
		DeviceGetCountFunc: func() (int, nvml.Return) { return len(devs), nvml.SUCCESS },
		DeviceGetHandleByIndexFunc: func(n int) (nvml.Device, nvml.Return) {
			if n < 0 || n >= len(devs) {
				return nil, nvml.ERROR_INVALID_ARGUMENT
			}
			return devs[n], nvml.SUCCESS
		},
	}
}

func withCode(ds model.Diagnostics, code string) *model.Diagnostic {
	for i := range ds {
		if ds[i].Code == code {
			return &ds[i]
		}
	}
	return nil
}

func copy8(dst []int8, s string) {
	for i := 0; i < len(s) && i < len(dst)-1; i++ {
		dst[i] = int8(s[i])
	}
}

var dgxSys = fstest.MapFS{
	"devices/system/node/node0/cpulist": {Data: []byte("0-63,128-191\n")},
	"devices/system/node/node1/cpulist": {Data: []byte("64-127,192-255\n")},
}

// The same code path as `rlsolve topology --nvml`: WrapNVML over go-nvml's
// mock, DiscoverNVML, Encode; the inventory then loads and a config with
// 8-way tensor parallelism checks clean (NVSwitch: all GPUs are peers).
func TestNVMLMockDGXA100(t *testing.T) {
	lib := dgxA100(true)
	node, err := topology.DiscoverNVML(topology.WrapNVML(lib), topology.NVMLOptions{SysFS: dgxSys, Hostname: "dgx-a100-01", IP: "10.1.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	if node.AccelCount != 8 || node.AccelModel != "Mock NVIDIA A100-SXM4-40GB" || node.MemoryGiB != 40 {
		t.Errorf("node %+v", node)
	}
	for i, dv := range node.Devices {
		if len(dv.NVLinkPeers) != 7 || dv.PCIBusID != fmt.Sprintf("0000:%02x:00.0", i) || dv.NUMANode != i/4 || !strings.HasPrefix(dv.UUID, "GPU-a100-") {
			t.Errorf("device %d: %+v", i, dv)
		}
	}
	if len(lib.ShutdownCalls()) != 1 {
		t.Errorf("Shutdown called %d times", len(lib.ShutdownCalls()))
	}
	out, err := topology.Encode(&model.Inventory{Nodes: []model.Node{*node}}, topology.EncodeOptions{Ranks: true})
	if err != nil {
		t.Fatal(err)
	}
	inv, ds := grammar.LoadInventory("dgx.yaml", out, grammar.DefaultLimits)
	if ds.HasErrors() {
		t.Fatalf("%v\n%s", ds, out)
	}
	cfg := "cluster:\n  num_nodes: 1\n  component_placement:\n    actor,rollout,reward: all\nrollout:\n  tensor_parallel_size: 8\n"
	o := pipeline.CheckBytes("train.yaml", []byte(cfg), pipeline.Options{Inventory: inv, GPUsPerNode: -1})
	if o.Diagnostics.HasErrors() || withCode(o.Diagnostics, model.WarnTPNoNVLink) != nil {
		t.Errorf("check: %+v", o.Diagnostics)
	}
	if o.Result == nil || o.Result.Plan == nil {
		t.Fatal("no plan")
	}
	doc, err := render.NewDocument(o.RenderInput())
	if err != nil {
		t.Fatal(err)
	}
	p := doc.Components["rollout"].Placements[0]
	if len(p.GPUUUIDs) != 8 || p.Hostname != "dgx-a100-01" || p.IP != "10.1.0.1" || p.Env["MASTER_ADDR"] != "10.1.0.1" {
		t.Errorf("rollout worker 0: %+v", p)
	}
}

// Without NVLink (PCIe A100s) every pair is unconnected: the same config
// then warns RLS-W0601.
func TestNVMLMockPCIeWarns(t *testing.T) {
	node, err := topology.DiscoverNVML(topology.WrapNVML(dgxA100(false)), topology.NVMLOptions{SysFS: dgxSys})
	if err != nil {
		t.Fatal(err)
	}
	for _, dv := range node.Devices {
		if !dv.NVLinkKnown || len(dv.NVLinkPeers) != 0 {
			t.Fatalf("device %+v", dv)
		}
	}
	out, _ := topology.Encode(&model.Inventory{Nodes: []model.Node{*node}}, topology.EncodeOptions{Ranks: true})
	inv, ds := grammar.LoadInventory("pcie.yaml", out, grammar.DefaultLimits)
	if ds.HasErrors() {
		t.Fatalf("%v\n%s", ds, out)
	}
	cfg := "cluster:\n  num_nodes: 1\n  component_placement:\n    actor,rollout,reward: all\nrollout:\n  tensor_parallel_size: 2\n"
	o := pipeline.CheckBytes("train.yaml", []byte(cfg), pipeline.Options{Inventory: inv, GPUsPerNode: -1})
	if w := withCode(o.Diagnostics, model.WarnTPNoNVLink); o.Diagnostics.HasErrors() || w == nil || !strings.Contains(w.Summary, "4 of 4") {
		t.Errorf("check: %+v", o.Diagnostics)
	}
}

// A failed Init (no driver) is the only call: every other mock function is
// nil and would panic if called.
func TestNVMLMockNoDriver(t *testing.T) {
	for ret, want := range map[nvml.Return]string{
		nvml.ERROR_LIBRARY_NOT_FOUND: "libnvidia-ml.so.1 could not be loaded",
		nvml.ERROR_DRIVER_NOT_LOADED: "driver is not loaded",
		nvml.ERROR_UNKNOWN:           "initializing libnvidia-ml.so.1 failed",
	} {
		lib := &mock.Interface{InitFunc: func() nvml.Return { return ret }}
		_, err := topology.DiscoverNVML(topology.WrapNVML(lib), topology.NVMLOptions{})
		if !errors.Is(err, topology.ErrNoNVML) || !strings.Contains(err.Error(), want) {
			t.Errorf("%d: %v", ret, err)
		}
	}
	// The wrapper refuses calls before Init without touching the library.
	w := topology.WrapNVML(&mock.Interface{})
	if _, err := w.DeviceCount(); err == nil {
		t.Error("DeviceCount before Init should fail")
	}
	if _, err := w.Device(0); err == nil {
		t.Error("Device before Init should fail")
	}
	if err := w.Shutdown(); err != nil {
		t.Errorf("Shutdown without Init: %v", err)
	}
}

// A device that fails half-way gives an error naming it, and NVML is still
// shut down.
func TestNVMLMockDeviceError(t *testing.T) {
	lib := dgxA100(true)
	d, _ := lib.DeviceGetHandleByIndex(3)
	d.(*mock.Device).GetUUIDFunc = func() (string, nvml.Return) { return "", nvml.ERROR_GPU_IS_LOST }
	_, err := topology.DiscoverNVML(topology.WrapNVML(lib), topology.NVMLOptions{SysFS: dgxSys})
	if err == nil || !strings.Contains(err.Error(), "device 3 UUID: the GPU has fallen off the bus") {
		t.Errorf("error %v", err)
	}
	if len(lib.ShutdownCalls()) != 1 {
		t.Error("Shutdown must follow a successful Init")
	}
}

// $RLSOLVE_NVML_LIBRARY points at another library file; one that cannot be
// loaded fails Init like a missing driver, naming the file.
func TestOpenNVMLLibraryEnv(t *testing.T) {
	t.Setenv(topology.NVMLLibraryEnv, "/nonexistent/libnvidia-ml.so.1")
	_, err := topology.DiscoverNVML(topology.OpenNVML(), topology.NVMLOptions{})
	if !errors.Is(err, topology.ErrNoNVML) || !strings.Contains(err.Error(), "/nonexistent/libnvidia-ml.so.1 could not be loaded") {
		t.Errorf("error %v", err)
	}
}
