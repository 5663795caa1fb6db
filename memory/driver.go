package memory

import (
	"strconv"

	"github.com/rlsolve/rlsolve/model"
)

// Role is what a setting does to memory; fix candidates are chosen by role.
type Role string

const (
	RoleModel        Role = "model"            // the model path (its size)
	RoleTP           Role = "tp"               // trainer tensor parallel size
	RolePP           Role = "pp"               // trainer pipeline parallel size
	RoleCP           Role = "cp"               // trainer context parallel size
	RoleMicroBatch   Role = "micro_batch"      // sequences per training micro-batch
	RoleSeqLength    Role = "seq_length"       // tokens of one sequence
	RoleMaxTokens    Role = "max_tokens"       // tokens of a packed micro-batch
	RoleLogprobBatch Role = "logprob_batch"    // log-prob micro-batch
	RoleRecompute    Role = "recompute"        // activation recompute
	RoleDistOpt      Role = "dist_optimizer"   // Megatron's distributed optimizer
	RoleOffload      Role = "offload"          // a flag that moves gradients or optimizer off the GPU
	RoleOffloadWts   Role = "offload_weights"  // a flag that moves the weights off the GPU
	RoleOptOffload   Role = "optimizer_cpu"    // the optimizer kept on the CPU
	RoleSharding     Role = "sharding"         // FSDP sharding strategy
	RolePrecision    Role = "precision"        // the trainer's parameter precision
	RoleFraction     Role = "fraction"         // the engine's memory fraction
	RoleEngineTP     Role = "engine_tp"        // the engine's tensor parallel size
	RoleEngineOffld  Role = "engine_offload"   // the engine releasing its memory
	RoleRunningReqs  Role = "running_requests" // the engine's concurrent requests
)

// Driver is a setting that drives a worker's memory, located at its key.
type Driver struct {
	Role Role       `json:"role"`
	Key  string     `json:"key"`
	Span model.Span `json:"-"`
	// Value is the effective value as text; Set is false for a default.
	Value string `json:"value"`
	Set   bool   `json:"set"`
}

func intDriver(r Role, f model.IntFact) Driver {
	return Driver{Role: r, Key: f.Key, Span: f.Span, Value: strconv.Itoa(f.Value), Set: f.Set}
}

func boolDriver(r Role, f model.BoolFact) Driver {
	return Driver{Role: r, Key: f.Key, Span: f.Span, Value: strconv.FormatBool(f.Value), Set: f.Set}
}

func floatDriver(r Role, f model.FloatFact) Driver {
	return Driver{Role: r, Key: f.Key, Span: f.Span, Value: strconv.FormatFloat(f.Value, 'g', -1, 64), Set: f.Set}
}

func stringDriver(r Role, f model.StringFact) Driver {
	return Driver{Role: r, Key: f.Key, Span: f.Span, Value: f.Value, Set: f.Set}
}

// Drivers is a worker's list of drivers.
type Drivers []Driver

// ByRole returns the drivers of a role.
func (ds Drivers) ByRole(r Role) []Driver {
	var out []Driver
	for _, d := range ds {
		if d.Role == r {
			out = append(out, d)
		}
	}
	return out
}

// First returns the first driver of a role.
func (ds Drivers) First(r Role) (Driver, bool) {
	for _, d := range ds {
		if d.Role == r {
			return d, true
		}
	}
	return Driver{}, false
}
