package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/render"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
)

func init() { register(newPlan) }

func newPlan() *cobra.Command {
	var in inputFlags
	var output, component string
	var rank int
	c := &cobra.Command{
		Use:   "plan FILE [KEY=VALUE...]",
		Short: "Show where every worker lands: node, GPUs, ranks, environment",
		Long: `plan expands a valid config into one record per worker, with RLinf's placement
fields, the host and address the inventory knows, and the exact environment
the worker gets. A table by default; --output json is a versioned document for
scripts; --output env prints 'export K=V' lines for one worker.`,
		Example: `  rlsolve plan train.yaml
  rlsolve plan train.yaml cluster.num_nodes=4 --gpus-per-node 8
  rlsolve plan train.yaml --inventory cluster.yaml --output json | jq '.components.actor.placements[0]'
  rlsolve plan train.yaml --output env --component rollout --rank 3`,
		Args: func(cmd *cobra.Command, args []string) error {
			files, err := in.files(args)
			if err != nil {
				return err
			}
			if in.slime != "" {
				return cobra.MaximumNArgs(1)(cmd, files) // the --slime flags are the layout; FILE is optional
			}
			return cobra.ExactArgs(1)(cmd, files)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := in.strategyMode(); err != nil {
				return err
			}
			args, _ = in.files(args)
			if in.slime != "" || pipeline.AnySlimeFile(args) {
				return planSlime(&in, args, output, component, rank)
			}
			switch output {
			case "table", "text", "json", "yaml", "svg", "html":
			case "env":
				if component == "" {
					return usageErrorf("--output env needs --component NAME and --rank R")
				}
			default:
				return usageErrorf("--output must be table, json, yaml or env, not %q (or svg or html for a picture)", output)
			}
			inv, bad := in.loadInventory()
			if bad != nil {
				diag.Text(os.Stderr, bad.Diagnostics, diag.DiskSources(), useColor())
				diag.Summary(os.Stderr, bad.Diagnostics, bad.File)
				return exitFor([]*pipeline.Outcome{bad}, in.strict)
			}
			o := in.analyze(args[0], inv)
			diag.Text(os.Stderr, o.Diagnostics, in.sources(), useColor())
			if o.Failed(in.strict) || o.Result == nil || o.Result.Plan == nil {
				diag.Summary(os.Stderr, o.Diagnostics, o.File)
				strictNote(o, in.strict)
				return exitFor([]*pipeline.Outcome{o}, in.strict)
			}
			doc := o.Result.NewDocument(o.Inventory, diag.JSON(o.Diagnostics))
			switch output {
			case "table", "text":
				o.Result.WriteTable(os.Stdout)
			case "svg":
				return render.SVG(os.Stdout, o.Result, render.Options{Title: args[0]})
			case "html":
				return render.HTML(os.Stdout, o.Result, render.Options{Title: args[0]})
			case "json":
				return doc.WriteJSON(os.Stdout, true)
			case "yaml":
				var buf bytes.Buffer
				_ = doc.WriteJSON(&buf, false)
				b := buf.Bytes()
				var v any
				_ = json.Unmarshal(b, &v)
				out, err := yaml.Marshal(v)
				if err != nil {
					return err
				}
				_, err = os.Stdout.Write(out)
				return err
			case "env":
				comp, ok := doc.Components[component]
				if !ok {
					return usageErrorf("--output env needs --component NAME (one of %v)", doc.Order)
				}
				if rank < 0 || rank >= len(comp.Placements) {
					return usageErrorf("--rank must be between 0 and %d for %s", len(comp.Placements)-1, component)
				}
				printExports(comp.Placements[rank].Env)
			}
			return nil
		},
	}
	in.register(c)
	c.Flags().StringVarP(&output, "output", "o", "table", "output format: table, json, yaml, env, svg or html")
	c.Flags().StringVar(&component, "component", "", "with --output env: the component")
	c.Flags().IntVar(&rank, "rank", 0, "with --output env: the worker rank")
	completeFlagValues(c, "table", "json", "yaml", "env", "svg", "html")
	return c
}

// printExports prints one worker's environment as `export K=V` lines,
// sorted, values quoted for a POSIX shell (names are checked identifiers).
func printExports(env map[string]string) {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("export %s=%s\n", k, shellQuote(env[k]))
	}
}

// shellQuote quotes a value for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == ',' || r == '.' || r == '_' || r == '-' || r == '/' || r == ':') {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	out := "'"
	for _, r := range s {
		if r == '\'' {
			out += `'\''`
		} else {
			out += string(r)
		}
	}
	return out + "'"
}

// planSlime plans a slime layout (--slime flags and/or a FILE with a slime:
// key): the same document shape as for RLinf configs, with each worker's
// bundles and GPU request, and the engines' ports.
func planSlime(in *inputFlags, args []string, output, component string, rank int) error {
	switch output {
	case "table", "text", "json", "yaml":
	case "env":
		if component == "" {
			return usageErrorf("--output env needs --component NAME and --rank R")
		}
	default:
		return usageErrorf("--output must be table, json, yaml or env for a slime layout, not %q", output)
	}
	src := diag.DiskSources()
	inv, bad := in.loadInventory()
	if bad != nil {
		diag.Text(os.Stderr, bad.Diagnostics, src, useColor())
		diag.Summary(os.Stderr, bad.Diagnostics, bad.File)
		return exitFor([]*pipeline.Outcome{bad}, in.strict)
	}
	file := ""
	if len(args) > 0 {
		file = args[0]
	}
	so := pipeline.CheckSlime(in.slime, file, pipeline.Options{Inventory: inv, GPUsPerNode: in.gpusPerNode, SolverBudget: in.budget})
	for name, text := range so.Sources {
		src.Files[name] = text
	}
	o := so.Outcome
	diag.Text(os.Stderr, o.Diagnostics, src, useColor())
	if o.Failed(in.strict) || so.Plan == nil || so.Plan.Plan == nil {
		diag.Summary(os.Stderr, o.Diagnostics, o.File)
		strictNote(o, in.strict)
		if err := exitFor([]*pipeline.Outcome{o}, in.strict); err != nil {
			return err
		}
		return &exitError{code: exitInvalid}
	}
	doc := so.Plan.NewDocument(o.Inventory, diag.JSON(o.Diagnostics))
	switch output {
	case "table", "text":
		so.Plan.WriteTable(os.Stdout)
	case "json":
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	case "yaml":
		b, _ := json.Marshal(doc)
		var v any
		_ = json.Unmarshal(b, &v)
		out, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = os.Stdout.Write(out)
		return err
	case "env":
		env, err := doc.Env(component, rank)
		if err != nil {
			return usageErrorf("%v", err)
		}
		printExports(env)
	}
	return nil
}
