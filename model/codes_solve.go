package model

// Codes of `rlsolve solve` (E11, N11): components that state what they need
// (a requirement) instead of where they go.
const (
	CodeNeedsSolve          = "RLS-E1101" // a requirement where check and plan need a placement: run solve
	CodeRequirementInvalid  = "RLS-E1102" // a requirement's own keys cannot be read together
	CodeUnplaceable         = "RLS-E1103" // no placement satisfies these requirements and cluster facts together
	CodeRequirementConflict = "RLS-E1104" // requirements contradict each other, name what does not exist, or there are none
	CodeSolvedRefused       = "RLS-E1105" // check refuses the file with the placements solve chose
	CodeUnknownNode         = "RLS-E1106" // --without-node names a node the cluster does not have
	CodeWriteBackLayout     = "RLS-E1107" // a requirement written where solve cannot put its placement

	NoteSolveBound = "RLS-N1101" // the solver's budget ended the search for a better placement
)
