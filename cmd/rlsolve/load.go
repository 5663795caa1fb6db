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
	"github.com/spf13/cobra"
)

// inputFlags are the flags every command that reads a config shares.
type inputFlags struct {
	inventory   string
	gpusPerNode int
	mode        string
	strict      bool
	budget      time.Duration
	slime       string // --slime: slime's placement flags (FILE is then optional)
	// overrides are the Hydra overrides among the arguments (key=value,
	// +key=value, ++key=value, ~key), applied to each config after it is
	// composed.
	overrides   grammar.Overrides
	modelConfig string // --model-config: the model's config.json
	memProfile  string // --mem-profile: the memory profile
}

// files splits the arguments into config files and Hydra overrides, as
// `rlsolve check train.yaml cluster.num_nodes=2 +x=y ~z` writes them. An
// argument that names an existing file is a file whatever it looks like.
func (f *inputFlags) files(args []string) ([]string, error) {
	var files, ovs []string
	for _, a := range args {
		if _, err := os.Stat(a); err == nil || !grammar.IsOverride(a) {
			files = append(files, a)
			continue
		}
		ovs = append(ovs, a)
	}
	parsed, err := grammar.ParseOverrides(ovs)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	if f.slime != "" && len(ovs) > 0 {
		return nil, usageErrorf("%s: Hydra overrides change RLinf configs, not --slime flags (put the flag in --slime)", ovs[0])
	}
	f.overrides = parsed
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
	if n := c.Name(); n == "check" || n == "plan" { // the commands that read slime layouts and check memory
		c.Flags().StringVar(&f.slime, "slime", "", "a slime layout given by its placement `FLAGS` ('--actor-num-nodes 2 --rollout-num-gpus 8 ...') or a pasted launch command; @FILE reads it from a file, @- from standard input; FILE is then optional")
		c.Flags().StringVar(&f.modelConfig, "model-config", "", "the model's Hugging Face config.json `FILE`, for GPU memory when none lies beside the model path")
		c.Flags().StringVar(&f.memProfile, "mem-profile", "", "memory profile `FILE` (key: value lines) overriding the per-process residue and thresholds of the GPU memory check")
	}
	c.Flags().StringVar(&f.inventory, "inventory", "", "inventory `FILE` describing the cluster's nodes")
	f.gpusPerNode = -1
	c.Flags().Var((*optionalInt)(&f.gpusPerNode), "gpus-per-node", "assume `N` identical NVIDIA GPUs per node (0 for CPU-only)")
	c.Flags().StringVar(&f.mode, "mode", "", "placement class: "+classNames()+" (default: inferred from the config)")
	c.Flags().BoolVar(&f.strict, "strict", false, "treat warnings as errors")
	c.Flags().DurationVar(&f.budget, "solver-budget", 10*time.Second, "time the solver may take before giving up (exit 3)")
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

func classNames() string {
	var out []string
	for _, k := range model.Classes {
		out = append(out, string(k.Class))
	}
	return strings.Join(out, ", ")
}

// loadInventory reads --inventory once for all files.
func (f *inputFlags) loadInventory() (*model.Inventory, *pipeline.Outcome) {
	if f.inventory == "" {
		return nil, nil
	}
	return pipeline.LoadInventory(f.inventory, grammar.DefaultLimits)
}

// slimeCommand reads --slime (its @FILE or @- form) once for all files;
// the outcome says why when it cannot be read (exit 2).
func (f *inputFlags) slimeCommand() (text, source string, bad *pipeline.Outcome) {
	text, source, d := grammar.ReadSlimeCommand(f.slime, os.Stdin, grammar.DefaultLimits)
	if d != nil {
		return "", "", &pipeline.Outcome{File: d.Primary.File, Diagnostics: model.Diagnostics{*d}, IOError: true}
	}
	return text, source, nil
}

// options are the pipeline's options from the flags, with the inventory
// read once and where a --slime command came from.
func (f *inputFlags) options(inv *model.Inventory, class model.PlacementClass, slimeSource string) pipeline.Options {
	return pipeline.Options{Inventory: inv, GPUsPerNode: f.gpusPerNode, Class: class, SolverBudget: f.budget, SlimeSource: slimeSource,
		Overrides: f.overrides, ModelConfig: f.modelConfig, MemProfile: f.memProfile}
}

// analyze runs the whole pipeline on one config file.
func (f *inputFlags) analyze(file string, inv *model.Inventory) *pipeline.Outcome {
	class, _ := f.class()
	return pipeline.CheckFile(file, f.options(inv, class, ""))
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

// useColor is true for a terminal on stderr without NO_COLOR.
func useColor() bool {
	if _, set := os.LookupEnv("NO_COLOR"); set {
		return false
	}
	st, err := os.Stderr.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func exitFor(outcomes []*pipeline.Outcome, strict bool) error {
	code := exitOK
	for _, o := range outcomes {
		switch {
		case o.Budget || o.Internal:
			code = max(code, exitInternal)
		case o.IOError:
			code = max(code, exitUsage)
		case o.Failed(strict):
			code = max(code, exitInvalid)
		}
	}
	if code == exitOK {
		return nil
	}
	return &exitError{code: code}
}
