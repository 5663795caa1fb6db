package grammar

import (
	"unicode"
	"unicode/utf8"

	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// controlFree refuses an inventory whose keys or values hold a control
// character (NUL, a line break, an escape, DEL, C1): every name rlsolve
// reads from an inventory (host names and host lists, addresses,
// accelerator models, hardware and device names) is printed in plans and
// handed to launchers, where a newline forges a line and an escape drives
// the terminal. YAML writes them only in double quotes ("a\nb", "\0").
func (d *doc) controlFree(n *yaml.Node, depth int) bool {
	if n == nil || depth > d.limits.MaxDepth {
		return true
	}
	if n.Kind == yaml.ScalarNode {
		for i, r := range n.Value {
			if unicode.IsControl(r) {
				at := d.Span(n)
				if !yamlpos.Quoted(n) && at.Line > 0 {
					at.Col += i
					at.EndLine, at.EndCol = at.Line, at.Col+utf8.RuneLen(r)
				}
				d.Errorf(model.CodeInvalidValue, at, "control character", "the inventory value %q holds the control character U+%04X", n.Value, r).Help =
					[]model.Fix{{Message: "names in an inventory are printed and passed to launchers: write them without control characters"}}
				return false
			}
		}
	}
	for _, c := range n.Content {
		if !d.controlFree(c, depth+1) {
			return false
		}
	}
	return true
}
