package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// The multi-agent classes (RLinf's MultiAgentModelParallel[Eval]
// ComponentPlacement, the wideseek entry points): always collocated, actor
// and reward on the same GPUs, every rollout component inside them,
// exclusive components apart, and extra rollout engines (rollout_judge)
// launched as Packed strategies shaped like the rollout's, from their own
// config sections.

var (
	ruleMAActorReward = &Rule{Name: "multi-agent actor and reward on the same GPUs", Codes: []string{model.CodeMAActorReward}}
	ruleMASubset      = &Rule{Name: "multi-agent rollouts inside the actor's GPUs", Codes: []string{model.CodeMARolloutSubset}}
	ruleMAExclusive   = &Rule{Name: "multi-agent exclusive components apart", Codes: []string{model.CodeMAExclusive}}
	ruleMAExtra       = &Rule{Name: "multi-agent extra engines", Codes: []string{model.CodePackedDivisible, model.CodeMAExtraEngine, model.CodeRankOutOfRange, model.CodeSpansNodes}}
)

// multiAgentChecks are the multi-agent training class's own checks, after
// those it inherits from the model-parallel class.
func (b *builder) multiAgentChecks() []mpCheck {
	cs := []mpCheck{mpc(ruleMAActorReward, "actor and reward on the same GPUs", []string{"actor", "reward"}, nil, (*mpView).actorReward)}
	var exclusive []string
	for _, e := range b.cfg.Components {
		for _, n := range e.Names {
			if n == "rollout" || strings.HasPrefix(n, "rollout_") {
				cs = append(cs, mpc(ruleMASubset, n+" inside the actor's GPUs", []string{"actor", n}, nil, subset(n)))
			}
			if !model.SharedInMultiAgent(n) {
				exclusive = append(exclusive, n)
			}
		}
	}
	cs = append(cs, mpc(ruleMAExclusive, "exclusive components apart", exclusive, nil, (*mpView).exclusive))
	return append(cs, b.extraChecks()...)
}

// extraChecks are the checks of each extra engine (rollout_judge, ...) of a
// multi-agent class.
func (b *builder) extraChecks() []mpCheck {
	var cs []mpCheck
	for _, e := range b.cfg.Components {
		for _, n := range e.Names {
			if !model.ExtraEngine(n) {
				continue
			}
			settings := []string{"actor_tp", "rollout_tp"}
			for _, k := range sectionKeys {
				settings = append(settings, n+"."+k)
			}
			cs = append(cs, mpc(ruleMAExtra, n+" launched like the rollout", []string{n}, settings, extra(n)))
		}
	}
	return cs
}

func (x *mpView) actorReward() *Violation {
	actor, reward := x.lists["actor"], x.lists["reward"]
	if actor == nil || reward == nil || sameSet(actor, reward) {
		return nil
	}
	x.mark("actor", fmt.Sprintf("actor GPUs %s", model.RangeText(sortedSet(actor))))
	x.mark("reward", fmt.Sprintf("reward GPUs %s", model.RangeText(sortedSet(reward))))
	return &Violation{Code: model.CodeMAActorReward, Primary: x.primary("reward"), Roles: x.roles,
		Summary: "actor and reward must be placed on the same GPUs in a multi-agent run",
		Why:     "RLinf's MultiAgentModelParallelComponentPlacement asserts it when the run starts."}
}

// subset checks that rollout component n runs on some of the actor's GPUs.
func subset(n string) func(*mpView) *Violation {
	return func(x *mpView) *Violation {
		actor := x.lists["actor"]
		extra := outside(x.lists[n], actor)
		if actor == nil || len(extra) == 0 {
			return nil
		}
		x.mark(n, fmt.Sprintf("%s GPUs %s", n, model.RangeText(x.lists[n])))
		x.mark("actor", fmt.Sprintf("actor GPUs %s", model.RangeText(sortedSet(actor))))
		return &Violation{Code: model.CodeMARolloutSubset, Primary: x.primary(n), Roles: x.roles,
			Summary: fmt.Sprintf("%s's GPUs %s are outside the actor's", n, model.RangeText(extra)),
			Why:     "In a multi-agent run every rollout component shares the actor's GPUs (weights are synced in place)."}
	}
}

// exclusive checks that components other than the shared ones use GPUs
// no earlier exclusive component uses.
func (x *mpView) exclusive() *Violation {
	owner := map[int]string{}
	for _, n := range x.names {
		if model.SharedInMultiAgent(n) {
			continue // read only because it shares an entry with an exclusive one
		}
		for _, g := range x.lists[n] {
			if o, taken := owner[g]; taken {
				x.mark(o, fmt.Sprintf("%s uses GPU %d", o, g))
				x.mark(n, fmt.Sprintf("%s uses GPU %d too", n, g))
				return &Violation{Code: model.CodeMAExclusive, Primary: x.primary(n), Roles: x.roles,
					Summary: fmt.Sprintf("%s and %s both use GPU %d; components other than actor, rollout, reward and inference need GPUs of their own", o, n, g),
					Why:     "RLinf's multi-agent placement raises \"Resource Conflict\" for exclusive components that share a GPU."}
			}
		}
		for _, g := range x.lists[n] {
			owner[g] = n
		}
	}
	return nil
}

// extra checks extra engine n as the entry points launch it: Packed(first,
// last) of its GPUs with the rollout's devices per process and stride, its
// own section present, its GPUs divisible by the sizes given there, each
// process on one node.
func extra(n string) func(*mpView) *Violation {
	return func(x *mpView) *Violation {
		l := x.lists[n]
		if l == nil {
			return nil
		}
		nhpp, _ := x.size("rollout_tp")
		stride := 1
		if x.b.opt.Class == model.ClassMultiAgent {
			atp, _ := x.size("actor_tp")
			stride = model.CollocatedStride(atp, nhpp)
		}
		count := last(l) - l[0] + 1
		if count%(nhpp*stride) != 0 {
			x.mark(n, fmt.Sprintf("%d GPUs (%d-%d)", count, l[0], last(l)))
			return &Violation{Code: model.CodePackedDivisible, Primary: x.primary(n), Roles: x.roles,
				Summary: fmt.Sprintf("%s's %d GPUs are not divisible into engines of the rollout's %d GPU(s) x stride %d", n, count, nhpp, stride),
				Why:     "The multi-agent entry point launches an extra engine with Packed(first, last) and the rollout's devices per process and stride."}
		}
		sec, ok := x.b.cfg.Sections[n]
		if !ok {
			x.mark(n, n+" is launched from its own section")
			return &Violation{Code: model.CodeMAExtraEngine, Primary: x.primary(n), Roles: x.roles,
				Summary: fmt.Sprintf("%s has no `%s:` section; the multi-agent entry point launches it from one", n, n),
				Why:     "RLinf asserts `component_name " + n + " not found in cfg` when it launches the engine."}
		}
		for _, k := range sectionKeys {
			size, f := x.sectionSize(n, k)
			if size > 0 && count%size != 0 {
				x.mark(n, fmt.Sprintf("%d GPUs", count))
				x.roles[f] = fmt.Sprintf("%s %d", k, size)
				return &Violation{Code: model.CodeMAExtraEngine, Primary: f, Roles: x.roles, Extra: []model.Label{{Span: sec.Span, Message: n + "'s section"}},
					Summary: fmt.Sprintf("%s's %d GPUs are not divisible by its %s %d", n, count, k, size)}
			}
		}
		if v := x.packedRange(n, l[0], last(l)); v != nil {
			return v
		}
		return x.packedSpans(n, fill(l[0], last(l)), nhpp, stride)
	}
}

// sectionSize is a size of component n's own section under p (0 when not
// given), with its fact.
func (x *mpView) sectionSize(n, key string) (int, int) {
	f, ok := x.b.fs.setting[n+"."+key]
	if !ok || !x.p(f) {
		return 0, -1
	}
	sz := x.b.cfg.Sections[n]
	return sectionSize(&sz, key).Value, f
}

func fill(first, end int) []int {
	out := make([]int, 0, end-first+1)
	for g := first; g <= end; g++ {
		out = append(out, g)
	}
	return out
}

func sortedSet(l []int) []int {
	out := slices.Clone(l)
	slices.Sort(out)
	return slices.Compact(out)
}

func sameSet(a, b []int) bool { return slices.Equal(sortedSet(a), sortedSet(b)) }

// outside lists the elements of a that b lacks.
func outside(a, b []int) []int {
	var out []int
	for _, g := range sortedSet(a) {
		if !slices.Contains(b, g) {
			out = append(out, g)
		}
	}
	return out
}
