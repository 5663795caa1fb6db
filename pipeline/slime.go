package pipeline

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/solver"
	"github.com/rlsolve/rlsolve/strategies"
	"github.com/rlsolve/rlsolve/topology"
)

// SlimeOutcome is everything known about one slime layout. Its Outcome
// carries the diagnostics and exit status as for RLinf configs (Config and
// Result stay nil); the slime plan is in Plan.
type SlimeOutcome struct {
	*Outcome
	Slime    *model.SlimeConfig
	Topology *model.SlimeTopology
	Plan     *strategies.SlimeResult
	// Sources holds the slime command under its source name
	// (grammar.SlimeSource, or the file it was read from), so that
	// diagnostics can show it in code frames.
	Sources map[string][]byte
}

// ReadSlimeCommand reads --slime's value: `@FILE` reads the command from a
// file and `@-` (or `-`) from in, both bounded by the limit on a slime
// command; anything else is the command itself. source names it for spans.
func ReadSlimeCommand(arg string, in io.Reader, lim grammar.Limits) (text, source string, d *model.Diagnostic) {
	if lim.MaxStringBytes == 0 {
		lim = grammar.DefaultLimits
	}
	file, isFile := strings.CutPrefix(arg, "@")
	switch {
	case arg == "-" || isFile && file == "-":
		data, err := io.ReadAll(io.LimitReader(in, int64(lim.MaxStringBytes)+1))
		if err != nil {
			return "", "", &model.Diagnostic{Code: model.CodeFileRead, Severity: model.SeverityError,
				Summary: fmt.Sprintf("cannot read the slime command from standard input: %v", err), Primary: model.Span{File: "<stdin>"}}
		}
		if len(data) > lim.MaxStringBytes {
			return "", "", &model.Diagnostic{Code: model.CodeLimit, Severity: model.SeverityError,
				Summary: fmt.Sprintf("the slime command on standard input is longer than %d bytes; rlsolve reads at most %d", lim.MaxStringBytes, lim.MaxStringBytes),
				Primary: model.Span{File: "<stdin>"}}
		}
		return string(data), "<stdin>", nil
	case isFile:
		flim := lim
		flim.MaxFileBytes = lim.MaxStringBytes
		data, d := ReadFile(file, flim)
		if d != nil {
			return "", "", d
		}
		return string(data), file, nil
	}
	return arg, grammar.SlimeSource, nil
}

// IsSlimeFile reports whether file is a YAML file with a top-level `slime:`
// key (and no `cluster:`), which check and plan read as a slime layout.
func IsSlimeFile(file string) bool {
	if file == "" {
		return false
	}
	st, err := os.Stat(file)
	// Only a regular file can be looked at twice: peeking into a pipe would
	// consume what the real read needs.
	if err != nil || !st.Mode().IsRegular() || st.Size() > int64(grammar.DefaultLimits.MaxFileBytes) {
		return false
	}
	data, err := os.ReadFile(file)
	return err == nil && grammar.IsSlimeDoc(data)
}

// CheckSlime runs the whole check on a slime layout: the --slime flags,
// a YAML file (its `slime:` keys and `inventory:`), or both, the flags
// winning. file may be "" when flags are given.
func CheckSlime(flags, file string, opt Options) *SlimeOutcome {
	if opt.Limits.MaxFileBytes == 0 {
		opt.Limits = grammar.DefaultLimits
	}
	lim := opt.Limits
	so := &SlimeOutcome{Outcome: &Outcome{File: file}, Sources: map[string][]byte{}}
	src := opt.SlimeSource
	if src == "" {
		src = grammar.SlimeSource
	}
	if file == "" {
		so.File = src
	}
	var cfg *model.SlimeConfig
	if file != "" {
		data, d := ReadFile(file, lim)
		if d != nil {
			so.Diagnostics, so.IOError = model.Diagnostics{*d}, true
			return so
		}
		c, ds := grammar.LoadSlime(file, data, lim, flags == "")
		so.Diagnostics = append(so.Diagnostics, ds...)
		cfg = c
		if c == nil {
			return so
		}
	}
	if flags != "" || file == "" {
		so.Sources[src] = []byte(flags)
		c, ds := grammar.ParseSlimeCommand(src, flags, lim)
		so.Diagnostics = append(so.Diagnostics, ds...)
		if c == nil {
			return so
		}
		if cfg == nil {
			cfg = c
		} else {
			cfg.Overlay(c)
		}
	}
	so.Slime = cfg
	if so.Diagnostics.HasErrors() {
		SortByPosition(so.Diagnostics)
		return so
	}
	inv, note := slimeInventory(cfg, opt)
	if note != "" {
		so.Diagnostics = append(so.Diagnostics, model.Diagnostic{Code: model.NoteAssumedInventory, Severity: model.SeverityNote,
			Summary: note, Primary: cfg.Span, PrimaryLabel: "GPU counts from here"})
	}
	so.Inventory = inv
	so.Topology = model.NewSlimeTopology(inv.Nodes, StableOrder(inv.Nodes))
	so.Topology.Span = inv.Span
	so.Plan = strategies.PlanSlime(cfg, so.Topology, strategies.SlimeOptions{MaxBundles: lim.MaxTotalProcesses})
	solved, err := solver.CheckSlime(cfg, so.Topology, solver.Options{Budget: opt.SolverBudget})
	so.Solver = solved
	so.settle(so.Plan.Diagnostics, solved, err, cfg.Span, "raise --solver-budget")
	if so.Diagnostics.HasErrors() {
		so.Plan.Plan = nil
	}
	return so
}

// slimeInventory picks the inventory in design.md's order: --inventory, the
// file's `inventory:`, --gpus-per-node, else nodes of --num-gpus-per-node
// GPUs (8 by default), assumed. A uniform inventory has as many nodes as the
// placement group needs.
func slimeInventory(cfg *model.SlimeConfig, opt Options) (*model.Inventory, string) {
	s := cfg.Settings(nil)
	total, _ := s.Bundles()
	if s.Mode() == model.SlimeColocateMode {
		total = max(total, s.Rollout())
	}
	nodes := func(g int) int {
		if g <= 0 {
			return 1
		}
		return min(max(1, (total+g-1)/g), opt.Limits.MaxClusterNodes)
	}
	switch {
	case opt.Inventory != nil:
		return opt.Inventory, ""
	case cfg.Inventory != nil:
		return cfg.Inventory, ""
	case opt.GPUsPerNode >= 0:
		return topology.Uniform(nodes(opt.GPUsPerNode), opt.GPUsPerNode, fmt.Sprintf("--gpus-per-node %d", opt.GPUsPerNode)), ""
	}
	g := s.NumGPUsPerNode
	inv := topology.Uniform(nodes(g), g, "assumed")
	inv.Assumed = true
	return inv, fmt.Sprintf("no inventory given: assuming %d node(s) with %d NVIDIA GPUs each, from --num-gpus-per-node (pass --inventory FILE or --gpus-per-node N)", len(inv.Nodes), g)
}

// StableOrder is slime's stable order of the inventory's nodes (numeric
// IPv4, else host name, else characters: topology.Order), as indices into
// nodes.
func StableOrder(nodes []model.Node) []int {
	type key struct{ ip, host string }
	queue := map[key][]int{}
	for i, n := range nodes {
		k := key{n.IP, n.Hostname}
		queue[k] = append(queue[k], i)
	}
	sorted, _ := topology.Order(nodes)
	out := make([]int, 0, len(nodes))
	for _, n := range sorted {
		k := key{n.IP, n.Hostname}
		if q := queue[k]; len(q) > 0 {
			out = append(out, q[0])
			queue[k] = q[1:]
		}
	}
	return out
}

// AnySlimeFile reports whether one of files is a slime YAML file.
func AnySlimeFile(files []string) bool {
	for _, f := range files {
		if IsSlimeFile(f) {
			return true
		}
	}
	return false
}
