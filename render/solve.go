package render

import (
	"encoding/json"
	"io"
)

// SolveDocument is `rlsolve solve --output json`: the objective, its value
// and each component's placement as written back, with the node groups it
// counts in where it has any.
type SolveDocument struct {
	FormatVersion string  `json:"format_version"`
	Objective     string  `json:"objective"`
	Value         float64 `json:"value"`
	// Optimal is false when the solver's budget ended the search.
	Optimal    bool                `json:"optimal"`
	Components map[string]string   `json:"components"`
	NodeGroups map[string][]string `json:"node_groups"`
}

// WriteSolveJSON writes the document, indented, with a final newline.
func WriteSolveJSON(w io.Writer, d *SolveDocument) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}
