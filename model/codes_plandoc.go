package model

// Codes of plan documents read back (E013x): `rlsolve plan --diff` and
// `solve --from` read what `rlsolve plan --output json` wrote.
const (
	CodePlanDocument = "RLS-E0130" // a plan document that cannot be read: invalid JSON, another format_version, inconsistent records
)
