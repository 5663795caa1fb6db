package model

// Codes of `rlsolve launch` (E09: what a backend needs beyond a valid plan).
const (
	CodeLaunchNoHost   = "RLS-E0901" // the Slurm backend needs the node's Slurm host name
	CodeLaunchRayNodes = "RLS-E0902" // the Ray cluster's live nodes are not the plan's
)
