//go:build !cgo

package topology

import "fmt"

// NVMLAvailable is false: this binary was built with CGO_ENABLED=0, which
// go-nvml needs.
const NVMLAvailable = false

// OpenNVML returns a library whose Init reports that NVML is not built in.
func OpenNVML() NVMLLibrary { return noNVML{} }

type noNVML struct{}

func (noNVML) Init() error {
	return fmt.Errorf("%w: this rlsolve was built without cgo, so it cannot load libnvidia-ml.so.1 (rebuild with CGO_ENABLED=1)", ErrNoNVML)
}
func (noNVML) Shutdown() error           { return nil }
func (noNVML) DeviceCount() (int, error) { return 0, fmt.Errorf("%w: not initialized", ErrNoNVML) }
func (noNVML) Device(int) (NVMLDevice, error) {
	return nil, fmt.Errorf("%w: not initialized", ErrNoNVML)
}
