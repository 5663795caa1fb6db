package suggest

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// reader reads the keys the cost model needs from a composed config
// through the one positioned YAML reader, so that suggest reads every value
// (1_0, 0x10, ${a.b}, ${subtract:...}) exactly as check does.
type reader struct {
	*yamlpos.Doc
}

func (r *reader) errorf(code string, n *yaml.Node, format string, args ...any) *model.Diagnostic {
	return r.Errorf(code, r.Span(n), "", format, args...)
}

// child is the value of key in mapping n, or nil.
func (r *reader) child(n *yaml.Node, key string) *yaml.Node {
	e, ok := yamlpos.Lookup(r.Mapping(n), key)
	if !ok {
		return nil
	}
	return e.V
}

// key is the key node of a dotted path (for pointing at a section); nil
// when absent.
func (r *reader) key(dotted string) *yaml.Node {
	e, ok := r.PathEntry(dotted)
	if !ok {
		return nil
	}
	return e.K
}

// maxSetting bounds the counts and sizes suggest reads.
const maxSetting = 1 << 30

// optInt reads an optional positive integer key: def when absent.
func (r *reader) optInt(path string, def int) (int, bool) {
	n := r.Path(path)
	if n == nil {
		return def, false
	}
	v, ok := grammar.PositiveInt(r.Doc, n, path, maxSetting)
	if !ok {
		return def, false
	}
	return v, true
}

// cost reads a non-negative number of seconds.
func (r *reader) cost(n *yaml.Node, what string) (float64, bool) {
	v, ok := grammar.Number(r.Doc, n, what)
	if ok && v < 0 {
		r.errorf(model.CodeSuggestProfile, n, "%s must not be negative, but got %v", what, v)
		return 0, false
	}
	return v, ok
}

// boolean reads a flag as Python would see it after YAML 1.1.
func (r *reader) boolean(path string, def bool) bool {
	n := r.Path(path)
	if n == nil {
		return def
	}
	v, ok := grammar.Bool(r.Doc, n, path)
	if !ok {
		return def
	}
	return v
}

// Load reads an RLinf training config (YAML, or JSON) into a Spec,
// composing its Hydra defaults list as check does. The diagnostics locate
// every problem; the spec is nil when there are errors.
func Load(file string, data []byte) (*Spec, model.Diagnostics) {
	doc := grammar.Compose(file, data, grammar.ConfigOptions{})
	if doc.Root == nil {
		return nil, doc.Diags
	}
	r := &reader{Doc: doc} // a composed root is a mapping
	s := &Spec{ProfileSource: SourceConfig}
	task := r.task(s)
	if r.Diags.HasErrors() {
		return nil, r.Diags
	}
	s.Task = task
	// The cluster section, read as check reads it: the node count, an
	// inventory: key, and the placement the costs were profiled in. Only
	// its errors matter here; check reports its warnings.
	var cfg *model.Config
	if r.Path("cluster") != nil {
		n := len(r.Diags)
		cfg = grammar.ReadConfig(doc, grammar.DefaultLimits)
		errs := r.Diags[:n]
		for _, d := range r.Diags[n:] {
			if d.Severity == model.SeverityError {
				errs = append(errs, d)
			}
		}
		r.Diags = errs
		if cfg == nil || r.Diags.HasErrors() {
			return nil, r.Diags
		}
		s.NumNodes, s.Inventory = cfg.NumNodes, cfg.Inventory
	}
	r.record(s, file, cfg)
	if task == TaskReasoning {
		r.reasoning(s, cfg)
	} else {
		r.embodied(s)
	}
	if r.Diags.HasErrors() {
		return nil, r.Diags
	}
	return s, r.Diags
}

// task reads runner.task_type, else guesses it from the keys present.
func (r *reader) task(s *Spec) string {
	if n := r.Path("runner.task_type"); n != nil {
		v, ok := grammar.String(r.Doc, n, "runner.task_type")
		if !ok {
			return ""
		}
		switch task := v.Py.Str; task {
		case TaskReasoning, TaskEmbodied:
			return task
		case "embodiment":
			return TaskEmbodied
		default:
			// RLinf has other task types; the cost model is for these two.
			r.Errorf(model.CodeSuggestBatch, v.Span, "", "suggest models reasoning and embodied training, not runner.task_type `%s`", task).Help =
				[]model.Fix{{Message: "set runner.task_type to reasoning or embodied"}}
			return ""
		}
	}
	task := TaskReasoning
	if r.Path("profile_data.env_profile_data") != nil || r.Path("data.env_num") != nil {
		task = TaskEmbodied
	}
	s.Notes = append(s.Notes, fmt.Sprintf("no runner.task_type: treated as %s", task))
	return task
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
		if r.Path(k.path) == nil {
			defaulted = append(defaulted, fmt.Sprintf("%s %d", k.path, *k.dst))
			continue
		}
		*k.dst, _ = r.optInt(k.path, *k.dst)
	}
	if len(defaulted) > 0 {
		s.Notes = append(s.Notes, "not in the config, assumed: "+strings.Join(defaulted, ", "))
	}
	d.Recompute = r.boolean("algorithm.recompute_logprobs", true)
	d.ActorTP, _ = r.optInt("actor.model.tensor_model_parallel_size", 1)
	d.ActorCP, _ = r.optInt("actor.model.context_parallel_size", 1)
	d.ActorPP, _ = r.optInt("actor.model.pipeline_model_parallel_size", 1)
	d.RolloutTP, _ = r.optInt("rollout.tensor_parallel_size", 1)
	d.RolloutPP, _ = r.optInt("rollout.pipeline_parallel_size", 1)
	d.InferenceTP = d.ActorTP
	for _, p := range []string{"inference.model.", "actor_inference.model."} {
		if r.Path(p+"tensor_model_parallel_size") != nil {
			d.InferenceTP, d.InferenceTPSet = r.optInt(p+"tensor_model_parallel_size", d.ActorTP)
			d.InferencePP, _ = r.optInt(p+"pipeline_model_parallel_size", 1)
			break
		}
	}
	if d.InferencePP == 0 {
		d.InferencePP = 1
	}
	if pd := r.Path("profile_data"); pd != nil && yamlpos.Deref(pd).Tag != "!!null" {
		d.ActorCost, d.RolloutCost, d.InferenceCost, d.HasInferenceCost = 0, 0, 0, false
		for _, c := range []struct {
			key string
			dst *float64
			has *bool
		}{{"actor_cost", &d.ActorCost, nil}, {"rollout_cost", &d.RolloutCost, nil}, {"inference_cost", &d.InferenceCost, &d.HasInferenceCost}} {
			n := r.child(pd, c.key)
			if n == nil {
				if c.has == nil || d.Recompute {
					e := r.errorf(model.CodeSuggestProfile, r.key("profile_data"), "profile_data has no %s", c.key)
					if c.has != nil {
						e.Why = "algorithm.recompute_logprobs is true, so the inference stage runs and needs its profiled cost."
						if n := r.Path("algorithm.recompute_logprobs"); n != nil {
							e.Labels = []model.Label{{Span: r.Span(n), Message: "the inference stage runs"}}
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
	case r.Path("data.env_num") != nil:
		e.Envs, _ = r.optInt("data.env_num", 0)
	case r.Path("env.train.total_num_envs") != nil:
		e.Envs, _ = r.optInt("env.train.total_num_envs", 0)
	default:
		at := r.key("data")
		if at == nil {
			at = r.key("runner.task_type")
		}
		r.errorf(model.CodeSuggestBatch, at, "the embodied model needs the number of environments: data.env_num").Help =
			[]model.Fix{{Message: "add data.env_num: E (or env.train.total_num_envs)"}}
	}
	e.Stages, _ = r.optInt("rollout.pipeline_stage_num", 1)
	pd := r.Path("profile_data")
	if pd == nil || yamlpos.Deref(pd).Tag == "!!null" {
		s.ProfileSource = SourceDefault
		e.ActorCost = 1
		return
	}
	pk := r.key("profile_data")
	e.Env = r.curve(r.child(pd, "env_profile_data"), pk, "env_profile_data")
	e.Rollout = r.curve(r.child(pd, "rollout_profile_data"), pk, "rollout_profile_data")
	if n := r.child(pd, "actor_cost"); n != nil {
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
	m := yamlpos.Deref(n)
	if m.Kind != yaml.MappingNode || len(m.Content) == 0 {
		r.errorf(model.CodeSuggestProfile, m, "profile_data.%s must be a non-empty mapping {envs per GPU: seconds}", what)
		return nil
	}
	var p Profile
	seen := map[int]bool{}
	for _, e := range r.Mapping(m) {
		load, err := strconv.Atoi(strings.TrimSpace(e.Key))
		if err != nil || load < 1 {
			r.errorf(model.CodeSuggestProfile, e.K, "profile_data.%s: the key `%s` must be a positive number of envs per GPU", what, e.Key)
			continue
		}
		if seen[load] {
			r.errorf(model.CodeSuggestProfile, e.K, "profile_data.%s: %d envs per GPU given twice", what, load)
			continue
		}
		seen[load] = true
		v, ok := r.cost(e.V, fmt.Sprintf("profile_data.%s[%d]", what, load))
		if ok {
			p = append(p, Point{Load: load, Seconds: v})
		}
	}
	sort.Slice(p, func(i, j int) bool { return p[i].Load < p[j].Load })
	return p
}
