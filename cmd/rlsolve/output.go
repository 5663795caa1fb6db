package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlsolve/rlsolve/render"
	"github.com/rlsolve/rlsolve/topology"
)

// The --output formats of each command, its default first: the flag's
// help, its completion and its check read the same list.
var (
	checkOutputs = []string{"text", "short", "json", "sarif"}
	planOutputs  = formatNames(render.FormatTable, render.FormatJSON, render.FormatYAML, render.FormatEnv,
		render.FormatSVG, render.FormatHTML)
	slimeOutputs    = planOutputs[:4:4] // the pictures draw RLinf layouts
	diffOutputs     = formatNames(render.FormatTable, render.FormatJSON)
	suggestOutputs  = []string{"text", "yaml", "json"}
	solveOutputs    = []string{"yaml", "json", "plan"} // the config, its placements, its plan
	topologyOutputs = []string{topology.FormatYAML, topology.FormatJSON}
)

func formatNames(fs ...render.Format) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = string(f)
	}
	return out
}

// checkOutput is the one check of an --output value: one of formats,
// which for (when set) names what the list is for.
func checkOutput(output string, formats []string, usedFor string) error {
	if slices.Contains(formats, output) {
		return nil
	}
	if usedFor != "" {
		usedFor = " for " + usedFor
	}
	return usageErrorf("--output must be %s%s, not %q", orList(formats), usedFor, output)
}

// outputHelp is the --output flag's help.
func outputHelp(formats []string) string {
	return "output format: " + orList(formats)
}

// orList is "a, b or c".
func orList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return fmt.Sprintf("%s or %s", strings.Join(xs[:len(xs)-1], ", "), xs[len(xs)-1])
}
