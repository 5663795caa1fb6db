// Package pipeline is rlsolve's check as a library: read a config, choose
// the inventory, expand the placements, let the solver decide validity and
// explain conflicts, and merge every diagnostic in file order. The CLI and
// the whole-pipeline tests both use it.
package pipeline

import (
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/solver"
	"github.com/rlsolve/rlsolve/strategies"
	"github.com/rlsolve/rlsolve/topology"
)

// Options select the inventory and the mode.
type Options struct {
	// Inventory is the --inventory file's, if any.
	Inventory *model.Inventory
	// GPUsPerNode is --gpus-per-node; negative when not given.
	GPUsPerNode int
	Mode        strategies.Mode
	// SolverBudget bounds the solver (0: its default).
	SolverBudget time.Duration
	Limits       grammar.Limits
	// Overrides are Hydra command-line overrides, applied to an RLinf
	// config after its defaults list is composed.
	Overrides grammar.Overrides
}

// Outcome is everything known about one config file.
type Outcome struct {
	File        string
	Config      *model.Config
	Inventory   *model.Inventory
	Result      *strategies.Result
	Solver      *solver.Result
	Diagnostics model.Diagnostics
	// IOError is set when the file could not be read at all (exit 2).
	IOError bool
	// Budget is set when the solver ran out of time (exit 3).
	Budget bool
}

// Failed reports whether the outcome fails a check.
func (o *Outcome) Failed(strict bool) bool {
	return o.Diagnostics.HasErrors() || strict && o.Diagnostics.Count(model.SeverityWarning) > 0
}

// ReadFile reads an input, turning I/O problems into diagnostics.
func ReadFile(file string, lim grammar.Limits) ([]byte, *model.Diagnostic) {
	if lim.MaxFileBytes == 0 {
		lim = grammar.DefaultLimits
	}
	fail := func(code, format string, args ...any) ([]byte, *model.Diagnostic) {
		return nil, &model.Diagnostic{Code: code, Severity: model.SeverityError, Summary: fmt.Sprintf(format, args...), Primary: model.Span{File: file}}
	}
	st, err := os.Stat(file)
	if err == nil && st.IsDir() {
		return fail(model.CodeFileRead, "%s is a directory, not a config file", file)
	}
	if err == nil && st.Mode().IsRegular() && st.Size() > int64(lim.MaxFileBytes) {
		return fail(model.CodeLimit, "%s is %d bytes; rlsolve reads at most %d", file, st.Size(), lim.MaxFileBytes)
	}
	f, err := os.Open(file)
	if err != nil {
		if pe, ok := err.(*os.PathError); ok {
			err = pe.Err
		}
		return fail(model.CodeFileRead, "cannot read %s: %v", file, err)
	}
	defer f.Close()
	// Read through the limit: a pipe or a device (/dev/zero) has no size
	// to check first. The buffer is sized once (the file's size, else the
	// limit), so reading never grows past what the limit allows.
	size := lim.MaxFileBytes + 1
	if st != nil && st.Mode().IsRegular() {
		size = int(st.Size()) + 1
	}
	data := make([]byte, 0, size)
	for len(data) <= lim.MaxFileBytes {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // the file grew since Stat
		}
		n, rerr := f.Read(data[len(data):min(cap(data), lim.MaxFileBytes+1)])
		data = data[:len(data)+n]
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return fail(model.CodeFileRead, "cannot read %s: %v", file, rerr)
		}
	}
	if len(data) > lim.MaxFileBytes {
		return fail(model.CodeLimit, "%s is larger than %d bytes; rlsolve reads at most %d", file, lim.MaxFileBytes, lim.MaxFileBytes)
	}
	return data, nil
}

// LoadInventory reads an inventory file. When it fails, the outcome says
// why (an I/O failure exits 2, a bad inventory 1).
func LoadInventory(file string, lim grammar.Limits) (*model.Inventory, *Outcome) {
	if lim.MaxFileBytes == 0 {
		lim = grammar.DefaultLimits
	}
	data, d := ReadFile(file, lim)
	if d != nil {
		return nil, &Outcome{File: file, Diagnostics: model.Diagnostics{*d}, IOError: true}
	}
	inv, ds := grammar.LoadInventory(file, data, lim)
	if inv == nil || ds.HasErrors() {
		return nil, &Outcome{File: file, Diagnostics: ds}
	}
	return inv, nil
}

// CheckFile runs the whole check on one file.
func CheckFile(file string, opt Options) *Outcome {
	data, d := ReadFile(file, opt.Limits)
	if d != nil {
		return &Outcome{File: file, Diagnostics: model.Diagnostics{*d}, IOError: true}
	}
	return CheckBytes(file, data, opt)
}

// CheckBytes runs the whole check on a config's bytes.
func CheckBytes(file string, data []byte, opt Options) *Outcome {
	if opt.Limits.MaxFileBytes == 0 {
		opt.Limits = grammar.DefaultLimits
	}
	o := &Outcome{File: file}
	cfg, ds := grammar.LoadConfigWith(file, data, grammar.ConfigOptions{Limits: opt.Limits, Overrides: opt.Overrides})
	o.Config, o.Diagnostics = cfg, ds
	// Placement still runs after errors in some entries, so that one run
	// reports every independent problem; it needs a usable node count.
	if cfg == nil || cfg.NumNodes <= 0 || cfg.Broken["inventory"] && opt.Inventory == nil {
		return o
	}
	inv, note := topology.Choose(topology.Choice{File: opt.Inventory, InConfig: cfg.Inventory, GPUsPerNode: opt.GPUsPerNode}, cfg.NumNodes)
	if note != "" {
		o.Diagnostics = append(o.Diagnostics, model.Diagnostic{Code: model.NoteAssumedInventory, Severity: model.SeverityNote,
			Summary: note, Primary: cfg.NumNodesSpan, PrimaryLabel: "node count from here"})
	}
	o.Inventory = inv
	// D13: an inventory's ranks are rlsolve's; RLinf numbers nodes its own
	// way unless each node sets RLINF_NODE_RANK.
	if n := cfg.NumNodes; n > 1 && len(inv.Nodes) >= n {
		if msg := topology.RLinfOrderDiffers(inv.Nodes[:n]); msg != "" {
			o.Diagnostics = append(o.Diagnostics, model.Diagnostic{Code: model.WarnNodeOrderRLinf, Severity: model.SeverityWarning,
				Summary: msg, Primary: cfg.NumNodesSpan, PrimaryLabel: "these nodes",
				Why: "RLinf sorts node IPs as strings (10.0.0.10 before 10.0.0.2) and groups them by accelerator type (D13)."})
		}
	}
	o.Result = strategies.PlanConfig(cfg, inv, strategies.Options{Mode: opt.Mode, MaxProcesses: opt.Limits.MaxProcesses, MaxTotalProcesses: opt.Limits.MaxTotalProcesses})
	// Tensor-parallel groups without NVLink, where the inventory knows it.
	o.Result.Diagnostics = append(o.Result.Diagnostics, strategies.NVLinkWarnings(cfg, o.Result)...)
	// Validity is the solver's verdict; its conflicts come as minimal sets
	// of located facts and replace the planner's first-found errors.
	mp := opt.Mode == strategies.ModeModelParallel || opt.Mode == strategies.ModeDetect && cfg.ModelParallel.Present
	solved, err := solver.Check(cfg, inv, solver.Options{ModelParallel: mp, Budget: opt.SolverBudget, MaxProcesses: opt.Limits.MaxProcesses})
	o.Solver = solved
	o.settle(o.Result.Diagnostics, solved, err, cfg.ComponentsSpan, "raise --solver-budget, or check a smaller part of the config")
	return o
}

// settle merges the direct checks' diagnostics with the solver's verdict
// (the solver's explanations replace the direct errors of the same rules),
// records a solver that ran out of time, and orders everything by position.
func (o *Outcome) settle(direct model.Diagnostics, solved *solver.Result, err error, at model.Span, help string) {
	if err != nil {
		o.Diagnostics = append(o.Diagnostics, model.Diagnostic{Code: model.CodeLimit, Severity: model.SeverityError,
			Summary: fmt.Sprintf("the solver stopped: %v", err), Primary: at,
			Help: []model.Fix{{Message: help}}})
		o.Budget = true
	}
	var solvedDiags model.Diagnostics
	if solved != nil {
		solvedDiags = solved.Diagnostics
	}
	o.Diagnostics = solver.Reconcile(append(o.Diagnostics, direct...), solvedDiags)
	SortByPosition(o.Diagnostics)
}

// SortByPosition orders diagnostics as they appear in the files, so that
// problems found by different stages read top to bottom.
func SortByPosition(ds model.Diagnostics) {
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
