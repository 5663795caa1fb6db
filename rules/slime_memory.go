package rules

import (
	"maps"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/memory"
	"github.com/rlsolve/rlsolve/model"
)

// slime's memory rule: the actor on bundles [0, actor GPUs), the engines
// on the rollout's bundles (the same ones with --colocate), each bundle
// the GPU of slime's stable order; the settings are memory.SlimeSettings
// of the flags given, a removed flag leaving the command.

// memoryRules adds the memory rule of a slime layout.
func (s *slimeSession) memoryRules() {
	ms, _ := memory.SlimeSettings(s.cfg.Flags)
	var placement []int
	for _, k := range s.keyOf {
		placement = append(placement, s.factOf[k])
	}
	m := newMemRule(s.set, s.opt.Memory, ms, placement)
	m.place = s.memoryLoad
	m.anchor = s.cfg.Span
	m.capacity = capacityLabels(s.t.Nodes)
	m.under = func(p Present) *model.MemorySettings {
		flags := make(map[string]model.FlagValue, len(s.cfg.Flags))
		for name, v := range s.cfg.Flags {
			if f, ok := m.spanFact[v.Span]; !ok || p(f) {
				flags[name] = v
			}
		}
		ms, _ := memory.SlimeSettings(flags)
		return ms
	}
	m.rebuild = func(key, value string, at model.Span) (*Set, bool) {
		edited := *s.cfg
		if !setSlimeFlag(&edited, strings.TrimPrefix(key, "--"), value, at) {
			return nil, false
		}
		return Slime(&edited, s.t, s.opt), true
	}
	m.editText = func(key, value string) (string, bool) {
		switch {
		case !s.cfg.Appendable: // a YAML file: the message says it
			return "", false
		case value == "true":
			return key, true
		case value == "false":
			return "", true
		}
		return key + " " + value, true
	}
	m.memoryInstances(s.set)
}

// setSlimeFlag gives a copy of the config a flag's value (a switch on for
// "true", absent for "false"), and the placement value it is when it is
// one.
func setSlimeFlag(cfg *model.SlimeConfig, name, value string, at model.Span) bool {
	cfg.Flags = maps.Clone(cfg.Flags)
	switch value {
	case "false":
		delete(cfg.Flags, name)
	case "true":
		cfg.SetFlag(name, "", at)
	default:
		cfg.SetFlag(name, value, at)
	}
	k, _, ok := model.SlimeKeyByFlag("--" + name)
	if !ok {
		return true
	}
	n, err := strconv.Atoi(value)
	if k.Info().Bool || k.Info().Text || err != nil {
		return false // the placement rules' own fixes change these
	}
	v := cfg.Values[k]
	v.Set, v.Value, v.Text = true, n, "--"+name+" "+value
	cfg.Values[k] = v
	return true
}

// flagNames are a placement flag's spellings without dashes, its own
// first.
func flagNames(info model.SlimeKeyInfo) []string {
	out := []string{strings.TrimLeft(info.Flag, "-")}
	for _, a := range info.Aliases {
		out = append(out, strings.TrimLeft(a.Flag, "-"))
	}
	return out
}

// memoryLoad places the actor and the engines on the stable order's GPUs
// under p; false when the layout does not hold (its own rules say why).
func (s *slimeSession) memoryLoad(p Present, _ *model.MemorySettings) (*gpuLoad, bool) {
	x := s.settings(p)
	total, offset := x.Bundles()
	if x.RolloutMissing() || total > s.t.NumGPUs() || total > s.maxBundles || !x.EnginesDivide() {
		return nil, false
	}
	t := s.t
	l := newGPULoad(len(t.Order), t.Node, t.GPUID)
	if x.HasActor() {
		for b := 0; b < x.ActorGPUs(); b++ {
			l.put("actor", b)
		}
	}
	for b := offset; b < offset+x.Rollout(); b++ {
		l.put("rollout", b)
	}
	l.actorLogprob = true // slime's actor computes the log-probs
	l.finish()
	return l, true
}
