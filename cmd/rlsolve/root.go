package main

import (
	"fmt"
	"strings"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/internal/buildinfo"
	"github.com/rlsolve/rlsolve/internal/fuzzy"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "rlsolve",
		Short:         "Check, plan and explain GPU-cluster placements for RL training",
		Long:          help("rlsolve"),
		Example:       help("rlsolve.example"),
		SilenceUsage:  true,
		SilenceErrors: true,
		// A bare `rlsolve` is a usage error: show the help on stderr, exit 2.
		RunE: func(cmd *cobra.Command, args []string) error {
			cmd.SetOut(cmd.ErrOrStderr())
			_ = cmd.Help()
			return &exitError{code: exitUsage}
		},
	}
	// --version prints what `rlsolve version` prints (cobra adds the flag
	// when Version is set; the template replaces its own wording).
	root.Version = buildinfo.Short()
	root.SetVersionTemplate(strings.ReplaceAll(buildinfo.Text(), "{{", "{{`{{`}}") + "\n")
	root.PersistentFlags().Var((*colorFlag)(&colorMode), "color", "ANSI colours in messages: auto (a terminal, unless NO_COLOR is set or TERM=dumb), always or never")
	_ = root.RegisterFlagCompletionFunc("color", cobra.FixedCompletions(diag.ColorModes, cobra.ShellCompDirectiveNoFileComp))
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return suggestFlag(c, err) })
	for _, c := range commands {
		root.AddCommand(c())
	}
	return root
}

// colorFlag is --color, checked when it is parsed.
type colorFlag string

func (f *colorFlag) String() string { return string(*f) }
func (f *colorFlag) Type() string   { return "auto|always|never" }
func (f *colorFlag) Set(s string) error {
	if err := diag.CheckColorMode(s); err != nil {
		return err
	}
	*f = colorFlag(s)
	return nil
}

// suggestFlag adds "did you mean --X?" to an unknown long flag's error:
// the nearest of the flags the command takes (its own and inherited).
func suggestFlag(c *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	c.InheritedFlags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	if near := fuzzy.Nearest(name, names); near != "" {
		return fmt.Errorf("%w; did you mean --%s?", err, near)
	}
	return err
}

// commands are the subcommands; each command's file registers its own in
// an init function, so adding a command touches only its file.
var commands []func() *cobra.Command

func register(c func() *cobra.Command) { commands = append(commands, c) }
