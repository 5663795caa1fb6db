// Package solver decides a config's validity with a SAT solver (gini) and
// explains every conflict as a minimal set of located configuration facts.
//
// Each user-visible fact (a node group, an env var, a placement part, a TP
// size, ...) gets a selector literal. Each rule is a predicate over a small
// scope of facts; it is compiled exactly, as the clauses that forbid every
// assignment of its scope that violates it, guarded by a relax literal. A
// fact that is not assumed is free: a reported set conflicts whatever else
// the config holds, and dropping any one of its facts leaves a config that
// can be valid.
package solver

import (
	"fmt"

	"github.com/rlsolve/rlsolve/model"
)

// FactKind says what kind of configuration fact a selector stands for, and
// so what removing it means.
type FactKind int

const (
	FactGroupLabel FactKind = iota // a node group's label (removed: no such group)
	FactGroupRanks                 // a node group's node_ranks (removed: no such group)
	FactEnvConfig                  // one env_configs entry
	FactEnvVar                     // one env var of an env_configs entry
	FactHardware                   // one robot hardware config
	FactSegment                    // one placement part of a component entry
	FactNodeGroup                  // a component entry's node_group (removed: the default group)
	FactParallel                   // a TP/PP/CP size (removed: 1)
	FactSetting                    // a boolean setting: auto_scheduler, recompute_logprobs
)

// Fact is one user-visible configuration fact.
type Fact struct {
	Kind FactKind
	Span model.Span
	// What describes the fact in a label: "actor's placement part `0-3`".
	What string
	// Group, Entry, Index locate the fact in the config.
	Group, Entry, Index, Sub int
	// Name is the setting or parallel size key for FactParallel/FactSetting.
	Name string
}

// facts indexes the config's facts.
type facts struct {
	list []Fact
	// groupLabel[g], groupRanks[g]: fact ids of node group g.
	groupLabel, groupRanks []int
	// segment[e][s]: fact id of segment s of component entry e.
	segment [][]int
	// nodeGroup[e]: fact id of entry e's node_group, -1 when none.
	nodeGroup []int
	// env[g][j] and envVar[g][j][k]
	env    [][]int
	envVar [][][]int
	// hardware[g][k]
	hardware [][]int
	// setting by name (actor_tp, rollout_tp, ..., auto_scheduler, recompute_logprobs)
	setting map[string]int
}

func (fs *facts) add(f Fact) int {
	fs.list = append(fs.list, f)
	return len(fs.list) - 1
}

// collect gives every fact of cfg an id.
func collect(cfg *model.Config) *facts {
	fs := &facts{setting: map[string]int{}}
	for gi := range cfg.NodeGroups {
		g := &cfg.NodeGroups[gi]
		fs.groupLabel = append(fs.groupLabel, fs.add(Fact{Kind: FactGroupLabel, Span: g.LabelSpan, Group: gi,
			What: fmt.Sprintf("node group %q", g.Label)}))
		fs.groupRanks = append(fs.groupRanks, fs.add(Fact{Kind: FactGroupRanks, Span: g.RanksSpan, Group: gi,
			What: fmt.Sprintf("node group %q has nodes %s", g.Label, model.RangeText(g.NodeRanks))}))
		var envs []int
		var vars [][]int
		for j := range g.EnvConfigs {
			ec := &g.EnvConfigs[j]
			envs = append(envs, fs.add(Fact{Kind: FactEnvConfig, Span: ec.RanksSpan, Group: gi, Index: j,
				What: fmt.Sprintf("env_configs[%d] of %q covers nodes %s", j, g.Label, model.RangeText(ec.NodeRanks))}))
			var vs []int
			for k := range ec.EnvVars {
				v := &ec.EnvVars[k]
				vs = append(vs, fs.add(Fact{Kind: FactEnvVar, Span: v.KeySpan, Group: gi, Index: j, Sub: k,
					What: fmt.Sprintf("sets %s=%s", v.Key, v.Value)}))
			}
			vars = append(vars, vs)
		}
		fs.env = append(fs.env, envs)
		fs.envVar = append(fs.envVar, vars)
		var hw []int
		if g.Hardware != nil {
			for k := range g.Hardware.Configs {
				rc := &g.Hardware.Configs[k]
				hw = append(hw, fs.add(Fact{Kind: FactHardware, Span: rc.Span, Group: gi, Index: k,
					What: fmt.Sprintf("%s robot on node %d", g.Hardware.Type, rc.NodeRank)}))
			}
		}
		fs.hardware = append(fs.hardware, hw)
	}
	for ei := range cfg.Components {
		e := &cfg.Components[ei]
		var segs []int
		for si := range e.Segments {
			s := &e.Segments[si]
			segs = append(segs, fs.add(Fact{Kind: FactSegment, Span: s.Span, Entry: ei, Index: si,
				What: fmt.Sprintf("%s placement part `%s`", names(e), segText(e, s))}))
		}
		fs.segment = append(fs.segment, segs)
		ng := -1
		if len(e.NodeGroups) > 0 {
			ng = fs.add(Fact{Kind: FactNodeGroup, Span: e.NodeGroupSpan, Entry: ei,
				What: fmt.Sprintf("%s uses node group(s) %v", names(e), e.NodeGroups)})
		}
		fs.nodeGroup = append(fs.nodeGroup, ng)
	}
	mp := &cfg.ModelParallel
	for _, p := range []struct {
		name string
		f    model.IntFact
		what string
	}{{"actor_tp", mp.ActorTP, "actor TP size"}, {"actor_cp", mp.ActorCP, "actor CP size"}, {"actor_pp", mp.ActorPP, "actor PP size"},
		{"rollout_tp", mp.RolloutTP, "rollout TP size"}, {"rollout_pp", mp.RolloutPP, "rollout PP size"}, {"inference_tp", mp.InferenceTP, "inference TP size"}} {
		if p.f.Set {
			fs.setting[p.name] = fs.add(Fact{Kind: FactParallel, Span: p.f.Span, Name: p.name, What: fmt.Sprintf("%s %d", p.what, p.f.Value)})
		}
	}
	for _, b := range []struct {
		name string
		f    model.BoolFact
	}{{"auto_scheduler", mp.AutoScheduler}, {"recompute_logprobs", mp.RecomputeLogprobs}} {
		if b.f.Set {
			fs.setting[b.name] = fs.add(Fact{Kind: FactSetting, Span: b.f.Span, Name: b.name, What: fmt.Sprintf("%s: %v", b.name, b.f.Value)})
		}
	}
	return fs
}

func names(e *model.ComponentEntry) string {
	s := ""
	for i, n := range e.Names {
		if i > 0 {
			s += ","
		}
		s += n
	}
	return s
}

func segText(e *model.ComponentEntry, s *model.Segment) string {
	r := fmt.Sprintf("%d-%d", s.ResStart, s.ResEnd)
	if s.AllResources {
		r = "all"
	} else if s.ResStart == s.ResEnd {
		r = fmt.Sprint(s.ResStart)
	}
	if s.HasProcesses {
		if s.ProcStart == s.ProcEnd {
			return fmt.Sprintf("%s:%d", r, s.ProcStart)
		}
		return fmt.Sprintf("%s:%d-%d", r, s.ProcStart, s.ProcEnd)
	}
	return r
}
