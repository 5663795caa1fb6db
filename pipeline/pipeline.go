// Package pipeline is rlsolve's check and plan as a library: read an input
// once, pick its front end, choose the inventory, let the solver judge the
// rules, expand what it accepted, and order every diagnostic by position.
// The CLI and the whole-pipeline tests both use it.
package pipeline

import (
	"io"
	"os"
	"strings"
	"time"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/policy"
	"github.com/rlsolve/rlsolve/rules"
	"github.com/rlsolve/rlsolve/solver"
	"github.com/rlsolve/rlsolve/strategies"
	"github.com/rlsolve/rlsolve/topology"
)

// Options select the inventory and the placement class.
type Options struct {
	// Inventory is the --inventory file's, if any.
	Inventory *model.Inventory
	// GPUsPerNode is --gpus-per-node; negative when not given.
	GPUsPerNode int
	// Class is --mode's placement class; "" infers it from the config.
	Class model.PlacementClass
	// SolverBudget bounds the solver (0: its default); MaxConflicts the
	// conflicts it explains (0: 20).
	SolverBudget time.Duration
	MaxConflicts int
	Limits       grammar.Limits
	// SlimeSource names where a slime command came from (a file, <stdin>);
	// "" is grammar.SlimeSource, the --slime string itself.
	SlimeSource string
	// SlimeEnv are the variables a slime launch script reads (--env).
	SlimeEnv map[string]string
	// Overrides are Hydra command-line overrides, applied to an RLinf
	// config after its defaults list is composed.
	Overrides grammar.Overrides
	// Stdin is read for the file name "-" (grammar.StdinName in spans).
	Stdin io.Reader
	// Policy is the command line's allow, deny, strict and quiet settings;
	// when set, the .rlsolve.yaml beside the config is read too. A
	// config's own `# rlsolve:` comments apply either way.
	Policy *policy.Policy
	// verifying is set for the check of a fix's edited config.
	verifying bool
	// readFile reads the files a config's defaults list composes (nil:
	// os.ReadFile); a fix to a shared file is checked through it.
	readFile func(name string) ([]byte, error)
	// ModelConfig is --model-config FILE: the model's config.json when
	// none lies beside its path. MemProfile is --mem-profile FILE.
	ModelConfig, MemProfile string
}

func (o *Options) defaults() {
	if o.Limits.MaxFileBytes == 0 {
		o.Limits = grammar.DefaultLimits
	}
}

func (o *Options) solver() solver.Options {
	return solver.Options{Budget: o.SolverBudget, MaxConflicts: o.MaxConflicts}
}

// Outcome is everything known about one config file.
type Outcome struct {
	File      string
	Config    *model.Config
	Inventory *model.Inventory
	Class     model.PlacementClass
	Result    *strategies.Result
	Solver    *solver.Result
	// Memory is each GPU layout's memory, when memory is checked and the
	// input is valid.
	Memory      *rules.MemoryResult
	Diagnostics model.Diagnostics
	// Sources holds the inputs read (by the names spans use; the --slime
	// string under grammar.SlimeSource), for code frames without a second
	// read.
	Sources map[string][]byte
	// IOError is set when the file could not be read at all (exit 2).
	IOError bool
	// Budget is set when the solver ran out of time, Internal when
	// expansion broke an invariant (exit 3 both).
	Budget, Internal bool
	// Allowed holds the code of each diagnostic the policy dropped.
	Allowed []string
}

// Failed reports whether the outcome fails a check: an error, including a
// warning the policy denied.
func (o *Outcome) Failed() bool { return o.Diagnostics.HasErrors() }

// LoadInventory reads an inventory file. When it fails, the outcome says
// why (an I/O failure exits 2, a bad inventory 1).
func LoadInventory(file string, lim grammar.Limits) (*model.Inventory, *Outcome) {
	if lim.MaxFileBytes == 0 {
		lim = grammar.DefaultLimits
	}
	data, d := grammar.ReadFile(file, lim)
	if d != nil {
		return nil, &Outcome{File: file, Diagnostics: model.Diagnostics{*d}, IOError: true}
	}
	inv, ds := grammar.LoadInventory(file, data, lim)
	if inv == nil || ds.HasErrors() {
		return nil, &Outcome{File: file, Diagnostics: ds}
	}
	return inv, nil
}

// CheckFile runs the whole check on one file ("-": standard input).
func CheckFile(file string, opt Options) *Outcome {
	file, data, bad := readInput(file, opt)
	if bad != nil {
		return bad
	}
	return CheckBytes(file, data, opt)
}

// readInput reads a config file, or standard input for "-" (then named
// grammar.StdinName); the outcome says why when it cannot (exit 2).
func readInput(file string, opt Options) (string, []byte, *Outcome) {
	var data []byte
	var d *model.Diagnostic
	if file == "-" {
		file = grammar.StdinName
		if opt.Stdin == nil {
			opt.Stdin = strings.NewReader("")
		}
		data, d = grammar.ReadFrom(file, opt.Stdin, opt.Limits)
	} else {
		data, d = grammar.ReadFile(file, opt.Limits)
	}
	if d != nil {
		return file, nil, &Outcome{File: file, Diagnostics: model.Diagnostics{*d}, IOError: true}
	}
	return file, data, nil
}

// CheckBytes runs the whole check on a config's bytes.
func CheckBytes(file string, data []byte, opt Options) *Outcome {
	opt.defaults()
	o, cfg, inv, ropt := load(file, data, opt)
	defer o.finish(file, data, opt)
	if inv == nil {
		return o
	}
	cfg.Memory = groupEnvDropped(cfg.Memory, o.Class)
	mem, notes := o.memory(cfg.Memory, usedNodes(inv, cfg.NumNodes), cfg.ComponentsSpan, opt)
	ropt.Memory = mem
	set := rules.Build(cfg, inv, ropt)
	o.Diagnostics = append(o.Diagnostics, rules.ConfigWarnings(cfg, inv)...)
	valid := o.judge(set, opt, cfg.ComponentsSpan)
	o.memoryNotes(notes)
	if !valid {
		verifyErrorFixes(o.Diagnostics, file, data, opt)
		return o
	}
	res, err := strategies.Expand(cfg, inv, strategies.Options{Class: o.Class})
	if err != nil {
		o.internal(err, cfg.ComponentsSpan)
		return o
	}
	o.Result = res
	warnings := rules.PlanWarnings(cfg, res.Plan, res.Cluster.Cluster)
	verifyPlanFixes(warnings, file, data, opt)
	o.Diagnostics = append(o.Diagnostics, warnings...)
	o.addMemory(set)
	return o
}

// load reads a config and picks its inventory and placement class, and
// the options of its rules; inv is nil when the config cannot be judged.
func load(file string, data []byte, opt Options) (o *Outcome, cfg *model.Config, inv *model.Inventory, ropt rules.Options) {
	o = &Outcome{File: file, Sources: map[string][]byte{file: data}}
	cfg, ds := grammar.LoadConfigWith(file, data, grammar.ConfigOptions{Limits: opt.Limits, Overrides: opt.Overrides, ReadFile: o.recordReads(opt.readFile)})
	o.Config, o.Diagnostics = cfg, ds
	// The rules still run after errors in some entries, so that one run
	// reports every independent problem; they need a usable node count.
	if cfg == nil || cfg.NumNodes <= 0 || cfg.IsBroken(model.BrokenInventory, "") && opt.Inventory == nil {
		return o, cfg, nil, ropt
	}
	inv = o.chooseInventory(cfg, opt)
	o.Class = opt.Class
	ropt = rules.Options{Class: o.Class, MaxProcesses: opt.Limits.MaxProcesses, MaxTotalProcesses: opt.Limits.MaxTotalProcesses}
	if o.Class == "" {
		choice := rules.Class(cfg)
		o.Class = choice.Class
		ropt.Class, ropt.ClassWhy, ropt.ClassAt = choice.Class, choice.Why, choice.At
		// The class changes the layout unless it is the hybrid one; a
		// hybrid run with TP sizes (Megatron SFT) is worth saying too.
		if choice.Class != model.ClassHybrid || cfg.ModelParallel.Present {
			o.Diagnostics = append(o.Diagnostics, rules.ClassNote(choice))
		}
	}
	return o, cfg, inv, ropt
}

// recordReads reads composed files through read (os.ReadFile when nil)
// and keeps what it read in the sources: `check --fix` writes a file only
// while it still holds these bytes.
func (o *Outcome) recordReads(read func(string) ([]byte, error)) func(string) ([]byte, error) {
	if read == nil {
		read = os.ReadFile
	}
	return func(name string) ([]byte, error) {
		data, err := read(name)
		if err == nil {
			o.Sources[name] = data
		}
		return data, err
	}
}

// addMemory records the memory of a valid input, with its warnings.
func (o *Outcome) addMemory(set *rules.Set) {
	if o.Memory = set.Memory(); o.Memory != nil {
		o.Diagnostics = append(o.Diagnostics, o.Memory.Warnings...)
	}
}

// chooseInventory picks the inventory (topology.Choose), with a note when it
// is assumed and the D13 warning where RLinf would number the nodes
// differently.
func (o *Outcome) chooseInventory(cfg *model.Config, opt Options) *model.Inventory {
	inv, note := topology.Choose(topology.Choice{File: opt.Inventory, InConfig: cfg.Inventory, GPUsPerNode: opt.GPUsPerNode,
		Nodes: topology.NumNodes(cfg.NumNodes), Assume: topology.DefaultGPUsPerNode})
	if note != "" {
		o.Diagnostics.Notef(model.NoteAssumedInventory, cfg.NumNodesSpan, "node count from here", "%s", note)
	}
	o.Inventory = inv
	if n := cfg.NumNodes; n > 1 && len(inv.Nodes) >= n && !inv.RLinfRanks {
		if d := topology.RLinfOrderWarning(inv.Nodes[:n], cfg.NumNodesSpan); d != nil {
			o.Diagnostics = append(o.Diagnostics, *d)
		}
	}
	return inv
}

// judge lets the solver decide the rule set; it reports whether the input
// is valid (no error from any stage).
func (o *Outcome) judge(set *rules.Set, opt Options, at model.Span) bool {
	solved, err := solver.Check(set, opt.solver())
	o.Solver = solved
	if solved != nil {
		o.Diagnostics = append(o.Diagnostics, solved.Diagnostics...)
	}
	if err != nil {
		o.Diagnostics.Errorf(model.CodeSolverBudget, at, "", "the solver stopped: %v", err).Help =
			[]model.Fix{{Message: "raise --solver-budget, or check a smaller part of the input"}}
		o.Budget = true
	}
	return !o.Diagnostics.HasErrors()
}

// internal records an expansion that broke an invariant the rules promise.
func (o *Outcome) internal(err error, at model.Span) {
	o.internalWhy(err, at, "The solver accepted this input, but expanding it failed: a rule is missing from rlsolve. Please report it with this input.")
}

// internalWhy records a broken invariant, saying which.
func (o *Outcome) internalWhy(err error, at model.Span, why string) {
	o.Diagnostics.Errorf(model.CodeInternal, at, "", "internal error: %v", err).Why = why
	o.Internal = true
}
