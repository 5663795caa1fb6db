package main

import (
	"strconv"
	"time"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/internal/fuzzy"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/spf13/cobra"
)

// Shell completion of flag values. completeFlagValues registers, on a
// command that has them: --output (the given formats), --mode, --component
// (the components of the config named on the command line), --rank (that
// component's worker ranks), --inventory (YAML files); and YAML files for
// the config argument. A command opts in with one line after its flags.
func completeFlagValues(c *cobra.Command, outputs ...string) {
	if c.ValidArgsFunction == nil {
		c.ValidArgsFunction = func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if cmd.Args != nil && cmd.Args(cmd, append(args, "x")) != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return []string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
		}
	}
	register := func(flag string, f cobra.CompletionFunc) {
		if c.Flags().Lookup(flag) != nil {
			_ = c.RegisterFlagCompletionFunc(flag, f)
		}
	}
	if len(outputs) > 0 {
		register("output", cobra.FixedCompletions(outputs, cobra.ShellCompDirectiveNoFileComp))
	}
	register("mode", cobra.FixedCompletions([]string{
		"hybrid\tRLinf's hybrid placement (the default without TP sizes)",
		"model-parallel\tcollocated or disaggregated actor/rollout/inference",
	}, cobra.ShellCompDirectiveNoFileComp))
	register("component", func(cmd *cobra.Command, args []string, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return fuzzy.NearOrAll(pipeline.ConfigComponents(args[0]), typed), cobra.ShellCompDirectiveNoFileComp
	})
	register("rank", func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return workerRanks(cmd, args), cobra.ShellCompDirectiveNoFileComp
	})
	if c.Flags().Lookup("inventory") != nil {
		_ = c.MarkFlagFilename("inventory", "yaml", "yml")
	}
}

// workerRanks lists the ranks of --component's workers, planning the
// config with the command line's inventory flags.
func workerRanks(cmd *cobra.Command, args []string) []string {
	comp, _ := cmd.Flags().GetString("component")
	if len(args) == 0 || comp == "" {
		return nil
	}
	opt := pipeline.Options{GPUsPerNode: -1, SolverBudget: 2 * time.Second}
	if f := cmd.Flags().Lookup("gpus-per-node"); f != nil && f.Value.String() != "" {
		if n, err := strconv.Atoi(f.Value.String()); err == nil {
			opt.GPUsPerNode = n
		}
	}
	if f, _ := cmd.Flags().GetString("mode"); f != "" {
		opt.Class, _ = model.ParseClass(f)
	}
	if f, _ := cmd.Flags().GetString("inventory"); f != "" {
		inv, bad := pipeline.LoadInventory(f, grammar.DefaultLimits)
		if bad != nil {
			return nil
		}
		opt.Inventory = inv
	}
	return pipeline.WorkerRanks(args[0], comp, opt, 1000)
}
