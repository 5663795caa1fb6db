package main

import (
	"os"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
)

// report ends a command on diagnostics: code frames on stderr, the summary
// line for file (allowed: the codes the policy dropped), and code as the
// exit status (nil for exitOK).
func report(ds model.Diagnostics, src diag.Sources, file string, allowed []string, code int) error {
	diag.Text(os.Stderr, ds, src, useColor())
	diag.SummaryAllowed(os.Stderr, ds, file, allowed)
	if code == exitOK {
		return nil
	}
	return &exitError{code: code}
}

// reportOutcome ends a command on a checked input: its diagnostics, and
// the exit status its outcome calls for.
func reportOutcome(o *pipeline.Outcome, src diag.Sources) error {
	return report(o.Diagnostics, src, o.File, o.Allowed, outcomeCode(o))
}

// outcomeCode is the exit status of one checked input.
func outcomeCode(o *pipeline.Outcome) int {
	switch {
	case o.Budget || o.Internal:
		return exitInternal
	case o.IOError:
		return exitUsage
	case o.Failed():
		return exitInvalid
	}
	return exitOK
}

// exitFor is the exit status of several checked inputs: the worst.
func exitFor(outcomes []*pipeline.Outcome) error {
	code := exitOK
	for _, o := range outcomes {
		code = max(code, outcomeCode(o))
	}
	if code == exitOK {
		return nil
	}
	return &exitError{code: code}
}

// colorMode is the root's --color (diag.ColorModes).
var colorMode = "auto"

// useColor is diag.UseColor for --color and stderr.
func useColor() bool {
	st, err := os.Stderr.Stat()
	return diag.UseColor(colorMode, os.LookupEnv, err == nil && st.Mode()&os.ModeCharDevice != 0)
}
