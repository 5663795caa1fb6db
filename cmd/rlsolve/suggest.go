package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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
	"github.com/rlsolve/rlsolve/topology"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
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

Cluster, first found: --inventory FILE; --gpus-per-node K; an inventory: key in
FILE; otherwise 8 GPUs per node (one node when N < 8), with a note.

Exit codes: 0 suggestions printed, 1 invalid config or no valid placement,
2 usage or I/O error, 3 internal error or solver budget exceeded.`,
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
	c.Flags().StringVar(&f.inventory, "inventory", "", "inventory `FILE` describing the cluster's nodes")
	c.Flags().IntVar(&f.top, "top", 3, "how many suggestions to print, best first")
	c.Flags().StringVarP(&f.output, "output", "o", "text", "output format: text, yaml or json")
	c.Flags().StringVar(&f.profile, "profile", "", "costs in seconds per step, overriding profile_data: `actor=S,rollout=S,inference=S`")
	c.Flags().DurationVar(&f.budget, "solver-budget", 10*time.Second, "time each re-check's solver may take before giving up (exit 3)")
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
	switch f.output {
	case "text", "yaml", "json":
	default:
		return usageErrorf("--output must be text, yaml or json, not %q", f.output)
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
			return reportDiags(model.Diagnostics{*d}, file, exitUsage)
		}
		var ds model.Diagnostics
		spec, ds = suggest.Load(file, data)
		if spec == nil {
			return reportDiags(ds, file, exitInvalid)
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
			at := model.Span{File: file}
			if file == "" {
				at.File = "<flags>"
			}
			d := model.Diagnostic{Code: e.Code, Severity: model.SeverityError, Summary: e.Msg, Primary: at, Why: e.Why}
			if e.Help != "" {
				d.Help = []model.Fix{{Message: e.Help}}
			}
			printNotes(os.Stderr, spec, notes)
			return reportDiags(model.Diagnostics{d}, file, exitInvalid)
		}
		return &exitError{code: exitInternal, msg: err.Error()}
	}
	var out bytes.Buffer
	doc := suggestDocument(res, spec, notes)
	switch f.output {
	case "json":
		enc := json.NewEncoder(&out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			return &exitError{code: exitInternal, msg: err.Error()}
		}
	case "yaml":
		b, err := yaml.Marshal(doc)
		if err != nil {
			return &exitError{code: exitInternal, msg: err.Error()}
		}
		out.Write(b)
	default:
		printNotes(os.Stderr, spec, notes)
		writeSuggestText(&out, res, spec)
	}
	_, _ = os.Stdout.Write(out.Bytes())
	return nil
}

// reportDiags prints diagnostics on stderr and exits with code.
func reportDiags(ds model.Diagnostics, file string, code int) error {
	diag.Text(os.Stderr, ds, diag.DiskSources(), useColor())
	if file != "" {
		diag.Summary(os.Stderr, ds, file)
	}
	return &exitError{code: code}
}

// suggestCluster decides the GPUs and their nodes.
func suggestCluster(f *suggestFlags, spec *suggest.Spec, file string) (*suggest.Cluster, []string, error) {
	var notes []string
	inv := spec.Inventory
	if f.inventory != "" {
		var bad *pipeline.Outcome
		inv, bad = pipeline.LoadInventory(f.inventory, grammar.DefaultLimits)
		if bad != nil {
			code := exitInvalid
			if bad.IOError {
				code = exitUsage
			}
			return nil, nil, reportDiags(bad.Diagnostics, bad.File, code)
		}
	}
	if inv != nil && f.gpusPerNode < 0 {
		cl, err := suggest.NewCluster(inv, f.gpus)
		if err != nil {
			return nil, nil, usageErrorf("%v", err)
		}
		return cl, notes, nil
	}
	n := f.gpus
	per := f.gpusPerNode
	if n == 0 {
		if spec.NumNodes == 0 {
			return nil, nil, usageErrorf("say how many GPUs to plan for: --gpus N (or --inventory FILE)")
		}
		if per < 0 {
			per = topology.DefaultGPUsPerNode
			notes = append(notes, fmt.Sprintf("no inventory given: assuming %d GPUs per node (pass --inventory FILE or --gpus-per-node K)", per))
		}
		n = spec.NumNodes * per
		notes = append(notes, fmt.Sprintf("planning for cluster.num_nodes %d x %d GPUs = %d GPUs (pass --gpus N to change)", spec.NumNodes, per, n))
	} else if per < 0 {
		per = min(n, topology.DefaultGPUsPerNode)
		if n%per != 0 {
			return nil, nil, usageErrorf("%d GPUs are not whole nodes of %d: pass --gpus-per-node K or --inventory FILE", n, per)
		}
		notes = append(notes, fmt.Sprintf("no inventory given: assuming %s (pass --inventory FILE or --gpus-per-node K)", nodesText(uniformSizes(n/per, per))))
	}
	if n > suggest.MaxGPUs {
		return nil, nil, usageErrorf("suggest plans for at most %d GPUs, not %d", suggest.MaxGPUs, n)
	}
	cl, err := suggest.UniformCluster(n, per)
	if err != nil {
		return nil, nil, usageErrorf("%v", err)
	}
	return cl, notes, nil
}

func printNotes(w io.Writer, spec *suggest.Spec, notes []string) {
	for _, n := range allNotes(spec, notes) {
		fmt.Fprintln(w, "note: "+n)
	}
	for _, n := range spec.Warnings {
		fmt.Fprintln(w, "warning: "+n)
	}
}

func allNotes(spec *suggest.Spec, notes []string) []string {
	out := append(append([]string(nil), spec.Notes...), notes...)
	if spec.ProfileSource == suggest.SourceDefault {
		if spec.Task == suggest.TaskEmbodied {
			out = append(out, "no profile_data: default curves (env and rollout 1 s per env per GPU, actor 1 s); the ranking only shows the shape of the trade-off")
		} else {
			out = append(out, "no profile_data: ranked with balanced costs (actor, rollout and inference 1 s per step each, profiled on all GPUs); pass --profile or add profile_data for real numbers")
		}
	}
	return out
}

// placementDoc keeps component_placement in placement order in JSON and
// YAML.
type placementDoc []suggest.Entry

func (p placementDoc) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.Key)
		v, _ := json.Marshal(e.Value)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (p placementDoc) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, e := range p {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: e.Key},
			&yaml.Node{Kind: yaml.ScalarNode, Value: e.Value, Style: yaml.DoubleQuotedStyle})
	}
	return n, nil
}

type stageDoc struct {
	Name  string  `json:"name" yaml:"name"`
	GPUs  int     `json:"gpus" yaml:"gpus"`
	First int     `json:"first" yaml:"first"`
	Last  int     `json:"last" yaml:"last"`
	Cost  float64 `json:"cost" yaml:"cost"`
}

type suggestionDoc struct {
	Rank               int          `json:"rank" yaml:"rank"`
	Mode               string       `json:"mode" yaml:"mode"`
	TotalCost          float64      `json:"total_cost" yaml:"total_cost"`
	ComponentPlacement placementDoc `json:"component_placement" yaml:"component_placement"`
	NumNodes           int          `json:"num_nodes" yaml:"num_nodes"`
	Stages             []stageDoc   `json:"stages" yaml:"stages"`
	Bottleneck         string       `json:"bottleneck,omitempty" yaml:"bottleneck,omitempty"`
	Formula            string       `json:"formula" yaml:"formula"`
	Checked            bool         `json:"checked" yaml:"checked"`
}

type suggestDoc struct {
	FormatVersion  string          `json:"format_version" yaml:"format_version"`
	Task           string          `json:"task" yaml:"task"`
	GPUs           int             `json:"gpus" yaml:"gpus"`
	Nodes          []int           `json:"nodes" yaml:"nodes,flow"`
	ProfileSource  string          `json:"profile_source" yaml:"profile_source"`
	CostUnit       string          `json:"cost_unit" yaml:"cost_unit"`
	StageCostUnit  string          `json:"stage_cost_unit" yaml:"stage_cost_unit"`
	CollocatedCost *float64        `json:"collocated_cost" yaml:"collocated_cost"`
	BestSplitCost  *float64        `json:"best_split_cost" yaml:"best_split_cost"`
	Priced         int             `json:"layouts_priced" yaml:"layouts_priced"`
	Valid          int             `json:"layouts_valid" yaml:"layouts_valid"`
	Suggestions    []suggestionDoc `json:"suggestions" yaml:"suggestions"`
	Notes          []string        `json:"notes" yaml:"notes"`
	Warnings       []string        `json:"warnings" yaml:"warnings"`
}

func optFloat(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func stageUnit(task string) string {
	if task == suggest.TaskEmbodied {
		return "seconds per iteration"
	}
	return "seconds per prompt group (profiled cost / rollout_batch_size, scaled to the stage's GPUs)"
}

func suggestDocument(res *suggest.Result, spec *suggest.Spec, notes []string) suggestDoc {
	d := suggestDoc{FormatVersion: "1", Task: res.Task, GPUs: res.GPUs, Nodes: res.NodeSizes, ProfileSource: res.ProfileSource,
		CostUnit: "modeled seconds per iteration", StageCostUnit: stageUnit(res.Task),
		CollocatedCost: optFloat(res.CollocatedCost), BestSplitCost: optFloat(res.BestSplitCost),
		Priced: res.Costed, Valid: res.Valid, Notes: allNotes(spec, notes), Warnings: spec.Warnings}
	if d.Notes == nil {
		d.Notes = []string{}
	}
	if d.Warnings == nil {
		d.Warnings = []string{}
	}
	for i, s := range res.Suggestions {
		sd := suggestionDoc{Rank: i + 1, Mode: s.Mode, TotalCost: s.TotalCost, ComponentPlacement: placementDoc(s.Placement),
			NumNodes: s.NumNodes, Bottleneck: s.Bottleneck, Formula: s.Formula, Checked: true}
		for _, st := range s.Stages {
			sd.Stages = append(sd.Stages, stageDoc(st))
		}
		d.Suggestions = append(d.Suggestions, sd)
	}
	return d
}

func uniformSizes(nodes, per int) []int {
	out := make([]int, nodes)
	for i := range out {
		out[i] = per
	}
	return out
}

func nodesText(sizes []int) string {
	same := true
	for _, s := range sizes {
		same = same && s == sizes[0]
	}
	if same && len(sizes) == 1 {
		return fmt.Sprintf("1 node of %d GPUs", sizes[0])
	}
	if same && len(sizes) > 0 {
		return fmt.Sprintf("%d nodes x %d GPUs", len(sizes), sizes[0])
	}
	parts := make([]string, len(sizes))
	for i, s := range sizes {
		parts[i] = strconv.Itoa(s)
	}
	return "nodes of " + strings.Join(parts, "+") + " GPUs"
}

func writeSuggestText(w io.Writer, res *suggest.Result, spec *suggest.Spec) {
	fmt.Fprintf(w, "%s placements for %d GPUs (%s), costs from %s\n", res.Task, res.GPUs, nodesText(res.NodeSizes), res.ProfileSource)
	fmt.Fprintf(w, "%d layouts priced, %d valid; each suggestion re-checked with rlsolve check\n", res.Costed, res.Valid)
	unit := "s/group"
	if res.Task == suggest.TaskEmbodied {
		unit = "s/iter"
	} else {
		fmt.Fprintf(w, "s/group: a stage's modeled seconds per prompt group on its GPUs\n")
	}
	for i, s := range res.Suggestions {
		fmt.Fprintf(w, "\n#%d  %s, %.6g s per iteration%s\n", i+1, s.Mode, s.TotalCost, versus(res, s, i))
		rows := [][]string{{"stage", "GPUs", "range", unit, ""}}
		for _, st := range s.Stages {
			mark := ""
			if st.Name == s.Bottleneck {
				mark = "bottleneck"
			}
			rows = append(rows, []string{st.Name, strconv.Itoa(st.GPUs), fmt.Sprintf("%d-%d", st.First, st.Last), fmt.Sprintf("%.6g", st.Cost), mark})
		}
		writeRows(w, "    ", rows)
		fmt.Fprintf(w, "    %s\n", s.Formula)
		fmt.Fprintf(w, "    cluster:\n      num_nodes: %d\n      component_placement:\n", s.NumNodes)
		for _, e := range s.Placement {
			v := e.Value
			if strings.Contains(v, ":") {
				v = strconv.Quote(v)
			}
			fmt.Fprintf(w, "        %s: %s\n", e.Key, v)
		}
	}
}

// versus says how the first suggestion compares with the best of the
// other mode.
func versus(res *suggest.Result, s suggest.Suggestion, i int) string {
	if i > 0 {
		return ""
	}
	other, name := res.CollocatedCost, "collocated"
	if s.Mode == suggest.ModeCollocated {
		other, name = res.BestSplitCost, "the best split"
	}
	if math.IsNaN(other) {
		if s.Mode == suggest.ModeCollocated {
			return " (no valid split)"
		}
		return " (collocated is not a valid placement here)"
	}
	if other <= s.TotalCost {
		return fmt.Sprintf(" (ties %s)", name)
	}
	return fmt.Sprintf(" (%.1f%% less than %s: %.6g s)", 100*(other-s.TotalCost)/other, name, other)
}

func writeRows(w io.Writer, indent string, rows [][]string) {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len(c))
		}
	}
	for _, r := range rows {
		var b strings.Builder
		b.WriteString(indent)
		for i, c := range r {
			if i == 1 {
				b.WriteString(strings.Repeat(" ", widths[i]-len(c)) + c)
			} else {
				b.WriteString(c + strings.Repeat(" ", widths[i]-len(c)))
			}
			if i < len(r)-1 {
				b.WriteString("  ")
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}
