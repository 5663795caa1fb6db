package pipeline

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/model"
)

// The check command's flow over several inputs: folders expanded, each
// config checked (or fixed) once, every outcome written in one format.

// ExpandDirs replaces each folder among files by the configs in it
// (ConfigsIn), saying on log how many and which it skipped (nil: quiet).
// Its errors are usage errors.
func ExpandDirs(files []string, log io.Writer) ([]string, error) {
	var out []string
	for _, a := range files {
		if st, err := os.Stat(a); err != nil || !st.IsDir() {
			out = append(out, a)
			continue
		}
		configs, skipped, err := ConfigsIn(a)
		if err != nil {
			return nil, err
		}
		if len(configs) == 0 {
			return nil, fmt.Errorf("%s holds no *.yaml or *.yml config to check", a)
		}
		if log != nil {
			note := ""
			if len(skipped) > 0 {
				note = fmt.Sprintf("; %d inventory file(s) left out: %s", len(skipped), strings.Join(skipped, ", "))
			}
			fmt.Fprintf(log, "%s: checking %d config(s), its *.yaml and *.yml by name%s\n", diag.Printable(a), len(configs), diag.Printable(note))
		}
		out = append(out, configs...)
	}
	return out, nil
}

// StdinOnce refuses two inputs from standard input: FILE - and --slime @-.
func StdinOnce(files []string, slime string) error {
	n := 0
	for _, f := range files {
		if f == "-" {
			n++
		}
	}
	if slime == "-" || slime == "@-" {
		n++
	}
	if n > 1 {
		return fmt.Errorf("standard input can be read once: give - as one FILE or as --slime @-, not both")
	}
	return nil
}

// CheckAll checks every file (none: the slime command alone), each read
// once, adding what they read to src for code frames.
func CheckAll(files []string, slimeCommand string, opt Options, src diag.Sources) []*Outcome {
	if len(files) == 0 {
		files = []string{""}
	}
	var outs []*Outcome
	for _, f := range files {
		o, _ := Check(f, slimeCommand, opt)
		o.AddSources(src)
		outs = append(outs, o)
	}
	return outs
}

// AddSources adds the inputs o read to src, for code frames.
func (o *Outcome) AddSources(src diag.Sources) {
	for name, text := range o.Sources {
		src.Files[name] = text
	}
}

// FixAll runs check --fix on every file: the fixes written (or, with
// fo.Diff, the diff on out), each said on log, and the outcomes of the
// files as they are now. An error is a usage error (exit 2).
func FixAll(files []string, opt Options, fo FixOptions, out, log io.Writer) ([]*Outcome, error) {
	var outs []*Outcome
	for _, f := range files {
		rep, err := FixFile(f, "", opt, fo)
		verb := "fixed"
		if fo.Diff {
			verb = "would fix"
			fmt.Fprint(out, rep.Diff)
		}
		for _, a := range rep.Applied {
			fmt.Fprintf(log, "%s %s[%s] at %s: %s\n", verb, a.Diagnostic.Severity, a.Diagnostic.Code, a.Diagnostic.Primary, a.Fix.Message)
		}
		for _, s := range rep.Skipped {
			fmt.Fprintf(log, "not fixed: %s\n", s)
		}
		if err != nil {
			return nil, fmt.Errorf("--fix: %v", err)
		}
		outs = append(outs, rep.Final)
	}
	return outs, nil
}

// CheckOutput is how WriteCheck writes outcomes.
type CheckOutput struct {
	Format         string // text, short, json or sarif
	Quiet          bool   // text: a valid input's summary left out
	Color          bool
	ToolVersion    string // SARIF's
	Stdout, Stderr io.Writer
}

// WriteCheck writes the outcomes of check: code frames and summaries on
// stderr (text), or one document on stdout.
func WriteCheck(outs []*Outcome, src diag.Sources, w CheckOutput) error {
	var all model.Diagnostics
	for _, o := range outs {
		all = append(all, o.Diagnostics...)
	}
	switch w.Format {
	case "text":
		for _, o := range outs {
			diag.Text(w.Stderr, o.Diagnostics, src, w.Color)
			if !w.Quiet || o.Failed() {
				diag.SummaryAllowed(w.Stderr, o.Diagnostics, o.File, o.Allowed)
			}
		}
	case "short":
		// On stdout, so `check *.yaml -o short | grep CODE` works; the
		// total tells a clean run from no output at all.
		var allowed []string
		for _, o := range outs {
			allowed = append(allowed, o.Allowed...)
		}
		diag.Short(w.Stdout, all)
		diag.ShortTotal(w.Stdout, all, len(outs), allowed)
	case "json":
		valid := true
		for _, o := range outs {
			valid = valid && !o.Failed()
		}
		return diag.WriteCheckEnvelope(w.Stdout, valid, all)
	case "sarif":
		return diag.SARIF(w.Stdout, all, w.ToolVersion)
	}
	return nil
}
