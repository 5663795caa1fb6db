package model

// Codes of inventory discovery (`rlsolve topology`) and of what a discovered
// inventory adds to a check (E06 continued, W06).
const (
	CodeInventoryDuplicate = "RLS-E0603" // two node entries name the same rank, host name or GPU UUID
	CodeInventoryRankMix   = "RLS-E0604" // some merged nodes carry a rank and others do not
	CodeInventoryDevices   = "RLS-E0605" // a node's device list is inconsistent

	WarnTPNoNVLink     = "RLS-W0601" // a tensor-parallel group spans GPUs without NVLink between them
	WarnNodeOrderRLinf = "RLS-W0602" // rlsolve's node order differs from the one RLinf would use (D13)
)

// Codes of the live Ray inventory (`rlsolve topology --ray URL`).
const (
	WarnRayGPUsNVML = "RLS-W0603" // a node's Ray GPU resource differs from the GPUs NVML counts there
)
