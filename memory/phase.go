package memory

import (
	"encoding/json"
	"fmt"
)

// Phase is a step of an RL iteration during which what is resident on a
// GPU stays the same (spec/memory.md §4.1). Collocated components
// time-share a GPU, so memory is summed per phase, never over all phases.
type Phase int

const (
	PhaseInit       Phase = iota // each worker's start, in start order
	PhaseRollout                 // generation by the rollout engine
	PhaseLogprob                 // log-prob inference (recompute, reference)
	PhaseTrain                   // the training step
	PhaseWeightSync              // actor weights sent to the rollout engine
	NumPhases
)

var phaseNames = [NumPhases]string{"init", "rollout", "logprob", "train", "weight_sync"}

func (p Phase) String() string {
	if p < 0 || p >= NumPhases {
		return "phase?"
	}
	return phaseNames[p]
}

// MarshalJSON writes the phase's name.
func (p Phase) MarshalJSON() ([]byte, error) { return json.Marshal(p.String()) }

// UnmarshalJSON reads a phase's name, as a plan document read back has it.
func (p *Phase) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err != nil {
		return err
	}
	for i, n := range phaseNames {
		if n == name {
			*p = Phase(i)
			return nil
		}
	}
	return fmt.Errorf("unknown memory phase %q", name)
}

// Kind says what a number is; the state kinds are exact bookkeeping, the
// others estimates.
type Kind string

const (
	KindWeights     Kind = "weights"
	KindGradients   Kind = "gradients"
	KindOptimizer   Kind = "optimizer"
	KindActivations Kind = "activations"
	KindLogits      Kind = "logits"
	KindBudget      Kind = "engine budget" // SGLang/vLLM memory reserved by fraction
	KindEngineWork  Kind = "engine activations"
	KindGraphs      Kind = "cuda graphs"
	KindContext     Kind = "cuda context"
	KindNCCL        Kind = "nccl"
	KindBucket      Kind = "weight-sync bucket"
	KindProfiled    Kind = "profiled"
)

// IsState reports whether the kind is model state: weights, gradients or
// optimizer, which a run cannot do without (offload aside).
func (k Kind) IsState() bool { return k == KindWeights || k == KindGradients || k == KindOptimizer }

// Part is one number with what it is and where it comes from (the formula
// and the settings), for the plan's memory table and its JSON sources.
type Part struct {
	Component string `json:"component,omitempty"`
	Kind      Kind   `json:"kind"`
	Bytes     int64  `json:"bytes"`
	Source    string `json:"source"`
	// tokens is a logits spike's micro-batch, for its warning.
	tokens int64
}

// Usage is what one worker (or one GPU) holds during a phase.
type Usage []Part

// Total sums the parts.
func (u Usage) Total() int64 {
	var n int64
	for _, p := range u {
		n += p.Bytes
	}
	return n
}

// State sums the model-state parts.
func (u Usage) State() int64 {
	var n int64
	for _, p := range u {
		if p.Kind.IsState() {
			n += p.Bytes
		}
	}
	return n
}

// with returns the usage with each part labelled by component.
func (u Usage) with(component string) Usage {
	out := make(Usage, len(u))
	for i, p := range u {
		p.Component = component
		out[i] = p
	}
	return out
}

func part(k Kind, bytes float64, source string) Part {
	return Part{Kind: k, Bytes: clampBytes(bytes), Source: source}
}

// clampBytes turns a float byte count into an int64, with NaN and negative
// values as 0 and absurd ones capped (a config can ask for anything).
func clampBytes(bytes float64) int64 {
	switch {
	case !(bytes > 0):
		return 0
	case bytes > maxBytes:
		return maxBytes
	}
	return int64(bytes)
}

// maxBytes caps every number (4 PiB: more than any GPU, and far from
// overflow when thousands are summed).
const maxBytes = 1 << 52
