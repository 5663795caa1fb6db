package model

// Codes of Hydra composition (a config's `defaults:` list), command-line
// overrides, OmegaConf's mandatory values, and placeholder values (E012x,
// W012x, N012x).
const (
	CodeDefaultsEntry    = "RLS-E0120" // a defaults list or one of its entries is malformed
	CodeDefaultsNotFound = "RLS-E0121" // a config the defaults list (or an override) names does not exist
	CodeDefaultsConflict = "RLS-E0122" // composition fails: two choices for a group, an override with no target, a cycle
	CodeOverride         = "RLS-E0123" // a command-line override cannot be applied to the config
	CodeMandatoryMissing = "RLS-E0124" // `???` where a value is read (OmegaConf's mandatory value)

	WarnPlaceholder = "RLS-W0120" // a value is a placeholder (/path/to/python, /path/to/model)

	NoteSearchPath = "RLS-N0120" // a hydra.searchpath entry names an unset environment variable: rlsolve chose the folder
)
