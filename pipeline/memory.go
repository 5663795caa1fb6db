package pipeline

import (
	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/memory"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
)

// memory decides whether GPU memory is checked for settings s on nodes
// (rules.NewMemory), with --model-config and --mem-profile; its errors go
// to the outcome, its notes are returned for memoryNotes. It returns nil
// when memory is not checked. A --mem-profile that cannot be used is
// reported whether or not memory is checked.
func (o *Outcome) memory(s *model.MemorySettings, nodes []model.Node, anchor model.Span, opt Options) (*rules.Memory, model.Diagnostics) {
	mo := rules.MemoryOptions{ModelConfig: opt.ModelConfig}
	if opt.MemProfile != "" {
		data, d := grammar.ReadFile(opt.MemProfile, opt.Limits)
		if d != nil {
			o.Diagnostics = append(o.Diagnostics, *d)
			o.IOError = true
			return nil, nil
		}
		o.Sources[opt.MemProfile] = data
		prof, err := memory.ParseProfile(opt.MemProfile, data)
		if err != nil {
			o.Diagnostics = append(o.Diagnostics, memory.Diagnostic(err, model.Span{File: opt.MemProfile}))
			return nil, nil
		}
		mo.Profile = &prof
	}
	if s == nil {
		return nil, nil
	}
	mem, ds := rules.NewMemory(s, nodes, anchor, mo)
	var notes model.Diagnostics
	for _, d := range ds {
		if d.Severity == model.SeverityNote {
			notes = append(notes, d)
		} else {
			o.Diagnostics = append(o.Diagnostics, d)
		}
	}
	return mem, notes
}

// memoryNotes says whether and how memory was checked, unless the
// placement itself has errors: memory is judged only on a placement that
// holds.
func (o *Outcome) memoryNotes(notes model.Diagnostics) {
	for _, d := range o.Diagnostics {
		if d.Severity == model.SeverityError && !isMemoryCode(d.Code) {
			return
		}
	}
	o.Diagnostics = append(o.Diagnostics, notes...)
}

// isMemoryCode reports whether a code is GPU memory's (RLS-E10.., W10..).
func isMemoryCode(code string) bool { return len(code) > 6 && code[5:7] == "10" }

// usedNodes are the nodes a config with num_nodes n runs on.
func usedNodes(inv *model.Inventory, n int) []model.Node {
	if n > 0 && n <= len(inv.Nodes) {
		return inv.Nodes[:n]
	}
	return inv.Nodes
}

// groupEnvDropped is s without the engine settings read from env_configs
// where class places the engines Packed over the whole cluster: RLinf
// then ignores their node_group, so no group's variables reach them (D8,
// D9), and vLLM runs its default engine.
func groupEnvDropped(s *model.MemorySettings, class model.PlacementClass) *model.MemorySettings {
	switch class {
	case model.ClassModelParallel, model.ClassModelParallelEval, model.ClassMultiAgent, model.ClassMultiAgentEval:
	default:
		return s
	}
	if s == nil {
		return nil
	}
	c := *s
	c.Rollout.V1 = model.BoolFact{Value: true, Key: s.Rollout.V1.Key}
	c.OtherEngines = make(map[string]model.EngineSettings, len(s.OtherEngines))
	for name, e := range s.OtherEngines {
		e.V1 = model.BoolFact{Value: true, Key: e.V1.Key}
		c.OtherEngines[name] = e
	}
	return &c
}
