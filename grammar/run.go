package grammar

import (
	"slices"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// runConfig reads what the config says of its run: the keys the placement
// class is inferred from (semantics §10).
func (d *doc) runConfig(cfg *model.Config) {
	r := &cfg.Run
	d.stringFact(&r.TaskType, "runner.task_type")
	d.stringFact(&r.Workflow, "agentloop.workflow")
	d.stringFact(&r.DataType, "data.type")
	if n := d.Path("runner.num_data_episodes"); n != nil {
		r.DataEpisodes.Span, r.DataEpisodes.Set = d.Span(n), true
	}
}

func (d *doc) stringFact(f *model.StringFact, path string) {
	n := d.Path(path)
	if n == nil {
		return
	}
	if v, ok := d.Scalar(n, path); ok {
		*f = model.StringFact{Value: v.Py.Str, Set: true, Span: v.Span}
	}
}

// standardSections are the components whose sections hold model configs
// rather than an extra engine's sizes.
var standardSections = []string{"actor", "rollout", "reward", "inference", "critic", "actor_inference", "critic_inference", "env", "agent"}

// sections reads the parallel sizes of each placed component's own
// top-level section (multi-agent entry points launch extra rollout engines,
// such as rollout_judge, from it).
func (d *doc) sections(cfg *model.Config) {
	for _, e := range cfg.Components {
		for _, name := range e.Names {
			if name == "" || slices.Contains(standardSections, name) || strings.Contains(name, ".") {
				continue
			}
			n := d.Path(name)
			if n == nil {
				continue
			}
			s := model.SectionSizes{Span: d.Span(n)}
			for _, k := range []struct {
				f   *model.IntFact
				key string
			}{{&s.TensorParallel, "tensor_parallel_size"}, {&s.PipelineParallel, "pipeline_parallel_size"}, {&s.DataParallel, "dp_size"}} {
				// RLinf reads these with .get(key, None): null is absent.
				if v := d.Path(name + "." + k.key); v != nil && v.Tag != "!!null" {
					d.positiveInt(k.f, name+"."+k.key)
				}
			}
			if cfg.Sections == nil {
				cfg.Sections = map[string]model.SectionSizes{}
			}
			cfg.Sections[name] = s
		}
	}
}

// positiveInt reads an optional positive integer at path into f.
func (d *doc) positiveInt(f *model.IntFact, path string) {
	if n := d.Path(path); n != nil {
		d.positiveIntAt(f, n, path)
	}
}
