//go:build !cgo || !nvml

package topology

import "fmt"

// NVMLAvailable is false: this binary was built without the nvml tag or
// with CGO_ENABLED=0. go-nvml is opt-in because compiling its C header
// prints ~150 lines of compiler warnings and doubles a cold build, which
// every user would pay for the one command that reads a GPU node.
const NVMLAvailable = false

// OpenNVML returns a library whose Init reports that NVML is not built in.
func OpenNVML() NVMLLibrary { return noNVML{} }

type noNVML struct{}

func (noNVML) Init() error {
	return fmt.Errorf("%w: this rlsolve was built without cgo or the nvml tag, so it cannot load libnvidia-ml.so.1 (rebuild with CGO_ENABLED=1 go build -tags nvml ./cmd/rlsolve)", ErrNoNVML)
}
func (noNVML) Shutdown() error           { return nil }
func (noNVML) DeviceCount() (int, error) { return 0, fmt.Errorf("%w: not initialized", ErrNoNVML) }
func (noNVML) Device(int) (NVMLDevice, error) {
	return nil, fmt.Errorf("%w: not initialized", ErrNoNVML)
}
