package main

import (
	"os"

	rlexec "github.com/rlsolve/rlsolve/exec"
	"github.com/spf13/cobra"
)

func init() { register(newShim) }

// newShim is the hidden command each Slurm task of `launch --backend slurm`
// runs: it finds its worker by SLURM_PROCID in the launch's plan file,
// sets the worker's environment and execs its program.
func newShim() *cobra.Command {
	return &cobra.Command{
		Use:                "shim --plan FILE --component NAME",
		Short:              "Run one Slurm task of `rlsolve launch` (internal)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := rlexec.Shim(args, os.Environ(), os.Stdout, os.Stderr); code != 0 {
				return &exitError{code: code}
			}
			return nil
		},
	}
}

func init() { register(newGuard) }

// newGuard is the hidden command launch starts as the guardian of its
// workers (exec.GuardCommand): it owns them, writes their logs, and stops
// them should launch die.
func newGuard() *cobra.Command {
	return &cobra.Command{
		Use:                rlexec.GuardCommand,
		Short:              "Own the workers of `rlsolve launch` (internal)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := rlexec.Guard(os.Stdin, os.Stdout); code != 0 {
				return &exitError{code: code}
			}
			return nil
		},
	}
}
