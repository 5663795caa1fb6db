package main

import (
	"bytes"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/suggest"
	"github.com/spf13/cobra"
)

func init() { register(newSuggest) }

type suggestFlags struct {
	gpus        int
	gpusPerNode int
	inventory   string
	top         int
	output      string
	profile     string
	budget      time.Duration
}

func newSuggest() *cobra.Command {
	f := &suggestFlags{}
	c := &cobra.Command{
		Use:   "suggest [FILE]",
		Short: "Propose the best placements for N GPUs under RLinf's cost model",
		Long: `suggest finds the placement with the lowest modeled time per iteration for N
GPUs: RLinf's auto-placement cost model (profile_data, batch sizes, TP sizes
from FILE, an RLinf training config), searched exactly over the collocated
layout and every contiguous split rollout | inference | actor (embodied:
env | rollout, actor on all GPUs). Only valid placements are suggested: no
rollout engine or model-parallel group across a node boundary, valid
data-parallel sizes, TP divisibility. Every suggestion is re-checked with
'rlsolve check' before it is printed, with a pasteable component_placement.

Without profile_data (or --profile), stages are ranked with balanced costs
(every stage 1 s per step) and the output says so. Without FILE, a default
reasoning setup is assumed (see docs/suggest.md).

Cluster, first found: --inventory FILE (or a live Ray cluster's URL);
--gpus-per-node K; $RLSOLVE_INVENTORY; the inventory: of the nearest
.rlsolve.yaml; an inventory: key in FILE; otherwise 8 GPUs per node (one
node when N < 8), with a note.

A mode with no suggestion gets one line saying which rule refuses it, at
the key of FILE it comes from; a best layout that FILE already has is said
to be the file's layout.

Exit codes: 0 suggestions printed (also when the best is FILE's own layout),
1 invalid config or no valid placement, 2 usage or I/O error, 3 internal
error or solver budget exceeded.`,
		Example: `  rlsolve suggest train.yaml --gpus 32
  rlsolve suggest train.yaml --gpus 128 --gpus-per-node 8 --top 5
  rlsolve suggest train.yaml --inventory cluster.yaml --output json
  rlsolve suggest --gpus 16 --profile actor=95.7,rollout=59.9,inference=30.8
  rlsolve suggest examples/suggest-reasoning/train.yaml --output yaml`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSuggest(f, args)
		},
	}
	c.Flags().IntVar(&f.gpus, "gpus", 0, "plan for `N` GPUs (default: all of the inventory, or cluster.num_nodes x GPUs per node)")
	f.gpusPerNode = -1
	c.Flags().Var((*optionalInt)(&f.gpusPerNode), "gpus-per-node", "nodes of `K` GPUs each")
	c.Flags().StringVar(&f.inventory, "inventory", "", "inventory `FILE` describing the cluster's nodes, or a live Ray cluster's URL (http://HEAD:8265, ray://HEAD:8265)")
	c.Flags().IntVar(&f.top, "top", 3, "how many suggestions to print, best first")
	c.Flags().StringVarP(&f.output, "output", "o", suggestOutputs[0], outputHelp(suggestOutputs))
	c.Flags().StringVar(&f.profile, "profile", "", "costs in seconds per step, overriding profile_data: `actor=S,rollout=S,inference=S`")
	c.Flags().DurationVar(&f.budget, "solver-budget", 10*time.Second, "CPU time each re-check's solver may spend before giving up (exit 3)")
	return c
}

// parseProfile reads --profile's name=seconds list.
func parseProfile(s string) (map[string]float64, error) {
	out := map[string]float64{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, usageErrorf("--profile wants name=seconds pairs separated by commas (actor=95.7,rollout=59.9,inference=30.8), not %q", part)
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, usageErrorf("--profile: %s=%s is not a non-negative number of seconds", k, v)
		}
		if _, dup := out[k]; dup {
			return nil, usageErrorf("--profile gives %s twice", k)
		}
		out[k] = x
	}
	return out, nil
}

func runSuggest(f *suggestFlags, args []string) error {
	if err := checkOutput(f.output, suggestOutputs, ""); err != nil {
		return err
	}
	if f.budget <= 0 {
		return usageErrorf("--solver-budget must be positive, not %v", f.budget)
	}
	if f.top < 1 || f.top > 1000 {
		return usageErrorf("--top must be from 1 to 1000, not %d", f.top)
	}
	if f.gpus < 0 || f.gpus > suggest.MaxGPUs {
		return usageErrorf("--gpus must be from 1 to %d, not %d", suggest.MaxGPUs, f.gpus)
	}
	if f.inventory != "" && f.gpusPerNode >= 0 {
		return usageErrorf("give --inventory or --gpus-per-node, not both")
	}
	costs, err := parseProfile(f.profile)
	if err != nil {
		return err
	}
	file := ""
	spec := suggest.DefaultSpec()
	if len(args) == 1 {
		file = args[0]
		data, d := grammar.ReadFile(file, grammar.DefaultLimits)
		if d != nil {
			return report(model.Diagnostics{*d}, diag.DiskSources(), file, nil, exitUsage)
		}
		var ds model.Diagnostics
		spec, ds = suggest.Load(file, data)
		if spec == nil {
			return report(ds, diag.DiskSources(), file, nil, exitInvalid)
		}
	}
	if err := spec.ApplyProfile(costs); err != nil {
		return usageErrorf("%v", err)
	}
	cl, notes, err := suggestCluster(f, spec, file)
	if err != nil {
		return err
	}
	res, err := suggest.Suggest(spec, cl, suggest.Options{Top: f.top, SolverBudget: f.budget})
	if err != nil {
		switch e := err.(type) {
		case *suggest.BudgetError:
			return &exitError{code: exitInternal, msg: e.Error()}
		case *suggest.Error:
			suggest.WriteNotes(os.Stderr, spec, notes)
			d := e.Diagnostic(file)
			return report(model.Diagnostics{d}, diag.DiskSources(), d.Primary.File, nil, exitInvalid)
		}
		return &exitError{code: exitInternal, msg: err.Error()}
	}
	var out []byte
	switch f.output {
	case "json":
		out, err = suggest.NewDocument(res, spec, notes).JSON()
	case "yaml":
		out, err = suggest.NewDocument(res, spec, notes).YAML()
	default:
		suggest.WriteNotes(os.Stderr, spec, notes)
		var b bytes.Buffer
		suggest.WriteText(&b, res)
		out = b.Bytes()
	}
	if err != nil {
		return &exitError{code: exitInternal, msg: err.Error()}
	}
	_, _ = os.Stdout.Write(out)
	return nil
}

// suggestCluster reads the inventory (--inventory, else, without
// --gpus-per-node, $RLSOLVE_INVENTORY or the .rlsolve.yaml nearest config)
// and lets suggest decide the GPUs and their nodes.
func suggestCluster(f *suggestFlags, spec *suggest.Spec, config string) (*suggest.Cluster, []string, error) {
	var file *model.Inventory
	arg := f.inventory
	if arg == "" && f.gpusPerNode < 0 {
		arg = defaultInventory(config)
	}
	if arg != "" {
		var bad *pipeline.Outcome
		file, bad = loadInventoryArg(nil, arg)
		if bad != nil {
			return nil, nil, reportOutcome(bad, diag.DiskSources())
		}
	}
	cl, notes, err := suggest.ChooseCluster(spec, file, f.gpus, f.gpusPerNode)
	if err != nil {
		return nil, nil, usageErrorf("%v", err)
	}
	return cl, notes, nil
}
