package main

import (
	"encoding/json"
	"os"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/spf13/cobra"
)

func init() { register(newCompose) }

// composedDoc is what compose prints: the composed values and where each
// came from.
type composedDoc struct {
	FormatVersion string                     `json:"format_version"`
	Config        grammar.Ordered            `json:"config"`
	Positions     map[string]*diag.JSONRange `json:"positions"`
}

func newCompose() *cobra.Command {
	return &cobra.Command{
		Use:   "compose FILE [KEY=VALUE...]",
		Short: "Print a config as rlsolve composes it (defaults list, overrides), with where each value came from",
		Long: `compose composes FILE as check does (its Hydra defaults list, then the
overrides after it) and prints one JSON document on stdout: "config", the
values as Python holds them after OmegaConf.to_container(cfg, resolve=True),
and "positions", the file, line and column of every key path (a.b[0].c).
FILE - reads standard input. Composition errors are reported as check
reports them (exit 1).

It is how Hydra's own composition is compared with rlsolve's, and how the
Python API traces an object Hydra composed back to its files.`,
		Example: `  rlsolve compose examples/composed-defaults/train.yaml rollout.tensor_parallel_size=4`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var in inputFlags
			files, err := in.files(args)
			if err != nil {
				return err
			}
			if len(files) != 1 {
				return usageErrorf("compose takes one config FILE, then its overrides")
			}
			return composeFile(files[0], &in)
		},
	}
}

func composeFile(file string, in *inputFlags) error {
	var data []byte
	var d *model.Diagnostic
	if file == "-" {
		file = grammar.StdinName
		data, d = grammar.ReadFrom(file, os.Stdin, grammar.DefaultLimits)
	} else {
		data, d = grammar.ReadFile(file, grammar.DefaultLimits)
	}
	src := in.sources()
	if d != nil {
		return report(model.Diagnostics{*d}, src, file, nil, exitUsage)
	}
	src.Files[file] = data
	c, ds := grammar.ComposeValues(file, data, grammar.ConfigOptions{Overrides: in.overrides})
	if c == nil || ds.HasErrors() {
		return report(ds, src, file, nil, exitInvalid)
	}
	out := composedDoc{FormatVersion: diag.FormatVersion, Config: c.Config, Positions: map[string]*diag.JSONRange{}}
	for _, p := range c.Paths {
		out.Positions[p] = diag.Range(c.Spans[p])
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // <stdin> and <command line> as they are
	return enc.Encode(out)
}
