package grammar_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
)

// What `rlsolve topology --nvml` writes reads back device by device.
const nvmlNode = `inventory:
  nodes:
    - rank: 0
      hostname: dgx-01
      ip: "10.0.0.1"
      cpus: 256
      accelerators: {type: NV_GPU, model: A100-SXM4-40GB, count: 3, memory_gib: 40}
      devices:
        - {index: 0, uuid: GPU-aaa, name: NVIDIA A100-SXM4-40GB, pci_bus_id: "00000000:07:00.0", memory_mib: 40960, numa_node: 0, nvlink: [1, 2]}
        - {index: 1, uuid: GPU-bbb, pci_bus_id: "00000000:0F:00.0", nvlink: [0]}
        - {index: 2, uuid: GPU-ccc}
`

func TestInventoryDevices(t *testing.T) {
	inv, ds := grammar.LoadInventory("node.yaml", []byte(nvmlNode), grammar.DefaultLimits)
	if ds.HasErrors() || inv == nil {
		t.Fatal(diagText(ds))
	}
	n := inv.Nodes[0]
	if n.CPUs != 256 || n.AccelCount != 3 || n.MemoryGiB != 40 || n.Hostname != "dgx-01" || n.IP != "10.0.0.1" {
		t.Errorf("node: %+v", n)
	}
	want := []model.Device{
		{Index: 0, UUID: "GPU-aaa", Name: "NVIDIA A100-SXM4-40GB", PCIBusID: "00000000:07:00.0", MemoryMiB: 40960, NUMANode: 0, NVLinkPeers: []int{1, 2}, NVLinkKnown: true},
		{Index: 1, UUID: "GPU-bbb", PCIBusID: "00000000:0F:00.0", NUMANode: -1, NVLinkPeers: []int{0}, NVLinkKnown: true},
		{Index: 2, UUID: "GPU-ccc", NUMANode: -1},
	}
	if !reflect.DeepEqual(n.Devices, want) {
		t.Errorf("devices:\n got %+v\nwant %+v", n.Devices, want)
	}
}

// Each inconsistency of a device list is RLS-E0605 at the value at fault.
func TestInventoryDeviceErrors(t *testing.T) {
	for _, tc := range []struct {
		name, from, to, at, msg string
	}{
		{"count mismatch", "count: 3,", "count: 4,", "4, memory", "has 4 accelerators but lists 3 devices"},
		{"peer out of range", "nvlink: [0]}", "nvlink: [7]}", "7]", "NVLink peer 7"},
		{"peer is itself", "nvlink: [0]}", "nvlink: [1]}", "1]}", "lists itself"},
		{"index twice", "{index: 2,", "{index: 1,", "1, uuid: GPU-ccc", "index 1 is listed twice"},
		{"index past the end", "{index: 2,", "{index: 5,", "5, uuid", "past the node's 3 devices"},
		{"uuid twice", "uuid: GPU-ccc", "uuid: GPU-aaa", "GPU-aaa}", "listed twice on one node"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(nvmlNode, tc.from, tc.to, 1)
			_, ds := grammar.LoadInventory("node.yaml", []byte(src), grammar.DefaultLimits)
			d := wantDiag(t, ds, model.CodeInventoryDevices, model.SeverityError)
			if !strings.Contains(d.Summary, tc.msg) {
				t.Errorf("summary %q lacks %q", d.Summary, tc.msg)
			}
			wantAt(t, d, src, tc.at, 0)
		})
	}
	// Unknown keys and wrong types name the key or value.
	src := strings.Replace(nvmlNode, "numa_node: 0", "numa: 0", 1)
	_, ds := grammar.LoadInventory("node.yaml", []byte(src), grammar.DefaultLimits)
	wantAt(t, wantDiag(t, ds, model.CodeUnknownField, model.SeverityError), src, "numa:", 0)
	src = strings.Replace(nvmlNode, "nvlink: [0]", "nvlink: 0", 1)
	_, ds = grammar.LoadInventory("node.yaml", []byte(src), grammar.DefaultLimits)
	wantDiag(t, ds, model.CodeWrongType, model.SeverityError)
}

// Of several indices past the end, the first listed is the one reported,
// on every run (they were once read from a map, in its random order).
func TestInventoryDeviceIndexPastEndFirst(t *testing.T) {
	src := "nodes:\n  - accelerators: 3\n    devices: [{index: 5}, {index: 6}, {index: 7}]\n"
	for range 20 {
		_, ds := grammar.LoadInventory("node.yaml", []byte(src), grammar.DefaultLimits)
		d := wantDiag(t, ds, model.CodeInventoryDevices, model.SeverityError)
		if !strings.Contains(d.Summary, "device index 5 is past") {
			t.Fatalf("summary %q: want the first listed index, 5", d.Summary)
		}
		wantAt(t, d, src, "5}", 0)
	}
}

// Two entries for one host, or one GPU on two nodes: RLS-E0603 with both.
func TestInventoryDuplicates(t *testing.T) {
	src := `nodes:
  - rank: 0
    hostname: gpu-a
    accelerators: 8
  - rank: 1
    hostname: gpu-a
    accelerators: 8
`
	_, ds := grammar.LoadInventory("inv.yaml", []byte(src), grammar.DefaultLimits)
	d := wantDiag(t, ds, model.CodeInventoryDuplicate, model.SeverityError)
	wantAt(t, d, src, "gpu-a", 1)
	if len(d.Labels) != 1 || d.Labels[0].Span.Line != 3 {
		t.Errorf("labels %+v", d.Labels)
	}
	src = `nodes:
  - rank: 0
    accelerators: 1
    devices: [{uuid: GPU-1}]
  - rank: 1
    accelerators: 1
    devices: [{uuid: GPU-1}]
`
	_, ds = grammar.LoadInventory("inv.yaml", []byte(src), grammar.DefaultLimits)
	if d := wantDiag(t, ds, model.CodeInventoryDuplicate, model.SeverityError); !strings.Contains(d.Summary, "GPU GPU-1 appears on node rank 0 and on node rank 1") {
		t.Errorf("summary %q", d.Summary)
	}
	// Shared addresses are fine (several slurmds on one test machine).
	src = "nodes:\n  - ranks: 0-1\n    hostnames: n[1-2]\n    ip: [127.0.0.1, 127.0.0.1]\n    accelerators: 8\n"
	if _, ds = grammar.LoadInventory("inv.yaml", []byte(src), grammar.DefaultLimits); ds.HasErrors() {
		t.Error(diagText(ds))
	}
}

// Entries keep whether their rank was written, for topology merge.
func TestInventoryEntries(t *testing.T) {
	src := "nodes:\n  - hostname: a\n    accelerators: 8\n  - ranks: 5-6\n    hostnames: b[1-2]\n    accelerators: 8\n"
	es, ds := grammar.LoadInventoryEntries([]grammar.InventoryFile{{File: "x.yaml", Data: []byte(src)}}, grammar.DefaultLimits)
	if ds.HasErrors() || len(es) != 3 {
		t.Fatalf("%d entries %s", len(es), diagText(ds))
	}
	if es[0].RankGiven || !es[1].RankGiven || es[1].Node.Rank != 5 || es[2].Node.Rank != 6 || es[2].Node.Hostname != "b2" {
		t.Errorf("entries %+v", es)
	}
	if es[0].NameSpan.Line != 2 || es[0].Node.Span.File != "x.yaml" {
		t.Errorf("spans %+v / %+v", es[0].NameSpan, es[0].Node.Span)
	}
	// LoadInventory still requires 0..n-1.
	if _, ds := grammar.LoadInventory("x.yaml", []byte(src), grammar.DefaultLimits); !ds.HasErrors() {
		t.Error("ranks 0,5,6 should not load as an inventory")
	}
	if _, ds := grammar.LoadInventoryEntries([]grammar.InventoryFile{{File: "x.yaml", Data: []byte("nodes: 3\n")}}, grammar.DefaultLimits); !ds.HasErrors() {
		t.Error("nodes: 3 should be an error")
	}
}

func TestInventoryCPUs(t *testing.T) {
	for _, src := range []string{"nodes:\n  - cpus: -1\n    accelerators: 0\n", "nodes:\n  - cpus: many\n    accelerators: 0\n"} {
		if _, ds := grammar.LoadInventory("x.yaml", []byte(src), grammar.DefaultLimits); !ds.HasErrors() {
			t.Errorf("%q should be an error", src)
		}
	}
}

// FuzzInventoryDevices: device lists either load consistent (each index
// 0..count-1 once, peers existing other devices) or are refused.
func FuzzInventoryDevices(f *testing.F) {
	f.Add([]byte(nvmlNode))
	f.Add([]byte("nodes:\n  - accelerators: 2\n    devices: [{nvlink: [1]}, {index: 1, nvlink: []}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := grammar.DefaultLimits
		lim.MaxClusterNodes = 64
		inv, ds := grammar.LoadInventory("fuzz.yaml", data, lim)
		if inv == nil {
			return
		}
		if ds.HasErrors() {
			t.Fatalf("an inventory despite errors: %s", diagText(ds))
		}
		for _, n := range inv.Nodes {
			if len(n.Devices) == 0 {
				continue
			}
			seen := map[int]bool{}
			for _, dv := range n.Devices {
				if dv.Index < 0 || dv.Index >= n.AccelCount || seen[dv.Index] {
					t.Fatalf("device index %d of %d", dv.Index, n.AccelCount)
				}
				seen[dv.Index] = true
				for _, p := range dv.NVLinkPeers {
					if p < 0 || p >= n.AccelCount || p == dv.Index {
						t.Fatalf("peer %d of device %d", p, dv.Index)
					}
				}
			}
		}
	})
}
