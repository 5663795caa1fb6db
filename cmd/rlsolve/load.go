package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/policy"
	"github.com/spf13/cobra"
)

// inputFlags are the flags every command that reads a config shares.
type inputFlags struct {
	inventory    string
	gpusPerNode  int
	mode         string
	strict       bool
	budget       time.Duration
	maxConflicts int
	slime        string   // --slime: slime's placement flags (FILE is then optional)
	env          []string // --env NAME=VALUE: variables a --slime script reads
	slimeEnv     map[string]string
	// allow, deny and quiet choose what fails and what is shown (package
	// policy); cmd tells whether --strict was given.
	allow, deny []string
	quiet       bool
	cmd         *cobra.Command
	// overrides are the Hydra overrides among the arguments (key=value,
	// +key=value, ++key=value, ~key), applied to each config after it is
	// composed.
	overrides grammar.Overrides
	// policy is the command line's settings, read by prepare.
	policy      *policy.Policy
	modelConfig string // --model-config: the model's config.json
	memProfile  string // --mem-profile: the memory profile
	// first is the first config file, whose nearest .rlsolve.yaml may name
	// the inventory.
	first string
}

// files splits the arguments into config files and Hydra overrides, as
// `rlsolve check train.yaml cluster.num_nodes=2 +x=y ~z` writes them. An
// argument that names an existing file is a file whatever it looks like.
func (f *inputFlags) files(args []string) ([]string, error) {
	files, parsed, err := grammar.SplitArgs(args)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	if f.slimeEnv, err = grammar.ParseEnv(f.env); err != nil {
		return nil, usageErrorf("%v", err)
	}
	if len(f.env) > 0 && f.slime == "" {
		return nil, usageErrorf("--env sets variables of a --slime launch script; give --slime @FILE")
	}
	if f.slime != "" && len(parsed.List) > 0 {
		return nil, usageErrorf("%s: Hydra overrides change RLinf configs, not --slime flags (put the flag in --slime)", parsed.List[0].Arg)
	}
	f.overrides = parsed
	if len(files) > 0 {
		f.first = files[0]
	}
	return files, nil
}

// sources gives code frames the files on disk and the overrides' line.
func (f *inputFlags) sources() diag.Sources {
	src := diag.DiskSources()
	if len(f.overrides.List) > 0 {
		src.Files[grammar.OverrideSource] = []byte(f.overrides.Text)
	}
	return src
}

func (f *inputFlags) register(c *cobra.Command) {
	n := c.Name()
	if n == "check" || n == "plan" || n == "launch" { // the commands that read slime layouts
		c.Flags().StringVar(&f.slime, "slime", "", "a slime layout given by its placement `FLAGS` ('--actor-num-nodes 2 --rollout-num-gpus 8 ...') or a pasted launch command; @FILE reads it from a file, @- from standard input; FILE is then optional")
		c.Flags().StringArrayVar(&f.env, "env", nil, "`NAME=VALUE`: a variable the --slime script reads from its environment (repeatable); an unset one in a placement flag is an error")
	}
	if n == "check" || n == "plan" { // the commands that check memory
		c.Flags().StringVar(&f.modelConfig, "model-config", "", "the model's Hugging Face config.json `FILE`, for GPU memory when none lies beside the model path")
		c.Flags().StringVar(&f.memProfile, "mem-profile", "", "memory profile `FILE` (key: value lines) overriding the per-process residue and thresholds of the GPU memory check")
	}
	c.Flags().StringVar(&f.inventory, "inventory", "", "inventory `FILE` describing the cluster's nodes, or a live Ray cluster's URL (http://HEAD:8265, ray://HEAD:8265)")
	f.gpusPerNode = -1
	c.Flags().Var((*optionalInt)(&f.gpusPerNode), "gpus-per-node", "assume `N` identical NVIDIA GPUs per node (0 for CPU-only)")
	c.Flags().StringVar(&f.mode, "mode", "", "placement class: "+classNames()+" (default: inferred from the config)")
	c.Flags().BoolVar(&f.strict, "strict", false, "deny every warning: warnings fail the check, except those allowed by name")
	c.Flags().StringArrayVar(&f.allow, "allow", nil, "drop diagnostics with this `CODE` from the output and the exit status (repeatable; warnings and notes only)")
	c.Flags().StringArrayVar(&f.deny, "deny", nil, "make diagnostics with this `CODE` errors (repeatable)")
	c.Flags().BoolVarP(&f.quiet, "quiet", "q", false, "show errors only")
	c.Flags().DurationVar(&f.budget, "solver-budget", 10*time.Second, "CPU time the solver may spend before giving up (exit 3); CPU, not wall time, so a busy machine does not cut it short")
	c.Flags().IntVar(&f.maxConflicts, "max-conflicts", 20, "explain at most `N` independent conflicts")
	f.cmd = c
}

// prepare checks the shared flags' values (usage errors, exit 2) and reads
// the command line's policy; every command calls it first.
func (f *inputFlags) prepare() error {
	if _, err := f.class(); err != nil {
		return err
	}
	switch {
	case f.budget <= 0:
		return usageErrorf("--solver-budget must be positive, not %v", f.budget)
	case f.maxConflicts < 1:
		return usageErrorf("--max-conflicts must be at least 1, not %d", f.maxConflicts)
	}
	var strict *bool
	if f.cmd != nil && f.cmd.Flags().Changed("strict") {
		strict = &f.strict
	}
	s, err := policy.FromFlags(f.allow, f.deny, strict)
	if err != nil {
		return usageErrorf("%v", err)
	}
	f.policy = policy.New(s, f.quiet)
	return nil
}

// options are the pipeline's options of these flags.
func (f *inputFlags) options(inv *model.Inventory, slimeSource string) pipeline.Options {
	class, _ := f.class()
	return pipeline.Options{Inventory: inv, GPUsPerNode: f.gpusPerNode, Class: class, SolverBudget: f.budget,
		MaxConflicts: f.maxConflicts, SlimeSource: slimeSource, Overrides: f.overrides, Policy: f.policy, Stdin: os.Stdin,
		ModelConfig: f.modelConfig, MemProfile: f.memProfile, SlimeEnv: f.slimeEnv}
}

// class is --mode's placement class ("" to infer it from the config).
func (f *inputFlags) class() (model.PlacementClass, error) {
	if f.mode == "" {
		return "", nil
	}
	if c, ok := model.ParseClass(f.mode); ok {
		return c, nil
	}
	return "", usageErrorf("--mode must be one of %s, not %q", classNames(), f.mode)
}

func classNames() string { return strings.Join(model.ClassNames(), ", ") }

// loadInventory reads the inventory once for all files: --inventory, else
// $RLSOLVE_INVENTORY, else the inventory: of the .rlsolve.yaml nearest the
// first config (or the working directory); --gpus-per-node, a flag, wins
// over the last two.
func (f *inputFlags) loadInventory() (*model.Inventory, *pipeline.Outcome) {
	arg := f.inventory
	if arg == "" && f.gpusPerNode < 0 {
		arg = defaultInventory(f.first)
	}
	if arg == "" {
		return nil, nil
	}
	return loadInventoryArg(f.cmd, arg)
}

// defaultInventory is $RLSOLVE_INVENTORY, else the nearest .rlsolve.yaml's
// inventory: (what is wrong with that file is reported with each config).
func defaultInventory(config string) string { return policy.DefaultInventory(config, os.Getenv) }

// inputs reads what check and plan need before any config: the inventory
// and the --slime command, each once.
func (f *inputFlags) inputs() (inv *model.Inventory, command, source string, bad *pipeline.Outcome) {
	inv, bad = f.loadInventory()
	if bad == nil && f.slime != "" {
		command, source, bad = pipeline.ReadSlimeCommand(f.slime, os.Stdin)
	}
	return inv, command, source, bad
}

// analyze runs the whole pipeline on one config file.
func (f *inputFlags) analyze(file string, inv *model.Inventory) *pipeline.Outcome {
	return pipeline.CheckFile(file, f.options(inv, ""))
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
