// Package grammar reads rlsolve's inputs (RLinf configs, inventories, rank
// and placement strings) into the model, keeping every value's position.
package grammar

// Limits bound what an input can make rlsolve allocate. They are checked
// before anything proportional to a value is allocated.
type Limits struct {
	MaxFileBytes      int // size of one input file
	MaxDepth          int // YAML nesting depth
	MaxNodes          int // YAML nodes after alias expansion
	MaxClusterNodes   int // num_nodes and inventory nodes
	MaxRankValue      int // any single rank number
	MaxProcesses      int // processes of one component
	MaxTotalProcesses int // processes over all components
	MaxStringBytes    int // one scalar as written (a placement solve writes at 65,536 nodes can pass 64 KiB; 256 KiB of ranks cost about 300 MB)
	// MaxExpandedBytes bounds what a small input can multiply: a scalar
	// after interpolation and a slime command (0: as MaxStringBytes).
	MaxExpandedBytes int
	// MaxComposedConfigs bounds the configs one Hydra defaults tree
	// composes (each listing of a config composes it again).
	MaxComposedConfigs int
}

// DefaultLimits are generous for real clusters (RLinf's largest examples use
// 32 nodes) and small enough that nothing a config says can exhaust memory.
var DefaultLimits = Limits{
	MaxFileBytes:      16 << 20,
	MaxDepth:          64,
	MaxNodes:          2_000_000,
	MaxClusterNodes:   65_536,
	MaxRankValue:      100_000_000,
	MaxProcesses:      1 << 20,
	MaxTotalProcesses: 2 << 20,
	MaxStringBytes:    256 << 10,
	MaxExpandedBytes:  64 << 10,
	// RLinf's examples compose at most a few dozen configs.
	MaxComposedConfigs: 10_000,
}

// expanded is the bound on an interpolated scalar and a slime command.
func (l Limits) expanded() int { return l.yaml().Expanded() }
