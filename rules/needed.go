package rules

import (
	"fmt"
	"slices"

	"github.com/rlsolve/rlsolve/internal/fuzzy"
	"github.com/rlsolve/rlsolve/model"
)

// The components each HybridComponentPlacement run asks for by name: the
// entry point starts them, and RLinf fails only then when one is missing.
// The model-parallel classes assert theirs (RLS-E0501).
var hybridNeeds = map[string][]string{
	"embodied":      {"actor", "rollout", "env"},
	"embodied_eval": {"rollout", "env"},
	"sft":           {"actor"},
}

var ruleNeededNames = &Rule{Name: "the components the run asks for are named", Codes: []string{model.CodeNeededMisspelled}}

// neededNames adds, for each component the run needs that the config does
// not name, a rule over the entry whose unknown name is close to it: a
// typo that RLinf finds only when the run asks for the component.
func (b *builder) neededNames() {
	if b.opt.Class != model.ClassHybrid {
		return
	}
	for _, need := range hybridNeeds[b.cfg.Run.TaskType.Value] {
		if b.entryOf(need) >= 0 {
			continue
		}
		ei, ni := b.nearName(need)
		if ei < 0 {
			continue
		}
		e := &b.cfg.Components[ei]
		typo, span := e.Names[ni], e.NameSpans[ni]
		v := &Violation{Code: model.CodeNeededMisspelled, Primary: -1, Else: span,
			ElseLabel: fmt.Sprintf("did you mean `%s`?", need),
			Summary:   fmt.Sprintf("component `%s` is not one this run starts, and the `%s` it needs is missing", typo, need),
			Why: fmt.Sprintf("runner.task_type %s starts %s by name; RLinf accepts the placement and fails when the run asks for `%s`.",
				b.cfg.Run.TaskType.Value, joinAnd(hybridNeeds[b.cfg.Run.TaskType.Value]), need),
			Fixes: []Fix{b.renameFix(ei, ni, need)}}
		b.set.Rules = append(b.set.Rules, &Instance{Rule: ruleNeededNames, Name: ruleNeededNames.Name, Reads: b.entryFacts(ei),
			Check: func(Present) *Violation { return v }})
	}
}

// nearName is the entry and name index of the placed name closest to
// need that no run knows (an extra engine or a component of any class is
// a name of its own, not a typo); -1 when none is close.
func (b *builder) nearName(need string) (int, int) {
	for ei := range b.cfg.Components {
		e := &b.cfg.Components[ei]
		for ni, n := range e.Names {
			if ni >= len(e.NameSpans) || knownName(n) {
				continue
			}
			if fuzzy.Nearest(n, []string{need}) == need {
				return ei, ni
			}
		}
	}
	return -1, -1
}

func knownName(n string) bool {
	if n == "env" || slices.Contains(model.MPComponents, n) {
		return true
	}
	for _, l := range hybridNeeds {
		if slices.Contains(l, n) {
			return true
		}
	}
	return false
}

// renameFix renames name ni of entry ei to name.
func (b *builder) renameFix(ei, ni int, name string) Fix {
	return b.fix(fmt.Sprintf("did you mean `%s`? rename the component", name), func(cfg *model.Config) (model.Edit, bool) {
		e := &cfg.Components[ei]
		e.Names[ni] = name
		return model.Edit{Span: e.NameSpans[ni], NewText: name}, true
	})
}
