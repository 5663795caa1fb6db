package model

// Default hardware types of RLinf's scheduler.
const (
	HardwareAccelerator = "Accelerator"
	AccelNone           = "NO_ACCEL"
	AccelNVGPU          = "NV_GPU"
)

// RobotTypes are the robot hardware types RLinf registers (case-sensitive).
var RobotTypes = []string{"DOSW1", "DualFranka", "Franka", "GimArm", "Turtle2"}

// Inventory is the hardware that exists: one Node per node rank, in rank order.
type Inventory struct {
	Nodes []Node
	// Source says where the inventory came from (a file, a flag, a default).
	Source string
	// Assumed is true when no inventory was given and rlsolve assumed one.
	Assumed bool
	// RLinfRanks is true when every node's rank is the RLINF_NODE_RANK its
	// Ray node carries (a Ray import that read them), so RLinf numbers the
	// nodes exactly so and the IP-order warning does not apply.
	RLinfRanks bool
	Span       Span
}

// Node is one machine.
type Node struct {
	Rank     int
	Hostname string
	IP       string
	// AccelType is the accelerator type (NV_GPU, AMD_GPU, ...); "" or
	// NO_ACCEL when the node has none.
	AccelType  string
	AccelModel string
	AccelCount int
	MemoryGiB  float64
	// CPUs is the node's CPU count when discovery knows it (0: unknown).
	CPUs int
	// Devices describes accelerators individually when discovery knows them.
	Devices []Device
	// Hardware counts robots by type (Franka: 2).
	Hardware map[string]int
	// Down is true when the inventory reports the node unusable (a Ray
	// node that is not alive, a Slurm node down or drained): solve places
	// nothing on it.
	Down bool
	Span Span
}

// Device is one accelerator as discovery reports it.
type Device struct {
	Index     int
	UUID      string
	Name      string
	PCIBusID  string
	MemoryMiB int
	// NUMANode is the device's NUMA node, -1 when unknown.
	NUMANode int
	// NVLinkPeers lists device indices reachable over NVLink.
	NVLinkPeers []int
	// NVLinkKnown is true when the inventory says which devices the device
	// reaches over NVLink (an empty NVLinkPeers then means none).
	NVLinkKnown bool
}

// AcceleratorType returns RLinf's accelerator type string of the node.
func (n *Node) AcceleratorType() string {
	if n.AccelCount == 0 {
		return AccelNone
	}
	if n.AccelType == "" {
		return AccelNVGPU
	}
	return n.AccelType
}

// AcceleratorModel returns RLinf's ACCELERATOR_MODEL: "TYPE:model".
func (n *Node) AcceleratorModel() string {
	if n.AccelCount == 0 {
		return ""
	}
	m := n.AccelModel
	if m == "" {
		m = "unknown"
	}
	return n.AcceleratorType() + ":" + m
}

// Count returns how many resources of hardware type t the node has.
func (n *Node) Count(t string) int {
	if t == HardwareAccelerator {
		return n.AccelCount
	}
	return n.Hardware[t]
}
