package model

// Codes of `rlsolve solve` (E11, N11): components that state what they need
// (a requirement) instead of where they go.
const (
	CodeNeedsSolve         = "RLS-E1101" // a requirement where check and plan need a placement: run solve
	CodeRequirementInvalid = "RLS-E1102" // a requirement's keys contradict each other, name what does not exist, or cannot be replaced where written
	CodeUnplaceable        = "RLS-E1103" // no placement satisfies these requirements and cluster facts together
	CodeUnknownNode        = "RLS-E1104" // --without-node names a node the cluster does not have

	NoteSolveBound = "RLS-N1101" // the solver's budget ended the search for a better placement
)
