package model

// Codes of GPU memory (E10, W10, N10): will each GPU hold what is placed on
// it (spec/memory.md). Errors only where the run cannot work; estimates that
// depend on activations are warnings.
const (
	CodeMemoryState     = "RLS-E1001" // weights, gradients and optimizer state alone exceed a GPU
	CodeMemoryPool      = "RLS-E1002" // SGLang's KV pool would be empty or negative
	CodeMemoryVLLMInit  = "RLS-E1003" // vLLM's budget exceeds the free memory at its start
	CodeMemoryFractions = "RLS-E1004" // engine fractions on one GPU sum over 1 while both are resident
	CodeMemoryKVSeq     = "RLS-E1005" // the KV pool holds less than one sequence
	CodeMemoryInput     = "RLS-E1006" // a model config.json or memory profile that cannot be used

	WarnMemoryPeak     = "RLS-W1001" // the estimated peak of a phase exceeds the GPU
	WarnMemoryHeadroom = "RLS-W1002" // thin headroom in a phase
	WarnMemoryLogits   = "RLS-W1003" // the worst-case logits spike exceeds the headroom

	NoteMemoryUnchecked = "RLS-N1001" // memory not checked (no memory_gib, or the model is unknown)
	NoteMemoryArch      = "RLS-N1002" // where the model's architecture came from
)
