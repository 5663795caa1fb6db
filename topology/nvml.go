package topology

import (
	"errors"
	"fmt"
	"io/fs"
	"math/bits"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/internal/hostlist"
	"github.com/rlsolve/rlsolve/model"
)

// NVMLLibrary is the part of NVML that discovery uses, so that tests run
// the same code over a mock. Implementations must refuse every call but Init
// until Init has succeeded: with go-nvml, a call after a failed Init ends
// the process.
type NVMLLibrary interface {
	Init() error
	Shutdown() error
	DeviceCount() (int, error)
	Device(index int) (NVMLDevice, error)
}

// NVMLDevice is one GPU as NVML reports it.
type NVMLDevice interface {
	UUID() (string, error)
	Name() (string, error)
	// MemoryBytes is the total framebuffer memory.
	MemoryBytes() (uint64, error)
	// PCIBusID is NVML's bus id, e.g. "00000000:07:00.0".
	PCIBusID() (string, error)
	// CPUAffinity is the set of CPUs close to the GPU, as a bit mask in
	// 64-bit words (CPU i is bit i%64 of word i/64).
	CPUAffinity() ([]uint64, error)
	// NVLinks lists the device's links that are up, each with the PCI bus
	// id of what is at the other end (a GPU or an NVSwitch).
	NVLinks() ([]NVLink, error)
}

// NVLink is one active link.
type NVLink struct {
	Link        int
	RemoteBusID string
}

// NVMLLibraryEnv names an environment variable that points --nvml at a
// libnvidia-ml other than the system's libnvidia-ml.so.1 (a driver in a
// non-standard place).
const NVMLLibraryEnv = "RLSOLVE_NVML_LIBRARY"

const defaultNVMLLibrary = "libnvidia-ml.so.1"

// ErrNoNVML is returned (wrapped) when NVML cannot be used on this machine:
// no driver library, or a binary built without cgo.
var ErrNoNVML = errors.New("NVML is not available")

// NVMLOptions tune DiscoverNVML.
type NVMLOptions struct {
	// SysFS is the root of /sys, to find NUMA nodes (nil: the real one;
	// tests pass an fstest.MapFS).
	SysFS fs.FS
	// Hostname and IP describe the node; empty: leave them out.
	Hostname, IP string
}

// DiscoverNVML describes this node from NVML: GPU count, model, memory, and
// per device the UUID, PCI bus id, NUMA node and NVLink peers. No NVML call
// is made unless Init succeeds, and Shutdown always follows a successful Init.
func DiscoverNVML(lib NVMLLibrary, opt NVMLOptions) (node *model.Node, err error) {
	if lib == nil {
		return nil, fmt.Errorf("%w: no NVML library", ErrNoNVML)
	}
	if err := lib.Init(); err != nil {
		return nil, err
	}
	defer func() {
		if serr := lib.Shutdown(); serr != nil && err == nil {
			err = fmt.Errorf("NVML shutdown: %w", serr)
		}
	}()
	count, err := lib.DeviceCount()
	if err != nil {
		return nil, fmt.Errorf("NVML device count: %w", err)
	}
	if count < 0 || count > maxNodeDevices {
		return nil, fmt.Errorf("NVML reports %d devices", count)
	}
	sys := opt.SysFS
	if sys == nil {
		sys = os.DirFS("/sys")
	}
	node = &model.Node{Hostname: opt.Hostname, IP: opt.IP, AccelType: model.AccelNVGPU, AccelCount: count}
	links := make([][]NVLink, count)
	for i := 0; i < count; i++ {
		dev, err := lib.Device(i)
		if err != nil {
			return nil, fmt.Errorf("NVML device %d: %w", i, err)
		}
		dv := model.Device{Index: i, NUMANode: -1, NVLinkKnown: true, NVLinkPeers: []int{}}
		if dv.UUID, err = dev.UUID(); err != nil {
			return nil, fmt.Errorf("NVML device %d UUID: %w", i, err)
		}
		if dv.Name, err = dev.Name(); err != nil {
			return nil, fmt.Errorf("NVML device %d name: %w", i, err)
		}
		mem, err := dev.MemoryBytes()
		if err != nil {
			return nil, fmt.Errorf("NVML device %d memory: %w", i, err)
		}
		dv.MemoryMiB = int(mem >> 20)
		if dv.PCIBusID, err = dev.PCIBusID(); err != nil {
			return nil, fmt.Errorf("NVML device %d PCI info: %w", i, err)
		}
		dv.NUMANode = numaOf(sys, dv.PCIBusID, dev)
		if links[i], err = dev.NVLinks(); err != nil {
			return nil, fmt.Errorf("NVML device %d NVLink: %w", i, err)
		}
		node.Devices = append(node.Devices, dv)
	}
	nvlinkPeers(node.Devices, links)
	if count > 0 {
		node.AccelModel = strings.TrimPrefix(node.Devices[0].Name, "NVIDIA ")
		minMiB := node.Devices[0].MemoryMiB
		for _, dv := range node.Devices[1:] {
			minMiB = min(minMiB, dv.MemoryMiB)
			if dv.Name != node.Devices[0].Name {
				node.AccelModel = "mixed"
			}
		}
		node.MemoryGiB = float64(minMiB) / 1024
		node.MemoryGiB = float64(int(node.MemoryGiB*10+0.5)) / 10
	}
	return node, nil
}

// maxNodeDevices bounds what one node may report.
const maxNodeDevices = 1024

// nvlinkPeers fills NVLinkPeers: a link whose far end is another GPU of the
// node connects the two; GPUs whose links end at something else (NVSwitch
// ports) all reach each other through the switch fabric.
func nvlinkPeers(devs []model.Device, links [][]NVLink) {
	byBus := map[string]int{}
	for i, dv := range devs {
		byBus[canonicalBusID(dv.PCIBusID)] = i
	}
	peers := make([]map[int]bool, len(devs))
	for i := range peers {
		peers[i] = map[int]bool{}
	}
	switched := make([]bool, len(devs))
	for i := range devs {
		for _, l := range links[i] {
			j, isGPU := byBus[canonicalBusID(l.RemoteBusID)]
			switch {
			case isGPU && j != i:
				peers[i][j] = true
			case !isGPU:
				switched[i] = true
			}
		}
	}
	for i := range devs {
		for j := range devs {
			if i != j && switched[i] && switched[j] {
				peers[i][j] = true
			}
		}
	}
	// A link seen from one side only still connects both.
	for i := range devs {
		for j := range peers[i] {
			peers[j][i] = true
		}
	}
	for i := range devs {
		list := []int{}
		for j := range peers[i] {
			list = append(list, devs[j].Index)
		}
		sort.Ints(list)
		devs[i].NVLinkPeers = list
	}
}

// canonicalBusID turns NVML's "00000000:07:00.0" and sysfs's "0000:07:00.0"
// into one form: lower-case, 4-digit domain. Unparsable ids are returned
// lower-cased.
func canonicalBusID(id string) string {
	id = strings.ToLower(strings.TrimSpace(id))
	dom, rest, ok := strings.Cut(id, ":")
	if !ok || !strings.Contains(rest, ":") {
		if strings.Count(id, ":") == 1 { // "07:00.0": domain 0
			return "0000:" + id
		}
		return id
	}
	d, err := strconv.ParseUint(dom, 16, 32)
	if err != nil {
		return id
	}
	return fmt.Sprintf("%04x:%s", d, rest)
}

// numaOf finds the GPU's NUMA node: sysfs's numa_node for its PCI device,
// else the node whose CPUs hold the first CPU of NVML's CPU affinity; -1
// when neither says (GetNumaNodeId is not used: it only works where a GPU
// is its own NUMA node).
func numaOf(sys fs.FS, busID string, dev NVMLDevice) int {
	if b, err := fs.ReadFile(sys, "bus/pci/devices/"+canonicalBusID(busID)+"/numa_node"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n >= 0 {
			return n
		}
	}
	mask, err := dev.CPUAffinity()
	if err != nil {
		return -1
	}
	first := -1
	for w, word := range mask {
		if word != 0 {
			first = w*64 + bits.TrailingZeros64(word)
			break
		}
	}
	if first < 0 {
		return -1
	}
	nodes, err := fs.Glob(sys, "devices/system/node/node*/cpulist")
	if err != nil {
		return -1
	}
	for _, p := range nodes {
		b, err := fs.ReadFile(sys, p)
		if err != nil {
			continue
		}
		if hostlist.Contains(strings.TrimSpace(string(b)), first) {
			n, err := strconv.Atoi(strings.TrimPrefix(strings.Split(p, "/")[3], "node"))
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// NoDriverHelp is the advice printed when NVML cannot be loaded.
const NoDriverHelp = "describe the nodes with --gpus-per-node N or --inventory FILE instead, or run `rlsolve topology --nvml` on a GPU node"
