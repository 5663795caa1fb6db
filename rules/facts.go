package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// facts indexes an RLinf config's facts by where they are.
type facts struct {
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
	// requirement[e]: fact id of entry e's requirement, when solving.
	requirement map[int]int
}

// collect gives every fact of cfg an id in s.
func collect(s *Set, cfg *model.Config) *facts {
	fs := &facts{setting: map[string]int{}}
	for gi := range cfg.NodeGroups {
		fs.collectGroup(s, &cfg.NodeGroups[gi], gi)
	}
	for ei := range cfg.Components {
		e := &cfg.Components[ei]
		var segs []int
		for si := range e.Segments {
			sg := &e.Segments[si]
			segs = append(segs, s.add(Fact{Kind: FactSegment, Span: sg.Span, Entry: ei, Index: si,
				What: fmt.Sprintf("%s placement part `%s`", names(e), segText(sg))}))
		}
		fs.segment = append(fs.segment, segs)
		ng := -1
		if len(e.NodeGroups) > 0 {
			ng = s.add(Fact{Kind: FactNodeGroup, Span: e.NodeGroupSpan, Entry: ei,
				What: fmt.Sprintf("%s uses node group(s) %v", names(e), e.NodeGroups)})
		}
		fs.nodeGroup = append(fs.nodeGroup, ng)
	}
	fs.collectSettings(s, &cfg.ModelParallel)
	fs.collectSections(s, cfg)
	return fs
}

// collectRequirements gives each requirement entry a fact: solve places
// it, so the rules that need only its presence (the model-parallel
// class's components, how actor and rollout share devices) judge it.
func (fs *facts) collectRequirements(s *Set, cfg *model.Config) {
	fs.requirement = map[int]int{}
	for ei := range cfg.Components {
		e := &cfg.Components[ei]
		if e.Requirement == nil {
			continue
		}
		what := fmt.Sprintf("%s: placed by solve", names(e))
		if w := e.Requirement.With; w.Set() {
			what = fmt.Sprintf("%s shares the devices of %s", names(e), w.Name)
		}
		fs.requirement[ei] = s.add(Fact{Kind: FactRequirement, Span: e.KeySpan, Entry: ei, What: what})
	}
}

// sectionKeys name a component section's sizes, as setting facts
// ("rollout_judge.tensor_parallel_size").
var sectionKeys = []string{"tensor_parallel_size", "pipeline_parallel_size", "dp_size"}

func sectionSize(sz *model.SectionSizes, key string) model.IntFact {
	switch key {
	case "tensor_parallel_size":
		return sz.TensorParallel
	case "pipeline_parallel_size":
		return sz.PipelineParallel
	}
	return sz.DataParallel
}

// collectSections gives each size of a component's own section a fact.
func (fs *facts) collectSections(s *Set, cfg *model.Config) {
	names := make([]string, 0, len(cfg.Sections))
	for n := range cfg.Sections {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		sz := cfg.Sections[n]
		for _, k := range sectionKeys {
			if f := sectionSize(&sz, k); f.Set {
				fs.setting[n+"."+k] = s.add(Fact{Kind: FactParallel, Span: f.Span, Name: n + "." + k, What: fmt.Sprintf("%s.%s %d", n, k, f.Value)})
			}
		}
	}
}

func (fs *facts) collectGroup(s *Set, g *model.NodeGroup, gi int) {
	fs.groupLabel = append(fs.groupLabel, s.add(Fact{Kind: FactGroupLabel, Span: g.LabelSpan, Group: gi,
		What: fmt.Sprintf("node group %q", g.Label)}))
	fs.groupRanks = append(fs.groupRanks, s.add(Fact{Kind: FactGroupRanks, Span: g.RanksSpan, Group: gi,
		What: fmt.Sprintf("node group %q has nodes %s", g.Label, model.RangeText(g.NodeRanks))}))
	var envs []int
	var vars [][]int
	for j := range g.EnvConfigs {
		ec := &g.EnvConfigs[j]
		envs = append(envs, s.add(Fact{Kind: FactEnvConfig, Span: ec.RanksSpan, Group: gi, Index: j,
			What: fmt.Sprintf("env_configs[%d] of %q covers nodes %s", j, g.Label, model.RangeText(ec.NodeRanks))}))
		var vs []int
		for k := range ec.EnvVars {
			v := &ec.EnvVars[k]
			vs = append(vs, s.add(Fact{Kind: FactEnvVar, Span: v.KeySpan, Group: gi, Index: j, Sub: k,
				What: fmt.Sprintf("sets %s=%s", v.Key, v.Value)}))
			s.Implies = append(s.Implies, [2]int{vs[len(vs)-1], envs[j]})
		}
		vars = append(vars, vs)
	}
	fs.env = append(fs.env, envs)
	fs.envVar = append(fs.envVar, vars)
	var hw []int
	if g.Hardware != nil {
		for k := range g.Hardware.Configs {
			rc := &g.Hardware.Configs[k]
			hw = append(hw, s.add(Fact{Kind: FactHardware, Span: rc.Span, Group: gi, Index: k,
				What: fmt.Sprintf("%s robot on node %d", g.Hardware.Type, rc.NodeRank)}))
		}
	}
	fs.hardware = append(fs.hardware, hw)
}

func (fs *facts) collectSettings(s *Set, mp *model.ModelParallelConfig) {
	for _, p := range []struct {
		name string
		f    model.IntFact
		what string
	}{{"actor_tp", mp.ActorTP, "actor TP size"}, {"actor_cp", mp.ActorCP, "actor CP size"}, {"actor_pp", mp.ActorPP, "actor PP size"},
		{"rollout_tp", mp.RolloutTP, "rollout TP size"}, {"rollout_pp", mp.RolloutPP, "rollout PP size"}, {"inference_tp", mp.InferenceTP, "inference TP size"}} {
		if p.f.Set {
			fs.setting[p.name] = s.add(Fact{Kind: FactParallel, Span: p.f.Span, Name: p.name, What: fmt.Sprintf("%s %d", p.what, p.f.Value)})
		}
	}
	for _, b := range []struct {
		name string
		f    model.BoolFact
	}{{"auto_scheduler", mp.AutoScheduler}, {"recompute_logprobs", mp.RecomputeLogprobs}} {
		if b.f.Set {
			fs.setting[b.name] = s.add(Fact{Kind: FactSetting, Span: b.f.Span, Name: b.name, What: fmt.Sprintf("%s: %v", b.name, b.f.Value)})
		}
	}
}

func names(e *model.ComponentEntry) string { return strings.Join(e.Names, ",") }

func segText(s *model.Segment) string {
	r := rangeStr(s.ResStart, s.ResEnd)
	if s.AllResources {
		r = "all"
	}
	if s.HasProcesses {
		return r + ":" + rangeStr(s.ProcStart, s.ProcEnd)
	}
	return r
}

func rangeStr(a, b int) string {
	if a == b {
		return fmt.Sprint(a)
	}
	return fmt.Sprintf("%d-%d", a, b)
}
