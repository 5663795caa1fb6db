package rules

import (
	"errors"
	"fmt"
	"slices"

	"github.com/rlsolve/rlsolve/memory"
	"github.com/rlsolve/rlsolve/model"
)

// The GPU memory capacity rule (spec/memory.md §4.4): will each GPU hold
// what is placed on it? The memory package computes each GPU's bytes per
// phase and its findings; this rule makes the errors (the run cannot work:
// RLS-E1001..E1005) conflicts the solver explains, over the facts that
// drive them: the model, the placement parts that put components on the
// GPUs, and every memory setting written in the input (its absence puts
// it back to the framework's default). Warnings (thin headroom, the
// logits spike) and the per-GPU reports come from the same evaluation of
// the config as written (Set.Memory).

// Memory is what the rule knows besides the config: the model's
// architecture, where it came from, and the memory profile.
type Memory struct {
	Arch    memory.Arch
	Source  memory.ArchSource
	Profile memory.Profile
}

// MemoryOptions are NewMemory's inputs besides the settings.
type MemoryOptions struct {
	// ModelConfig is --model-config FILE ("" when not given).
	ModelConfig string
	// Profile is the --mem-profile file's profile; nil is the default.
	Profile *memory.Profile
	// ReadFile reads a model's config.json; nil reads the file system.
	ReadFile func(name string) ([]byte, error)
}

var ruleMemory = &Rule{Name: "GPU memory capacity", Codes: memory.ErrorCodes}

// NewMemory decides whether memory is checked for settings s on nodes
// (the GPUs the run uses): it resolves the model's architecture when some
// node gives its GPUs' memory_gib. It returns nil when memory is not
// checked, with a note that says why (RLS-N1001), or the error of an
// unusable model config (RLS-E1006); else the note naming the
// architecture's source (RLS-N1002). anchor locates notes without a
// setting to point at.
func NewMemory(s *model.MemorySettings, nodes []model.Node, anchor model.Span, opt MemoryOptions) (*Memory, model.Diagnostics) {
	if s == nil || s.ModelPath.Value == "" && s.ModelType.Value == "" && len(s.ModelArgs) == 0 && opt.ModelConfig == "" {
		return nil, nil // no model named: nothing to check
	}
	var ds model.Diagnostics
	at, label := s.ModelPath.Span, "the model"
	switch {
	case at.Known():
	case s.ModelType.Span.Known():
		at = s.ModelType.Span
	default:
		at, label = anchor, ""
	}
	known, unknown := capacityNodes(nodes)
	if len(known) == 0 {
		ds.Notef(model.NoteMemoryUnchecked, at, label, "GPU memory is not checked: the inventory gives no memory_gib for its GPUs").Help =
			[]model.Fix{{Message: "give each node's accelerators `memory_gib` in the inventory (e.g. `accelerators: {count: 8, memory_gib: 80}`)"}}
		return nil, ds
	}
	arch, src, err := memory.ResolveArch(s, memory.ResolveOptions{ModelConfig: opt.ModelConfig, ReadFile: opt.ReadFile})
	switch {
	case errors.Is(err, memory.ErrUnknownArch):
		what := "the model"
		switch {
		case s.ModelPath.Value != "":
			what = fmt.Sprintf("the model at %s", s.ModelPath.Value)
		case s.ModelType.Value != "":
			what = fmt.Sprintf("the model (model_type %s)", s.ModelType.Value)
		}
		ds.Notef(model.NoteMemoryUnchecked, at, label, "GPU memory is not checked: the architecture of %s is unknown (no config.json beside it, and not in the built-in table)", what).Help =
			[]model.Fix{{Message: "give the model's config.json with --model-config FILE"}}
		return nil, ds
	case err != nil:
		return nil, append(ds, memory.Diagnostic(err, at))
	}
	m := &Memory{Arch: arch, Source: src, Profile: memory.DefaultProfile()}
	if opt.Profile != nil {
		m.Profile = *opt.Profile
	}
	noteAt, noteLabel := src.Span, "decides the architecture"
	if !noteAt.Known() {
		noteAt, noteLabel = at, label
	}
	ds.Notef(model.NoteMemoryArch, noteAt, noteLabel, "GPU memory is checked for %s (%.3g B parameters) from the %s, with the %s",
		arch.Name, float64(arch.Params())/1e9, src, m.Profile.Name())
	if len(unknown) > 0 {
		ds.Notef(model.NoteMemoryUnchecked, noteAt, "", "GPU memory is not checked on node(s) %s: the inventory gives no memory_gib for their GPUs", model.CompactRanks(unknown, ","))
	}
	return m, ds
}

// capacityNodes splits the nodes with GPUs into those whose memory_gib is
// known and the others, by rank.
func capacityNodes(nodes []model.Node) (known, unknown []int) {
	for i := range nodes {
		switch n := &nodes[i]; {
		case n.AccelCount <= 0:
		case n.MemoryGiB > 0:
			known = append(known, n.Rank)
		default:
			unknown = append(unknown, n.Rank)
		}
	}
	return known, unknown
}

// MemoryResult is the memory of a config as written: one report per
// distinct GPU layout (identical GPUs grouped), and the warnings with the
// fixes that re-checking confirms. Errors are the solver's conflicts.
type MemoryResult struct {
	Memory   *Memory
	Groups   []memory.Group
	Warnings model.Diagnostics
}

// Memory is the memory of the set's input as written; nil when memory is
// not checked (no settings, no capacities, an unknown model) or the
// placement does not hold.
func (s *Set) Memory() *MemoryResult {
	m := s.memory
	if m == nil {
		return nil
	}
	ev := m.eval(All)
	if ev == nil || ev.groups == nil {
		return nil
	}
	return &MemoryResult{Memory: m.mem, Groups: ev.groups, Warnings: m.warnings(ev)}
}

// memoryInstances adds an instance per error the config as written has
// (per code and component): only those can be conflicts, since every
// removed fact is taken back to its default and an instance that holds
// as written is never compiled.
func (m *memRule) memoryInstances(set *Set) {
	ev := m.eval(All)
	if ev == nil {
		return
	}
	seen := map[string]bool{}
	for _, f := range ev.findings {
		key := f.Code + "|" + f.Component
		if f.Severity != model.SeverityError || seen[key] {
			continue
		}
		seen[key] = true
		code, comp := f.Code, f.Component
		set.Rules = append(set.Rules, &Instance{Rule: ruleMemory, Name: fmt.Sprintf("GPU memory of %s (%s)", comp, code), Reads: m.reads,
			Check: func(p Present) *Violation {
				ev := m.eval(p)
				if ev == nil {
					return nil
				}
				for _, f := range ev.findings {
					if f.Code == code && f.Component == comp {
						return m.violation(f, p)
					}
				}
				return nil
			}})
	}
}

// violation explains a finding over the facts present: each driver that
// is a fact labelled with its value, the preferred ones first; every
// driver's value and the GPUs' capacity as context (the solver keeps the
// facts of a minimal conflict, so that a driver at its default may not be
// one of them).
func (m *memRule) violation(f memory.Finding, p Present) *Violation {
	v := &Violation{Code: f.Code, Summary: f.Summary, Why: f.Why, Primary: -1, Roles: map[int]string{},
		Else: m.anchor, ElseLabel: "the memory settings"}
	var rest []int
	for _, r := range f.PreferRoles() {
		for _, d := range f.Drivers {
			if fid, ok := m.driverFact(d, p); ok && d.Role == r && !slices.Contains(v.Prefer, fid) {
				v.Prefer = append(v.Prefer, fid)
			}
		}
	}
	for _, d := range f.Drivers {
		fid, ok := m.driverFact(d, p)
		if !ok {
			continue
		}
		v.Roles[fid] = driverText(d)
		v.Extra = append(v.Extra, model.Label{Span: d.Span, Message: driverText(d)})
		if !slices.Contains(v.Prefer, fid) && !slices.Contains(rest, fid) {
			rest = append(rest, fid)
		}
	}
	v.Prefer = append(v.Prefer, rest...)
	v.Extra = append(v.Extra, m.capacity...)
	seen := map[string]bool{}
	for _, fx := range f.Fixes {
		if !seen[fx.Key+"="+fx.Value] {
			seen[fx.Key+"="+fx.Value] = true
			v.Fixes = append(v.Fixes, m.fix(fx))
		}
	}
	return v
}

// driverFact is the fact of a located driver, when present.
func (m *memRule) driverFact(d memory.Driver, p Present) (int, bool) {
	if !d.Set || !d.Span.Known() {
		return 0, false
	}
	fid, ok := m.spanFact[d.Span]
	return fid, ok && p(fid)
}

func driverText(d memory.Driver) string { return settingText(d.Key, d.Value) }
