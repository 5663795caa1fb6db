package rules

import (
	"fmt"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

var ruleNeedsSolve = &Rule{Name: "a placement, not a requirement", Codes: []string{model.CodeNeedsSolve}}

// needsSolve refuses requirements where a placement is needed: check and
// plan judge placements; solve turns requirements into them.
func (b *builder) needsSolve() {
	var names []string
	var first *model.ComponentEntry
	for i := range b.cfg.Components {
		if e := &b.cfg.Components[i]; e.Requirement != nil {
			if first == nil {
				first = e
			}
			names = append(names, strings.Join(e.Names, ","))
		}
	}
	if first == nil {
		return
	}
	file := first.Requirement.Span.File
	summary := "%s states what it needs, not where it goes; run `rlsolve solve %s` to place it"
	if len(names) > 1 {
		summary = "%s state what they need, not where they go; run `rlsolve solve %s` to place them"
	}
	b.always(ruleNeedsSolve, &Violation{Code: model.CodeNeedsSolve, Else: first.Requirement.Span, ElseLabel: "a requirement, not a placement",
		Summary: fmt.Sprintf(summary, strings.Join(names, ", "), file),
		Why:     "check and plan judge placement strings as RLinf reads them; RLinf cannot read a requirement. solve chooses the devices and writes the placement strings."})
}
