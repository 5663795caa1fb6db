package grammar

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
)

// composedLimit is the most configs one defaults tree may compose. Every
// entry of every defaults list is expanded where it is written, so two
// entries naming a config that names two more double the tree with each
// file: 16 tiny files compose 65,536 configs. The count is taken as the
// tree grows, before the configs are merged.
func (c *composer) composedLimit() int {
	if n := c.repo.opt.Limits.MaxComposedConfigs; n > 0 {
		return n
	}
	return DefaultLimits.MaxComposedConfigs
}

// admit counts one more composed config and reports whether composition
// goes on; past the limit it records one located error and stops the tree.
func (c *composer) admit(t *tree) bool {
	if c.stopped {
		return false
	}
	c.composed++
	if c.composed <= c.composedLimit() {
		return true
	}
	c.stopped = true
	diag := yamlpos.Limit{What: "the configs the defaults lists compose", Max: c.composedLimit(), Unit: " configs"}.Diagnostic(t.node.span, "composed config over the limit")
	diag.Why = "each defaults entry composes its config again wherever it is listed, so configs that list the same config twice double the composition with every level"
	c.d.Record(nil, diag)
	return false
}

// cycle reports a config that is its own ancestor in the defaults tree,
// naming the chain with where each link is written. Hydra recurses into
// such a list until Python's recursion limit.
func (c *composer) cycle(t *tree) bool {
	path := t.node.configPath()
	var chain []*tree
	for p := t; p != nil; p = p.parent {
		chain = append(chain, p)
		if p != t && p.node.configPath() == path {
			c.d.Errorf(model.CodeDefaultsConflict, t.node.span, "closes a cycle",
				"the defaults lists form a cycle: %s", describeCycle(chain)).Help =
				[]model.Fix{{Message: fmt.Sprintf("remove `%s` from one of these defaults lists", t.node.describe())}}
			return true
		}
	}
	return false
}

// describeCycle writes a chain (innermost first) as `a -> b (a.yaml:2) ->
// a (b.yaml:2)`, each link with the file and line of the entry naming it.
func describeCycle(chain []*tree) string {
	parts := make([]string, 0, len(chain))
	for i := len(chain) - 1; i >= 0; i-- {
		n := chain[i].node
		s := n.configPath()
		if chain[i].parent != nil { // the primary config is named by the command line
			s += fmt.Sprintf(" (%s:%d)", filepath.Base(n.span.File), n.span.Line)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " -> ")
}
