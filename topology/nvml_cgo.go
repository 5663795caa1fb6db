//go:build cgo && nvml

package topology

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// NVMLAvailable is true when this binary was built with NVML support (cgo
// and the nvml tag).
const NVMLAvailable = true

// OpenNVML returns the system's NVML (libnvidia-ml.so.1, or the file
// $RLSOLVE_NVML_LIBRARY names), loaded on Init.
func OpenNVML() NVMLLibrary {
	if path := os.Getenv(NVMLLibraryEnv); path != "" {
		return &goNVML{lib: nvml.New(nvml.WithLibraryPath(path)), name: path}
	}
	return WrapNVML(nvml.New())
}

// WrapNVML adapts a go-nvml Interface (the real library or one of its
// mocks) to NVMLLibrary, refusing every call until Init has succeeded.
func WrapNVML(lib nvml.Interface) NVMLLibrary { return &goNVML{lib: lib, name: defaultNVMLLibrary} }

type goNVML struct {
	lib  nvml.Interface
	name string // the library file, for messages
	// ready is set by a successful Init: go-nvml ends the process on any
	// call made after a failed one, so nothing else runs without it.
	ready bool
}

var errNotInitialized = errors.New("NVML is not initialized")

func (g *goNVML) Init() error {
	if g.lib == nil {
		return fmt.Errorf("%w: no NVML library", ErrNoNVML)
	}
	ret := g.lib.Init()
	switch ret {
	case nvml.SUCCESS:
		g.ready = true
		return nil
	case nvml.ERROR_LIBRARY_NOT_FOUND:
		return fmt.Errorf("%w: %s could not be loaded (no NVIDIA driver on this machine?)", ErrNoNVML, g.name)
	case nvml.ERROR_DRIVER_NOT_LOADED:
		return fmt.Errorf("%w: %s is installed but the NVIDIA driver is not loaded", ErrNoNVML, g.name)
	case nvml.ERROR_NO_PERMISSION:
		return fmt.Errorf("%w: no permission to use the NVIDIA driver (%s)", ErrNoNVML, g.name)
	}
	return fmt.Errorf("%w: initializing %s failed: %s", ErrNoNVML, g.name, retName(ret))
}

func (g *goNVML) Shutdown() error {
	if !g.ready {
		return nil
	}
	g.ready = false
	return check(g.lib.Shutdown())
}

func (g *goNVML) DeviceCount() (int, error) {
	if !g.ready {
		return 0, errNotInitialized
	}
	n, ret := g.lib.DeviceGetCount()
	return n, check(ret)
}

func (g *goNVML) Device(i int) (NVMLDevice, error) {
	if !g.ready {
		return nil, errNotInitialized
	}
	d, ret := g.lib.DeviceGetHandleByIndex(i)
	if err := check(ret); err != nil {
		return nil, err
	}
	if d == nil {
		return nil, fmt.Errorf("no handle for device %d", i)
	}
	return &goDevice{g: g, d: d}, nil
}

type goDevice struct {
	g *goNVML
	d nvml.Device
}

func (d *goDevice) ready() error {
	if !d.g.ready {
		return errNotInitialized
	}
	return nil
}

func (d *goDevice) UUID() (string, error) {
	if err := d.ready(); err != nil {
		return "", err
	}
	s, ret := d.d.GetUUID()
	return s, check(ret)
}

func (d *goDevice) Name() (string, error) {
	if err := d.ready(); err != nil {
		return "", err
	}
	s, ret := d.d.GetName()
	return s, check(ret)
}

func (d *goDevice) MemoryBytes() (uint64, error) {
	if err := d.ready(); err != nil {
		return 0, err
	}
	m, ret := d.d.GetMemoryInfo()
	return m.Total, check(ret)
}

func (d *goDevice) PCIBusID() (string, error) {
	if err := d.ready(); err != nil {
		return "", err
	}
	p, ret := d.d.GetPciInfo()
	if err := check(ret); err != nil {
		return "", err
	}
	return busID(p), nil
}

func (d *goDevice) CPUAffinity() ([]uint64, error) {
	if err := d.ready(); err != nil {
		return nil, err
	}
	// go-nvml sizes the set as (n-1)/8+1 words: 1024 asks for 128 words,
	// 8192 CPUs.
	words, ret := d.d.GetCpuAffinity(1024)
	if err := check(ret); err != nil {
		return nil, err
	}
	out := make([]uint64, len(words))
	for i, w := range words {
		out[i] = uint64(w)
	}
	return out, nil
}

func (d *goDevice) NVLinks() ([]NVLink, error) {
	if err := d.ready(); err != nil {
		return nil, err
	}
	var out []NVLink
	for link := 0; link < nvml.NVLINK_MAX_LINKS; link++ {
		state, ret := d.d.GetNvLinkState(link)
		switch ret {
		case nvml.SUCCESS:
		case nvml.ERROR_NOT_SUPPORTED, nvml.ERROR_INVALID_ARGUMENT:
			// No NVLink on this GPU, or no more links.
			return out, nil
		default:
			continue
		}
		if state != nvml.FEATURE_ENABLED {
			continue
		}
		p, ret := d.d.GetNvLinkRemotePciInfo(link)
		if ret != nvml.SUCCESS {
			continue
		}
		out = append(out, NVLink{Link: link, RemoteBusID: busID(p)})
	}
	return out, nil
}

// busID reads the bus id string NVML fills in, or builds it from the
// numeric fields when the string is empty.
func busID(p nvml.PciInfo) string {
	var b strings.Builder
	for _, c := range p.BusId {
		if c == 0 {
			break
		}
		b.WriteByte(byte(c))
	}
	if b.Len() > 0 {
		return b.String()
	}
	for _, c := range p.BusIdLegacy {
		if c == 0 {
			break
		}
		b.WriteByte(byte(c))
	}
	if b.Len() > 0 {
		return b.String()
	}
	return fmt.Sprintf("%08X:%02X:%02X.0", p.Domain, p.Bus, p.Device)
}

func check(ret nvml.Return) error {
	if ret == nvml.SUCCESS {
		return nil
	}
	return errors.New(retName(ret))
}

// retName names a return code without asking the library (which may not
// be usable when the code is an Init failure).
func retName(ret nvml.Return) string {
	switch ret {
	case nvml.ERROR_UNINITIALIZED:
		return "NVML is not initialized"
	case nvml.ERROR_INVALID_ARGUMENT:
		return "invalid argument"
	case nvml.ERROR_NOT_SUPPORTED:
		return "not supported on this device"
	case nvml.ERROR_NO_PERMISSION:
		return "no permission"
	case nvml.ERROR_NOT_FOUND:
		return "not found"
	case nvml.ERROR_GPU_IS_LOST:
		return "the GPU has fallen off the bus or is otherwise inaccessible"
	case nvml.ERROR_LIB_RM_VERSION_MISMATCH:
		return "the NVML library and the kernel driver have different versions"
	case nvml.ERROR_TIMEOUT:
		return "timeout"
	}
	return fmt.Sprintf("NVML error %d", int32(ret))
}
