package pipeline

import (
	"strconv"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/internal/fuzzy"
)

// What shell completion offers from a config named on the command line.

// ConfigComponents lists the component names of the config in file (nil
// when it cannot be read).
func ConfigComponents(file string) []string {
	data, d := grammar.ReadFile(file, grammar.DefaultLimits)
	if d != nil {
		return nil
	}
	cfg, _ := grammar.LoadConfig(file, data, grammar.DefaultLimits)
	if cfg == nil {
		return nil
	}
	var names []string
	for _, e := range cfg.Components {
		names = append(names, e.Names...)
	}
	return names
}

// WorkerRanks lists the ranks of component's workers (of the nearest
// name's when no component has that name), at most limit, planning file
// with opt; nil when it does not plan.
func WorkerRanks(file, component string, opt Options, limit int) []string {
	o := CheckFile(file, opt)
	if o.Result == nil || o.Result.Plan == nil {
		return nil
	}
	plan := o.Result.Plan
	cp := plan.Component(component)
	if cp == nil {
		cp = plan.Component(fuzzy.Nearest(component, plan.Names()))
	}
	if cp == nil {
		return nil
	}
	var out []string
	for i := range min(cp.Placements.Len(), limit) {
		out = append(out, strconv.Itoa(i))
	}
	return out
}
