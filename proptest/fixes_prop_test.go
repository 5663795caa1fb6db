package proptest

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/rlsolve/rlsolve/internal/textedit"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
)

// TestPropFixesAddNoError: every fix check offers on a generated config,
// for every code that offers fixes, removes its error and adds none (by
// code: fewer of its own, no more of any other)
// (issue 25 item 6: TP 3 on 128 GPUs was offered 129 GPUs, past the last).
func TestPropFixesAddNoError(t *testing.T) {
	applied := map[string]int{}
	props := gopter.NewProperties(propParams(t))
	props.Property("offered fixes add no error", prop.ForAll(func(s ptSpec) string {
		c := ptRender(s)
		opt := pipeline.Options{Inventory: c.Inv, GPUsPerNode: -1, Class: c.Mode}
		ds := pipeline.CheckBytes("gen.yaml", []byte(c.YAML), opt).Diagnostics
		had := pipeline.ErrorCounts(ds)
		for _, d := range ds {
			if d.Severity != model.SeverityError {
				continue
			}
			for _, f := range d.Help {
				if len(f.Edits) == 0 {
					continue
				}
				text, err := textedit.Apply([]byte(c.YAML), f.Edits)
				if err != nil {
					return fmt.Sprintf("the fix %q for %s does not apply: %v\n%s", f.Message, d.Code, err, c.YAML)
				}
				applied[d.Code]++
				after := pipeline.ErrorCounts(pipeline.CheckBytes("gen.yaml", text, opt).Diagnostics)
				if why := pipeline.FixAdds(d.Code, had, after); why != "" {
					return fmt.Sprintf("the fix %q for %s %s\n--- config\n%s--- fixed\n%s", f.Message, d.Code, why, c.YAML, text)
				}
			}
		}
		return ""
	}, ptGenAny()))
	propRun(t, props)
	var codes []string
	for c, n := range applied {
		codes = append(codes, fmt.Sprintf("%s x%d", c, n))
	}
	sort.Strings(codes)
	t.Logf("fixes applied, by code: %s", strings.Join(codes, ", "))
	if len(applied) == 0 {
		t.Error("no generated config got a fix: the generator lost the errors that have them")
	}
}
