package suggest

import (
	"fmt"
	"strings"

	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// The file's side of a suggestion: the layout the config already has (so
// that suggest can say when its best is that layout) and where the keys the
// generated configs carry sit in the file (so that a refusal found in a
// generated config points at the user's key).

// placed is one component's GPUs in the file's component_placement.
type placed struct {
	// gpus is the GPU ranges, "a-b" joined with commas, or "all".
	gpus string
	span model.Span
}

// spanPaths are the keys a generated config carries (render) and the
// settings the cost model reads, whose positions refusals point at.
var spanPaths = []string{
	"cluster", "cluster.num_nodes", "cluster.component_placement",
	"actor.model.tensor_model_parallel_size", "actor.model.context_parallel_size",
	"actor.model.pipeline_model_parallel_size", "rollout.tensor_parallel_size",
	"rollout.pipeline_parallel_size", "inference.model.tensor_model_parallel_size",
	"algorithm.recompute_logprobs", "data.rollout_batch_size", "data.env_num",
	"env.train.total_num_envs", "profile_data",
}

// record keeps the file's layout and the positions of spanPaths.
func (r *reader) record(s *Spec, file string, cfg *model.Config) {
	s.file = file
	s.spans = map[string]model.Span{}
	for _, p := range spanPaths {
		e, ok := r.PathEntry(p)
		if !ok {
			continue
		}
		n := e.V
		if n == nil || n.Kind != yaml.ScalarNode {
			n = e.K
		}
		s.spans[p] = r.Span(n)
	}
	if cfg == nil {
		return
	}
	if cfg.ComponentsSpan.Known() {
		s.spans["cluster.component_placement"] = cfg.ComponentsSpan
	}
	s.current = map[string]placed{}
	for _, e := range cfg.Components {
		if e.Invalid || len(e.NodeGroups) > 0 {
			continue // another node group's GPUs are not the ranks suggest numbers
		}
		var parts []string
		for _, seg := range e.Segments {
			if seg.AllResources {
				parts = []string{"all"}
				break
			}
			parts = append(parts, fmt.Sprintf("%d-%d", seg.ResStart, seg.ResEnd))
		}
		for _, name := range e.Names {
			s.current[name] = placed{gpus: strings.Join(parts, ","), span: e.PlacementSpan}
		}
	}
}

// at is the file's position of a dotted path, or of its nearest parent
// the file has; the file itself when none (or no file).
func (s *Spec) at(path string) model.Span {
	for p := path; p != ""; {
		if sp, ok := s.spans[p]; ok {
			return sp
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return s.fileSpan()
}

// fileSpan is the config file, or the flags when there is none.
func (s *Spec) fileSpan() model.Span {
	if s.file == "" {
		return model.Span{File: "<flags>"}
	}
	return model.Span{File: s.file}
}

// placedAt is where the file places a component (its placement value),
// else its component_placement, else the file.
func (s *Spec) placedAt(name string) model.Span {
	if p, ok := s.current[name]; ok && p.span.Known() {
		return p.span
	}
	return s.at("cluster.component_placement")
}

// isCurrent reports whether a suggestion places every component it names
// (reward aside, which the model does not price and places with rollout)
// on the GPUs the file already gives it.
func (s *Spec) isCurrent(sg Suggestion, gpus int) bool {
	if len(s.current) == 0 || len(sg.Placement) == 0 {
		return false
	}
	norm := func(v string) string {
		v, _, _ = strings.Cut(v, ":") // the GPUs, not the process ranks
		if v == "all" {
			return fmt.Sprintf("0-%d", gpus-1)
		}
		if !strings.Contains(v, "-") {
			return v + "-" + v
		}
		return v
	}
	for _, e := range sg.Placement {
		for _, name := range strings.Split(e.Key, ",") {
			if name == "reward" {
				continue
			}
			p, ok := s.current[name]
			if !ok || norm(p.gpus) != norm(e.Value) {
				return false
			}
		}
	}
	return true
}
