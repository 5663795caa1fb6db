package model

// Codes of `rlsolve suggest` (E08: the placement suggester's inputs and
// results).
const (
	CodeSuggestProfile  = "RLS-E0801" // profile_data missing, incomplete or not seconds
	CodeSuggestBatch    = "RLS-E0802" // batch or environment settings the cost model needs are missing or invalid
	CodeSuggestNone     = "RLS-E0803" // no valid placement of the GPUs under the cost model
	CodeSuggestProfiled = "RLS-E0804" // the profiled placement cannot be read back (parallel sizes larger than it)
)
