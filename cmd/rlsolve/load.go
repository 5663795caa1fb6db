package main

import (
	"fmt"
	"os"
	"sort"
	"strconv"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/solver"
	"github.com/rlsolve/rlsolve/strategies"
	"github.com/rlsolve/rlsolve/topology"
	"github.com/spf13/cobra"
)

// inputFlags are the flags every command that reads a config shares.
type inputFlags struct {
	inventory   string
	gpusPerNode int
	mode        string
	strict      bool
}

func (f *inputFlags) register(c *cobra.Command) {
	c.Flags().StringVar(&f.inventory, "inventory", "", "inventory `FILE` describing the cluster's nodes")
	f.gpusPerNode = -1
	c.Flags().Var((*optionalInt)(&f.gpusPerNode), "gpus-per-node", "assume `N` identical NVIDIA GPUs per node (0 for CPU-only)")
	c.Flags().StringVar(&f.mode, "mode", "", "placement mode: hybrid or model-parallel (default: model-parallel when the config sets TP sizes)")
	c.Flags().BoolVar(&f.strict, "strict", false, "treat warnings as errors")
}

func (f *inputFlags) strategyMode() (strategies.Mode, error) {
	switch f.mode {
	case "":
		return strategies.ModeDetect, nil
	case "hybrid":
		return strategies.ModeHybrid, nil
	case "model-parallel", "modelparallel", "mp":
		return strategies.ModeModelParallel, nil
	}
	return "", usageErrorf("--mode must be hybrid or model-parallel, not %q", f.mode)
}

// outcome is everything known about one config file.
type outcome struct {
	file   string
	cfg    *model.Config
	inv    *model.Inventory
	result *strategies.Result
	diags  model.Diagnostics
	// ioErr is set when the file could not be read at all (exit 2).
	ioErr bool
	// budget is set when the solver ran out of time (exit 3).
	budget bool
}

// readInput reads a file, turning I/O problems into located diagnostics.
func readInput(file string) ([]byte, *model.Diagnostic) {
	st, err := os.Stat(file)
	if err == nil && st.IsDir() {
		return nil, &model.Diagnostic{Code: model.CodeFileRead, Severity: model.SeverityError,
			Summary: fmt.Sprintf("%s is a directory, not a config file", file), Primary: model.Span{File: file}}
	}
	if err == nil && st.Size() > int64(grammar.DefaultLimits.MaxFileBytes) {
		return nil, &model.Diagnostic{Code: model.CodeLimit, Severity: model.SeverityError,
			Summary: fmt.Sprintf("%s is %d bytes; rlsolve reads at most %d", file, st.Size(), grammar.DefaultLimits.MaxFileBytes), Primary: model.Span{File: file}}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, &model.Diagnostic{Code: model.CodeFileRead, Severity: model.SeverityError,
			Summary: fmt.Sprintf("cannot read %s: %v", file, errText(err)), Primary: model.Span{File: file}}
	}
	return data, nil
}

func errText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// loadInventory reads --inventory once for all files. When it fails, the
// outcome describes why (an I/O failure exits 2, a bad inventory 1).
func (f *inputFlags) loadInventory() (*model.Inventory, *outcome) {
	if f.inventory == "" {
		return nil, nil
	}
	data, d := readInput(f.inventory)
	if d != nil {
		return nil, &outcome{file: f.inventory, diags: model.Diagnostics{*d}, ioErr: true}
	}
	inv, ds := grammar.LoadInventory(f.inventory, data, grammar.DefaultLimits)
	if inv == nil || ds.HasErrors() {
		return nil, &outcome{file: f.inventory, diags: ds}
	}
	return inv, nil
}

// optionalInt is an int flag whose unset value (-1) is not shown as a
// default in --help.
type optionalInt int

func (o *optionalInt) String() string {
	if *o < 0 {
		return ""
	}
	return strconv.Itoa(int(*o))
}

func (o *optionalInt) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 1024 {
		return fmt.Errorf("must be a whole number from 0 to 1024")
	}
	*o = optionalInt(n)
	return nil
}

func (o *optionalInt) Type() string { return "int" }

// analyze runs the whole pipeline on one config file.
func (f *inputFlags) analyze(file string, invFile *model.Inventory) *outcome {
	o := &outcome{file: file}
	data, d := readInput(file)
	if d != nil {
		o.diags, o.ioErr = model.Diagnostics{*d}, true
		return o
	}
	cfg, ds := grammar.LoadConfig(file, data, grammar.DefaultLimits)
	o.cfg, o.diags = cfg, ds
	// Placement still runs after errors in some entries, so that one run
	// reports every independent problem; it needs a usable node count.
	if cfg == nil || cfg.NumNodes <= 0 {
		return o
	}
	mode, _ := f.strategyMode()
	inv, note := topology.Choose(topology.Choice{File: invFile, InConfig: cfg.Inventory, GPUsPerNode: f.gpusPerNode}, cfg.NumNodes)
	if note != "" {
		o.diags = append(o.diags, model.Diagnostic{Code: model.NoteAssumedInventory, Severity: model.SeverityNote,
			Summary: note, Primary: cfg.NumNodesSpan, PrimaryLabel: "node count from here"})
	}
	o.inv = inv
	o.result = strategies.PlanConfig(cfg, inv, strategies.Options{Mode: mode})
	// Validity is the solver's verdict; its conflicts come as minimal sets
	// of located facts and replace the planner's first-found errors.
	mp := mode == strategies.ModeModelParallel || mode == strategies.ModeDetect && cfg.ModelParallel.Present
	solved, err := solver.Check(cfg, inv, solver.Options{ModelParallel: mp})
	if err != nil {
		o.diags = append(o.diags, model.Diagnostic{Code: model.CodeLimit, Severity: model.SeverityError,
			Summary: fmt.Sprintf("the solver stopped: %v", err), Primary: cfg.ComponentsSpan})
		o.budget = true
	}
	o.diags = append(o.diags, solver.Reconcile(o.result.Diagnostics, solved.Diagnostics)...)
	sortByPosition(o.diags)
	return o
}

// failed reports whether the outcome makes the command fail.
func (o *outcome) failed(strict bool) bool {
	if o.diags.HasErrors() {
		return true
	}
	return strict && o.diags.Count(model.SeverityWarning) > 0
}

// useColor is true for a terminal on stderr without NO_COLOR.
func useColor() bool {
	if _, set := os.LookupEnv("NO_COLOR"); set {
		return false
	}
	st, err := os.Stderr.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func exitFor(outcomes []*outcome, strict bool) error {
	code := exitOK
	for _, o := range outcomes {
		switch {
		case o.budget:
			code = max(code, exitInternal)
		case o.ioErr:
			code = max(code, exitUsage)
		case o.failed(strict):
			code = max(code, exitInvalid)
		}
	}
	if code == exitOK {
		return nil
	}
	return &exitError{code: code}
}

// sortByPosition orders diagnostics as they appear in the file, so that
// problems found by different stages read top to bottom.
func sortByPosition(ds model.Diagnostics) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i].Primary, ds[j].Primary
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}
