package suggest

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// reader reads the keys the cost model needs from one YAML (or JSON)
// document, resolving OmegaConf's whole-value ${a.b} references.
type reader struct {
	file  string
	root  *yaml.Node
	diags model.Diagnostics
}

func (r *reader) span(n *yaml.Node) model.Span {
	if n == nil || n.Line == 0 {
		return model.Span{File: r.file}
	}
	w := len(n.Value)
	if n.Kind != yaml.ScalarNode || w == 0 {
		w = 1
	}
	return model.Span{File: r.file, Line: n.Line, Col: n.Column, EndLine: n.Line, EndCol: n.Column + w}
}

func (r *reader) errorf(code string, n *yaml.Node, format string, args ...any) *model.Diagnostic {
	r.diags = append(r.diags, model.Diagnostic{Code: code, Severity: model.SeverityError,
		Summary: fmt.Sprintf(format, args...), Primary: r.span(n)})
	return &r.diags[len(r.diags)-1]
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && i < 64; i++ {
		switch n.Kind {
		case yaml.DocumentNode:
			if len(n.Content) == 0 {
				return nil
			}
			n = n.Content[0]
		case yaml.AliasNode:
			n = n.Alias
		default:
			return n
		}
	}
	return n
}

// child is the value of key in mapping n, or nil.
func child(n *yaml.Node, key string) *yaml.Node {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if deref(n.Content[i]).Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// key is the key node of a dotted path (for pointing at a section); nil
// when absent.
func (r *reader) key(dotted string) *yaml.Node {
	n := r.root
	var k *yaml.Node
	for _, part := range strings.Split(dotted, ".") {
		m := deref(n)
		if m == nil || m.Kind != yaml.MappingNode {
			return nil
		}
		n = nil
		for i := 0; i+1 < len(m.Content); i += 2 {
			if deref(m.Content[i]).Value == part {
				k, n = m.Content[i], m.Content[i+1]
				break
			}
		}
		if n == nil {
			return nil
		}
	}
	return k
}

// path looks a dotted key up from the root; nil when absent.
func (r *reader) path(dotted string) *yaml.Node {
	n := r.root
	for _, k := range strings.Split(dotted, ".") {
		if n = child(n, k); n == nil {
			return nil
		}
	}
	return n
}

var refRE = regexp.MustCompile(`^\$\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*\}$`)

// scalar returns the scalar a key holds, following aliases and whole-value
// interpolations. ok is false (with a diagnostic) when it is not usable.
func (r *reader) scalar(n *yaml.Node, what string) (*yaml.Node, bool) {
	orig := n
	for depth := 0; ; depth++ {
		n = deref(n)
		if n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			r.errorf(model.CodeMissingField, orig, "%s has no value", what)
			return nil, false
		}
		if n.Kind != yaml.ScalarNode {
			r.errorf(model.CodeWrongType, n, "%s must be a scalar", what)
			return nil, false
		}
		if !strings.Contains(n.Value, "${") {
			return n, true
		}
		m := refRE.FindStringSubmatch(n.Value)
		if m == nil || depth > 32 {
			r.errorf(model.CodeUnresolvedInterp, orig, "%s uses `%s`, which rlsolve cannot resolve; write the value", what, n.Value)
			return nil, false
		}
		next := r.path(m[1])
		if next == nil {
			r.errorf(model.CodeUnresolvedInterp, orig, "%s refers to `${%s}`, which is not in this file", what, m[1])
			return nil, false
		}
		n = next
	}
}

// number reads an int or float scalar (not a string or a bool).
func (r *reader) number(n *yaml.Node, what string) (float64, bool) {
	s, ok := r.scalar(n, what)
	if !ok {
		return 0, false
	}
	if s.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 && (s.Tag == "!!int" || s.Tag == "!!float") {
		if v, err := strconv.ParseFloat(strings.ReplaceAll(s.Value, "_", ""), 64); err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
			return v, true
		}
	}
	r.errorf(model.CodeWrongType, s, "%s must be a number, but got `%s`", what, s.Value)
	return 0, false
}

// integer reads a whole number of at least min.
func (r *reader) integer(n *yaml.Node, what string, min int) (int, bool) {
	s, ok := r.scalar(n, what)
	if !ok {
		return 0, false
	}
	v, err := strconv.Atoi(s.Value)
	if err != nil || s.Tag != "!!int" || s.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		r.errorf(model.CodeWrongType, s, "%s must be a whole number, but got `%s`", what, s.Value)
		return 0, false
	}
	if v < min || v > 1<<30 {
		r.errorf(model.CodeInvalidValue, s, "%s must be at least %d, but got %d", what, min, v)
		return 0, false
	}
	return v, true
}

// optInt reads an optional integer key: def when absent.
func (r *reader) optInt(path string, def, min int) (int, bool) {
	n := r.path(path)
	if n == nil {
		return def, false
	}
	v, ok := r.integer(n, path, min)
	if !ok {
		return def, false
	}
	return v, true
}

// cost reads a non-negative number of seconds.
func (r *reader) cost(n *yaml.Node, what string) (float64, bool) {
	v, ok := r.number(n, what)
	if ok && v < 0 {
		r.errorf(model.CodeSuggestProfile, n, "%s must not be negative, but got %v", what, v)
		return 0, false
	}
	return v, ok
}

// boolean reads a flag as Python would see it after YAML 1.1.
func (r *reader) boolean(path string, def bool) bool {
	n := r.path(path)
	if n == nil {
		return def
	}
	s, ok := r.scalar(n, path)
	if !ok {
		return def
	}
	switch strings.ToLower(s.Value) {
	case "true", "yes", "on":
		if s.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 {
			return true
		}
	case "false", "no", "off":
		if s.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 {
			return false
		}
	}
	r.errorf(model.CodeWrongType, s, "%s must be true or false, but got `%s`", path, s.Value)
	return def
}

// Load reads an RLinf training config (YAML, or JSON) into a Spec. The
// diagnostics locate every problem; the spec is nil when there are errors.
func Load(file string, data []byte) (*Spec, model.Diagnostics) {
	r := &reader{file: file}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		// The grammar's reader locates syntax errors precisely.
		if _, ds := grammar.LoadConfig(file, data, grammar.DefaultLimits); ds.HasErrors() {
			return nil, ds
		}
		r.diags = append(r.diags, model.Diagnostic{Code: model.CodeYAMLSyntax, Severity: model.SeverityError,
			Summary: fmt.Sprintf("%s is not valid YAML: %v", file, err), Primary: model.Span{File: file}})
		return nil, r.diags
	}
	r.root = deref(&doc)
	if r.root == nil || r.root.Kind != yaml.MappingNode {
		r.diags = append(r.diags, model.Diagnostic{Code: model.CodeWrongType, Severity: model.SeverityError,
			Summary: fmt.Sprintf("%s must be a YAML mapping (an RLinf training config)", file), Primary: model.Span{File: file, Line: 1, Col: 1, EndLine: 1, EndCol: 2}})
		return nil, r.diags
	}
	s := &Spec{ProfileSource: SourceConfig}
	task := ""
	if n := r.path("runner.task_type"); n != nil {
		if v, ok := r.scalar(n, "runner.task_type"); ok {
			task = v.Value
			switch task {
			case TaskReasoning, TaskEmbodied:
			case "embodiment":
				task = TaskEmbodied
			default:
				r.errorf(model.CodeInvalidValue, v, "suggest models reasoning and embodied training, not runner.task_type `%s`", task).Help =
					[]model.Fix{{Message: "set runner.task_type to reasoning or embodied"}}
			}
		}
	}
	if task == "" {
		task = TaskReasoning
		if r.path("profile_data.env_profile_data") != nil || r.path("data.env_num") != nil {
			task = TaskEmbodied
		}
		s.Notes = append(s.Notes, fmt.Sprintf("no runner.task_type: treated as %s", task))
	}
	s.Task = task
	if r.diags.HasErrors() {
		return nil, r.diags
	}
	// The cluster section, read as check reads it: the node count, an
	// inventory: key, and the placement the costs were profiled in.
	var cfg *model.Config
	if r.path("cluster") != nil {
		var ds model.Diagnostics
		cfg, ds = grammar.LoadConfig(file, data, grammar.DefaultLimits)
		for _, d := range ds {
			if d.Severity == model.SeverityError {
				r.diags = append(r.diags, d)
			}
		}
		if cfg == nil || ds.HasErrors() {
			return nil, r.diags
		}
		s.NumNodes, s.Inventory = cfg.NumNodes, cfg.Inventory
	}
	if task == TaskReasoning {
		r.reasoning(s, cfg)
	} else {
		r.embodied(s)
	}
	if r.diags.HasErrors() {
		return nil, r.diags
	}
	return s, r.diags
}

func (r *reader) reasoning(s *Spec, cfg *model.Config) {
	d := DefaultReasoning()
	s.Reasoning = d
	var defaulted []string
	for _, k := range []struct {
		path string
		dst  *int
	}{{"data.rollout_batch_size", &d.RolloutBatch}, {"algorithm.group_size", &d.GroupSize},
		{"algorithm.n_minibatches", &d.Minibatches}, {"rollout.max_running_requests", &d.MaxRunningRequests}} {
		if r.path(k.path) == nil {
			defaulted = append(defaulted, fmt.Sprintf("%s %d", k.path, *k.dst))
			continue
		}
		*k.dst, _ = r.optInt(k.path, *k.dst, 1)
	}
	if len(defaulted) > 0 {
		s.Notes = append(s.Notes, "not in the config, assumed: "+strings.Join(defaulted, ", "))
	}
	d.Recompute = r.boolean("algorithm.recompute_logprobs", true)
	d.ActorTP, _ = r.optInt("actor.model.tensor_model_parallel_size", 1, 1)
	d.ActorCP, _ = r.optInt("actor.model.context_parallel_size", 1, 1)
	d.ActorPP, _ = r.optInt("actor.model.pipeline_model_parallel_size", 1, 1)
	d.RolloutTP, _ = r.optInt("rollout.tensor_parallel_size", 1, 1)
	d.RolloutPP, _ = r.optInt("rollout.pipeline_parallel_size", 1, 1)
	d.InferenceTP = d.ActorTP
	for _, p := range []string{"inference.model.", "actor_inference.model."} {
		if r.path(p+"tensor_model_parallel_size") != nil {
			d.InferenceTP, d.InferenceTPSet = r.optInt(p+"tensor_model_parallel_size", d.ActorTP, 1)
			d.InferencePP, _ = r.optInt(p+"pipeline_model_parallel_size", 1, 1)
			break
		}
	}
	if d.InferencePP == 0 {
		d.InferencePP = 1
	}
	if pd := r.path("profile_data"); pd != nil && deref(pd).Tag != "!!null" {
		d.ActorCost, d.RolloutCost, d.InferenceCost, d.HasInferenceCost = 0, 0, 0, false
		for _, c := range []struct {
			key string
			dst *float64
			has *bool
		}{{"actor_cost", &d.ActorCost, nil}, {"rollout_cost", &d.RolloutCost, nil}, {"inference_cost", &d.InferenceCost, &d.HasInferenceCost}} {
			n := child(pd, c.key)
			if n == nil {
				if c.has == nil || d.Recompute {
					e := r.errorf(model.CodeSuggestProfile, r.key("profile_data"), "profile_data has no %s", c.key)
					if c.has != nil {
						e.Why = "algorithm.recompute_logprobs is true, so the inference stage runs and needs its profiled cost."
						if n := r.path("algorithm.recompute_logprobs"); n != nil {
							e.Labels = []model.Label{{Span: r.span(deref(n)), Message: "the inference stage runs"}}
						}
					}
					e.Help = []model.Fix{{Message: fmt.Sprintf("add profile_data.%s: SECONDS (measured per step in the profiled placement), or pass --profile", c.key)}}
				}
				continue
			}
			v, ok := r.cost(n, "profile_data."+c.key)
			*c.dst = v
			if c.has != nil {
				*c.has = ok
			}
		}
	} else {
		s.ProfileSource = SourceDefault
	}
	profiled(s, cfg)
	if d.RolloutBatch*d.GroupSize%d.Minibatches != 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("rollout_batch_size x group_size = %d is not divisible by n_minibatches %d: RLinf's toolkit stops here; rlsolve uses the integer quotient %d for the valid data-parallel sizes, but check the batch settings",
			d.RolloutBatch*d.GroupSize, d.Minibatches, d.RolloutBatch*d.GroupSize/d.Minibatches))
	}
}

// profiled reads the GPU counts of the config's component_placement, the
// layout the costs were measured in.
func profiled(s *Spec, cfg *model.Config) {
	if cfg == nil || len(cfg.Components) == 0 {
		s.Notes = append(s.Notes, "no cluster.component_placement: costs taken as profiled collocated on all GPUs")
		return
	}
	d := s.Reasoning
	for _, e := range cfg.Components {
		n := 0
		for _, seg := range e.Segments {
			if seg.AllResources {
				n = 0
				break
			}
			n += seg.ResEnd - seg.ResStart + 1
		}
		for _, name := range e.Names {
			switch name {
			case "actor":
				d.ProfiledActor = n
			case "rollout":
				d.ProfiledRollout = n
			case "inference", "actor_inference":
				if n == 0 {
					n = -1 // "all": resolved against N
				}
				d.ProfiledInference = n
			}
		}
	}
}

func (r *reader) embodied(s *Spec) {
	e := &Embodied{Stages: 1}
	s.Embodied = e
	switch {
	case r.path("data.env_num") != nil:
		e.Envs, _ = r.optInt("data.env_num", 0, 1)
	case r.path("env.train.total_num_envs") != nil:
		e.Envs, _ = r.optInt("env.train.total_num_envs", 0, 1)
	default:
		at := r.key("data")
		if at == nil {
			at = r.key("runner.task_type")
		}
		r.errorf(model.CodeSuggestBatch, at, "the embodied model needs the number of environments: data.env_num").Help =
			[]model.Fix{{Message: "add data.env_num: E (or env.train.total_num_envs)"}}
	}
	e.Stages, _ = r.optInt("rollout.pipeline_stage_num", 1, 1)
	pd := r.path("profile_data")
	if pd == nil || deref(pd).Tag == "!!null" {
		s.ProfileSource = SourceDefault
		e.ActorCost = 1
		return
	}
	pk := r.key("profile_data")
	e.Env = r.curve(child(pd, "env_profile_data"), pk, "env_profile_data")
	e.Rollout = r.curve(child(pd, "rollout_profile_data"), pk, "rollout_profile_data")
	if n := child(pd, "actor_cost"); n != nil {
		e.ActorCost, _ = r.cost(n, "profile_data.actor_cost")
	} else {
		r.errorf(model.CodeSuggestProfile, pk, "profile_data has no actor_cost")
	}
}

// curve reads {envs_per_GPU: seconds}; JSON's string keys are read back
// as integers.
func (r *reader) curve(n, parent *yaml.Node, what string) Profile {
	if n == nil {
		r.errorf(model.CodeSuggestProfile, parent, "profile_data has no %s ({envs per GPU: seconds})", what)
		return nil
	}
	m := deref(n)
	if m.Kind != yaml.MappingNode || len(m.Content) == 0 {
		r.errorf(model.CodeSuggestProfile, m, "profile_data.%s must be a non-empty mapping {envs per GPU: seconds}", what)
		return nil
	}
	var p Profile
	seen := map[int]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := deref(m.Content[i])
		load, err := strconv.Atoi(strings.TrimSpace(k.Value))
		if err != nil || load < 1 {
			r.errorf(model.CodeSuggestProfile, k, "profile_data.%s: the key `%s` must be a positive number of envs per GPU", what, k.Value)
			continue
		}
		if seen[load] {
			r.errorf(model.CodeSuggestProfile, k, "profile_data.%s: %d envs per GPU given twice", what, load)
			continue
		}
		seen[load] = true
		v, ok := r.cost(m.Content[i+1], fmt.Sprintf("profile_data.%s[%d]", what, load))
		if ok {
			p = append(p, Point{Load: load, Seconds: v})
		}
	}
	sort.Slice(p, func(i, j int) bool { return p[i].Load < p[j].Load })
	return p
}
