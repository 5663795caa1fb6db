package memory

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// Finding is one memory problem on one or more identical GPUs, with the
// settings that drive it and candidate fixes as data: the rules layer
// verifies a fix by applying it and checking again.
type Finding struct {
	Code     string         `json:"code"`
	Severity model.Severity `json:"-"`
	GPUs     []string       `json:"gpus"`
	Phase    Phase          `json:"phase"`
	// Component is the component the finding is about: the one holding
	// the most of the phase's state or memory, or the engine.
	Component string `json:"component"`
	Summary   string `json:"summary"`
	Why       string `json:"why"`
	// Bytes is the amount at fault (state, peak, spike, missing KV) and
	// Capacity what it is compared with.
	Bytes    int64          `json:"bytes"`
	Capacity int64          `json:"capacity_bytes"`
	Drivers  Drivers        `json:"drivers"`
	Fixes    []FixCandidate `json:"fixes"`
}

// FixCandidate is one way out: set Key to Value. Set says whether the key
// is in the input (its Span is then the value to replace) or must be added.
type FixCandidate struct {
	Role    Role       `json:"role"`
	Key     string     `json:"key"`
	Span    model.Span `json:"-"`
	Set     bool       `json:"set"`
	Value   string     `json:"value"`
	Message string     `json:"message"`
}

// Diagnostic turns the finding into rlsolve's diagnostic: the first
// located driver is the primary span, the others labels, the fixes help
// (an edit where the key is in the file).
func (f Finding) Diagnostic() model.Diagnostic {
	d := model.Diagnostic{Code: f.Code, Severity: f.Severity, Summary: f.Summary, Why: f.Why}
	first := true
	seen := map[model.Span]bool{}
	for _, dr := range f.Drivers {
		if !dr.Span.Known() || seen[dr.Span] {
			continue
		}
		seen[dr.Span] = true
		msg := fmt.Sprintf("%s = %s", dr.Key, dr.Value)
		if first {
			d.Primary, d.PrimaryLabel, first = dr.Span, msg, false
			continue
		}
		d.Labels = append(d.Labels, model.Label{Span: dr.Span, Message: msg})
	}
	done := map[string]bool{}
	for _, fx := range f.Fixes {
		if len(d.Help) == 3 || done[fx.Key+"="+fx.Value] {
			continue
		}
		done[fx.Key+"="+fx.Value] = true
		h := model.Fix{Message: fx.Message}
		if fx.Set && fx.Span.Known() {
			h.Edits = []model.Edit{{Span: fx.Span, NewText: fx.Value}}
		}
		d.Help = append(d.Help, h)
	}
	return d
}

// Check judges every GPU: errors where the run cannot work, warnings where
// the estimate leaves too little room. Identical findings on several GPUs
// are merged into one naming them all.
func Check(reports []GPUReport, prof Profile) []Finding {
	var out []Finding
	index := map[string]int{}
	for _, r := range reports {
		for _, f := range checkGPU(r, prof) {
			key := f.Code + "|" + f.Phase.String() + "|" + f.Summary
			if i, ok := index[key]; ok {
				out[i].GPUs = append(out[i].GPUs, r.Label)
				continue
			}
			f.GPUs = []string{r.Label}
			index[key] = len(out)
			out = append(out, f)
		}
	}
	for i := range out {
		if n := len(out[i].GPUs); n > 1 {
			out[i].Summary += fmt.Sprintf(" (on %d GPUs: %s)", n, shortList(out[i].GPUs, 4))
		} else if n == 1 && out[i].GPUs[0] != "" {
			out[i].Summary += " (" + out[i].GPUs[0] + ")"
		}
	}
	return out
}

func shortList(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(", ... %d more", len(xs)-n)
}

// checkGPU applies every check to one GPU, errors first.
func checkGPU(r GPUReport, prof Profile) []Finding {
	var out []Finding
	out = append(out, checkState(r)...)
	out = append(out, checkEngines(r)...)
	out = append(out, checkFractions(r)...)
	if len(out) > 0 {
		return out // the estimates below would only repeat the error
	}
	return append(append(out, checkHeadroom(r, prof)...), checkOpenTokens(r)...)
}

// phaseDrivers are the drivers of the workers with memory in a phase.
func (r GPUReport) phaseDrivers(p Phase, roles ...Role) Drivers {
	var out Drivers
	seen := map[string]bool{}
	for _, w := range r.workers {
		if w.Phases[p].Total() == 0 {
			continue
		}
		for _, d := range w.Drivers {
			if (len(roles) == 0 || slices.Contains(roles, d.Role)) && !seen[string(d.Role)+d.Key] {
				seen[string(d.Role)+d.Key] = true
				out = append(out, d)
			}
		}
	}
	return out
}

// topParts names what a phase holds by component, with the largest
// component's largest kind when it is most of it ("actor 128.05 GiB,
// 98.30 GiB of activations"), for summaries.
func topParts(u Usage) string {
	by := map[string]int64{}
	kinds := map[string]map[Kind]int64{}
	var order []string
	for _, p := range u {
		if _, ok := by[p.Component]; !ok {
			order = append(order, p.Component)
			kinds[p.Component] = map[Kind]int64{}
		}
		by[p.Component] += p.Bytes
		kinds[p.Component][p.Kind] += p.Bytes
	}
	biggest := ""
	for _, c := range order {
		if biggest == "" || by[c] > by[biggest] {
			biggest = c
		}
	}
	var parts []string
	for _, c := range order {
		s := fmt.Sprintf("%s %s", c, gib(by[c]))
		if c != biggest {
			parts = append(parts, s)
			continue
		}
		var top Kind
		for _, p := range u { // the first largest kind, in the parts' order
			if p.Component == c && kinds[c][p.Kind] > kinds[c][top] {
				top = p.Kind
			}
		}
		if n := kinds[c][top]; 2*n > by[c] && n < by[c] {
			s += fmt.Sprintf(", %s of %s", gib(n), top)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " + ")
}

// ErrorCodes are the codes of the findings that are errors: what the
// memory rule can raise.
var ErrorCodes = []string{model.CodeMemoryState, model.CodeMemoryPool, model.CodeMemoryVLLMInit, model.CodeMemoryFractions, model.CodeMemoryKVSeq}

// preferRoles orders, per error code, the drivers that explain it best.
var preferRoles = map[string][]Role{
	model.CodeMemoryState:     {RoleModel, RoleTP, RoleSharding, RoleDistOpt},
	model.CodeMemoryPool:      {RoleFraction, RoleEngineTP, RoleModel},
	model.CodeMemoryVLLMInit:  {RoleFraction, RoleModel},
	model.CodeMemoryFractions: {RoleFraction, RoleModel},
	model.CodeMemoryKVSeq:     {RoleSeqLength, RoleFraction, RoleEngineTP, RoleModel},
}

// PreferRoles are the drivers a finding's diagnostic points at first,
// most telling first.
func (f Finding) PreferRoles() []Role { return preferRoles[f.Code] }
