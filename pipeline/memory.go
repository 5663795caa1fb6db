package pipeline

import (
	"errors"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/memory"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
)

// memory decides whether GPU memory is checked for settings s on nodes
// (rules.NewMemory), with --model-config and --mem-profile; its notes and
// errors go to the outcome. It returns nil when memory is not checked.
// A --mem-profile that cannot be used is reported whether or not memory
// is checked.
func (o *Outcome) memory(s *model.MemorySettings, nodes []model.Node, anchor model.Span, opt Options) *rules.Memory {
	mo := rules.MemoryOptions{ModelConfig: opt.ModelConfig}
	if opt.MemProfile != "" {
		data, d := grammar.ReadFile(opt.MemProfile, opt.Limits)
		if d != nil {
			o.Diagnostics = append(o.Diagnostics, *d)
			o.IOError = true
			return nil
		}
		o.Sources[opt.MemProfile] = data
		prof, err := memory.ParseProfile(opt.MemProfile, data)
		var bad *memory.InputError
		switch {
		case errors.As(err, &bad):
			o.Diagnostics = append(o.Diagnostics, bad.Diagnostic())
			return nil
		case err != nil:
			o.Diagnostics.Errorf(model.CodeMemoryInput, model.Span{File: opt.MemProfile}, "", "%v", err)
			return nil
		}
		mo.Profile = &prof
	}
	if s == nil {
		return nil
	}
	mem, ds := rules.NewMemory(s, nodes, anchor, mo)
	o.Diagnostics = append(o.Diagnostics, ds...)
	return mem
}

// usedNodes are the nodes a config with num_nodes n runs on.
func usedNodes(inv *model.Inventory, n int) []model.Node {
	if n > 0 && n <= len(inv.Nodes) {
		return inv.Nodes[:n]
	}
	return inv.Nodes
}
