package suggest

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
)

// Modes of a suggestion.
const (
	ModeCollocated    = "collocated"
	ModeDisaggregated = "disaggregated"
	// ModeHybrid is the embodied split: env and rollout on disjoint GPUs,
	// the actor on all of them.
	ModeHybrid = "hybrid"
)

// Options tune a search.
type Options struct {
	// Top is how many suggestions to return (default 3).
	Top int
	// SolverBudget bounds each re-check's solver (0: its default).
	SolverBudget time.Duration
}

// Entry is one key of component_placement.
type Entry struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Stage is one component of a suggestion and what it costs there.
type Stage struct {
	Name  string `json:"name"`
	GPUs  int    `json:"gpus"`
	First int    `json:"first"`
	Last  int    `json:"last"`
	// Cost is the stage's modeled time: reasoning, seconds per prompt
	// group (the profiled cost / rollout_batch_size, scaled to its GPUs);
	// embodied, seconds per iteration.
	Cost float64 `json:"cost"`
}

// Suggestion is one checked layout.
type Suggestion struct {
	Mode      string
	TotalCost float64
	Stages    []Stage
	// Bottleneck is the split's slowest stage, which sets the pipeline's
	// pace ("" when collocated).
	Bottleneck string
	Placement  []Entry
	NumNodes   int
	// Config is the config rlsolve checked: the placement plus the
	// parallel sizes it depends on.
	Config []byte
	// Formula explains the total in words.
	Formula string
}

// Result is a search's outcome.
type Result struct {
	Task          string
	GPUs          int
	NodeSizes     []int
	ProfileSource string
	Suggestions   []Suggestion
	// CollocatedCost is the all-collocated layout's cost, NaN when it has
	// none or is not a valid placement; BestSplitCost is the best split's
	// (NaN when none is valid).
	CollocatedCost, BestSplitCost float64
	// Costed is how many layouts the cost model prices, Valid how many of
	// them pass the layout filter, Checked how many the real check ran on.
	Costed, Valid, Checked int
	Elapsed                time.Duration
	// Refusals say why a mode has no suggestion (refusal.go).
	Refusals []Refusal
	// Unchanged is true when the best suggestion is the layout the config
	// already has.
	Unchanged bool
}

// BudgetError is returned when the re-check's solver ran out of time.
type BudgetError struct{ Err string }

func (e *BudgetError) Error() string { return e.Err }

// problem is one search: a spec on a cluster.
type problem struct {
	spec *Spec
	cl   *Cluster
	rm   *rmodel
	em   *emodel
	opt  Options
	// verdicts caches the real check's verdict per layout.
	verdicts map[cand]bool
	// refused is the real check's first problem with each layout it
	// rejected, in the generated config.
	refused map[cand]model.Diagnostic
	checked int
	// reject is the first problem the real check found in a layout the
	// filter kept ("" when none).
	reject string
}

// maxChecks bounds the real checks of one search: the filter matches the
// check, so more are only needed when the inventory adds rules the filter
// does not know (NVLink), and then the best of these is reported.
const maxChecks = 256

func newProblem(spec *Spec, cl *Cluster, opt Options) (*problem, error) {
	if opt.Top <= 0 {
		opt.Top = 3
	}
	p := &problem{spec: spec, cl: cl, opt: opt, verdicts: map[cand]bool{}, refused: map[cand]model.Diagnostic{}}
	switch spec.Task {
	case TaskReasoning:
		if spec.Reasoning == nil {
			return nil, &Error{Code: model.CodeSuggestBatch, Msg: "no reasoning settings"}
		}
		if err := validateReasoning(spec.Reasoning); err != nil {
			return nil, err
		}
		rm, err := newRModel(spec.Reasoning, cl)
		if err != nil {
			return nil, err
		}
		p.rm = rm
	case TaskEmbodied:
		if spec.Embodied == nil || spec.Embodied.Envs < 1 {
			return nil, &Error{Code: model.CodeSuggestBatch, Msg: "the embodied model needs the number of environments (data.env_num)"}
		}
		p.em = newEModel(spec.Embodied, cl)
	default:
		return nil, &Error{Code: model.CodeSuggestBatch, Msg: fmt.Sprintf("unknown task type %q", spec.Task)}
	}
	return p, nil
}

func validateReasoning(r *Reasoning) error {
	for _, v := range []struct {
		name string
		n    int
	}{{"data.rollout_batch_size", r.RolloutBatch}, {"algorithm.group_size", r.GroupSize}, {"algorithm.n_minibatches", r.Minibatches},
		{"rollout.max_running_requests", r.MaxRunningRequests}, {"actor TP", r.ActorTP}, {"actor CP", r.ActorCP}, {"actor PP", r.ActorPP},
		{"rollout TP", r.RolloutTP}, {"rollout PP", r.RolloutPP}, {"inference TP", r.InferenceTP}, {"inference PP", r.InferencePP}} {
		if v.n < 1 || v.n > 1<<30 {
			return &Error{Code: model.CodeSuggestBatch, Msg: fmt.Sprintf("%s must be a positive whole number, not %d", v.name, v.n)}
		}
	}
	for _, v := range []struct {
		name string
		n    int
	}{{"actor TP", r.ActorTP}, {"actor CP", r.ActorCP}, {"actor PP", r.ActorPP}, {"rollout TP", r.RolloutTP},
		{"rollout PP", r.RolloutPP}, {"inference TP", r.InferenceTP}, {"inference PP", r.InferencePP}} {
		if v.n > 1<<16 {
			return &Error{Code: model.CodeSuggestBatch, Msg: fmt.Sprintf("%s %d is larger than any cluster suggest plans for", v.name, v.n)}
		}
	}
	for _, w := range []int{r.ProfiledActor, r.ProfiledRollout, r.ProfiledInference} {
		if w > 1<<30 {
			return &Error{Code: model.CodeSuggestProfiled, Msg: fmt.Sprintf("the profiled placement has %d GPUs; suggest reads at most %d", w, 1<<30)}
		}
	}
	costs := []struct {
		name string
		v    float64
	}{{"actor", r.ActorCost}, {"rollout", r.RolloutCost}}
	if r.Recompute {
		if !r.HasInferenceCost {
			return &Error{Code: model.CodeSuggestProfile, Msg: "recompute_logprobs is true but no inference cost is given",
				Help: "add profile_data.inference_cost, or pass --profile ...,inference=SECONDS"}
		}
		costs = append(costs, struct {
			name string
			v    float64
		}{"inference", r.InferenceCost})
	}
	for _, c := range costs {
		if c.v < 0 || math.IsNaN(c.v) || math.IsInf(c.v, 0) {
			return &Error{Code: model.CodeSuggestProfile, Msg: fmt.Sprintf("the %s cost must be a non-negative number of seconds, not %v", c.name, c.v)}
		}
	}
	return nil
}

func (p *problem) search(top *topK) (int, int) {
	if p.rm != nil {
		return p.rm.search(top)
	}
	return p.em.search(top)
}

// Suggest returns the best opt.Top valid layouts of spec on cl, best
// first, each re-checked with rlsolve's check. The first is the exact
// optimum of the cost model over every collocated and contiguous split
// layout that passes the check.
func Suggest(spec *Spec, cl *Cluster, opt Options) (*Result, error) {
	start := time.Now()
	p, err := newProblem(spec, cl, opt)
	if err != nil {
		return nil, err
	}
	res := &Result{Task: spec.Task, GPUs: cl.GPUs, NodeSizes: cl.NodeSizes(), ProfileSource: spec.ProfileSource,
		CollocatedCost: math.NaN(), BestSplitCost: math.NaN()}
	want := p.opt.Top
	var picked []cand
	for limit := want + 4; ; limit *= 4 {
		top := &topK{k: limit}
		res.Costed, res.Valid = p.search(top)
		picked = picked[:0]
		// Re-check in order, a batch of as many as still wanted at a time,
		// the batch's checks running in parallel.
		for i := 0; i < len(top.list) && len(picked) < want && p.checked < maxChecks; {
			batch := top.list[i:min(len(top.list), i+want-len(picked))]
			if err := p.verifyAll(batch); err != nil {
				return nil, err
			}
			for _, c := range batch {
				if p.verdicts[c] {
					picked = append(picked, c)
				}
			}
			i += len(batch)
		}
		if len(picked) == want || len(top.list) < limit || limit >= res.Valid || p.checked >= maxChecks {
			break
		}
	}
	for _, c := range picked {
		res.Suggestions = append(res.Suggestions, p.describe(c))
	}
	res.CollocatedCost, res.BestSplitCost = p.modeBests(picked)
	if res.Refusals, err = p.refusals(res); err != nil {
		return nil, err
	}
	res.Unchanged = len(res.Suggestions) > 0 && spec.isCurrent(res.Suggestions[0], cl.GPUs)
	res.Checked = p.checked
	res.Elapsed = time.Since(start)
	if len(res.Suggestions) == 0 {
		return res, p.none(res)
	}
	return res, nil
}

// modeBests is the best valid cost of each mode, for the "why" line: from
// the suggestions when they include the mode, else from the layout filter
// (which tests hold equal to the real check).
func (p *problem) modeBests(picked []cand) (colloc, split float64) {
	colloc, split = math.NaN(), math.NaN()
	for _, c := range picked {
		if c.colloc && math.IsNaN(colloc) {
			colloc = c.cost
		}
		if !c.colloc && math.IsNaN(split) {
			split = c.cost
		}
	}
	if math.IsNaN(colloc) {
		if c := p.collocated(); c != nil {
			ok := true
			if p.rm != nil {
				a, b := p.rm.collocatedOK()
				ok = a && b
			}
			if v, checked := p.verdicts[*c]; checked {
				ok = v
			}
			if ok {
				colloc = c.cost
			}
		}
	}
	if math.IsNaN(split) && len(picked) > 0 {
		// The best split is the best candidate once collocated is left out.
		top := &topK{k: 2}
		p.search(top)
		for _, c := range top.list {
			if !c.colloc {
				split = c.cost
				break
			}
		}
	}
	return colloc, split
}

// collocated is the collocated candidate when the model prices it.
func (p *problem) collocated() *cand {
	var cost float64
	if p.rm != nil {
		cost = p.rm.collocatedCost()
	} else {
		cost = p.em.collocatedCost()
	}
	if math.IsInf(cost, 1) {
		return nil
	}
	return &cand{cost: cost, colloc: true}
}

func (p *problem) none(res *Result) error {
	e := &Error{Code: model.CodeSuggestNone}
	what := "reasoning"
	if p.em != nil {
		what = "embodied"
	}
	for _, r := range res.Refusals {
		d := r.Diagnostic
		e.Labels = append(e.Labels, model.Label{Span: d.Primary, Message: fmt.Sprintf("%s: %s %s", r.Mode, d.Code, d.Summary)})
	}
	switch {
	case res.Costed == 0:
		p.unpriced(e, what)
	case p.reject != "":
		e.Msg = fmt.Sprintf("rlsolve check rejects every %s layout of %d GPUs it was given (the %d best-priced)", what, p.cl.GPUs, p.checked)
		e.Why = "The first: " + p.reject
		e.Help = "run rlsolve check on that placement for the details"
	default:
		e.Msg = fmt.Sprintf("none of the %d %s layouts of %d GPUs that the model prices is a valid placement", res.Costed, what, p.cl.GPUs)
		e.Why = "Every priced layout puts a rollout engine or a model-parallel group across a node boundary, or breaks a model-parallel rule (actor TP divisible by rollout TP in collocated mode, GPU counts divisible by the parallel sizes)."
		e.Help = "change the GPUs per node, or the TP sizes"
	}
	return e
}

// verify runs the real check on a candidate's config.
func (p *problem) verify(c cand) (bool, error) {
	if err := p.verifyAll([]cand{c}); err != nil {
		return false, err
	}
	return p.verdicts[c], nil
}

// verifyAll runs the real check on the candidates not checked yet, in
// parallel, and records the verdicts.
func (p *problem) verifyAll(cs []cand) error {
	var todo []cand
	for _, c := range cs {
		if _, ok := p.verdicts[c]; !ok {
			todo = append(todo, c)
		}
	}
	first := make([]*model.Diagnostic, len(todo))
	errs := make([]error, len(todo))
	var wg sync.WaitGroup
	for i, c := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			first[i], errs[i] = p.check(c)
		}()
	}
	wg.Wait()
	for i, c := range todo {
		if errs[i] != nil {
			return errs[i]
		}
		p.verdicts[c] = first[i] == nil
		if first[i] == nil {
			continue
		}
		p.refused[c] = *first[i]
		if p.reject == "" {
			p.reject = rejectText(p.render(c), first[i])
		}
	}
	p.checked += len(todo)
	return nil
}

// check is the real check: the candidate's config must pass rlsolve
// check with neither errors nor warnings. first is the first problem
// found (nil when it passes).
func (p *problem) check(c cand) (first *model.Diagnostic, err error) {
	s := p.render(c)
	class := model.ClassModelParallel
	if p.em != nil {
		class = model.ClassHybrid
	}
	o := pipeline.CheckBytes(checkedName, s.Config, pipeline.Options{Inventory: p.cl.Inventory, GPUsPerNode: -1, Class: class, SolverBudget: p.opt.SolverBudget})
	if o.Budget {
		return nil, &BudgetError{Err: "the solver ran out of time re-checking a suggestion; raise --solver-budget"}
	}
	for _, d := range o.Diagnostics {
		if d.Severity >= model.SeverityWarning {
			return &d, nil
		}
	}
	return nil, nil
}

// rejectText is a rejected candidate's first problem in words.
func rejectText(s Suggestion, d *model.Diagnostic) string {
	var ps []string
	for _, e := range s.Placement {
		ps = append(ps, e.Key+": "+e.Value)
	}
	return fmt.Sprintf("%s for {%s}: %s", d.Code, strings.Join(ps, ", "), d.Summary)
}

// render builds a candidate's placement and the config that checks it.
func (p *problem) render(c cand) Suggestion {
	cl := p.cl
	N := cl.GPUs
	s := Suggestion{TotalCost: c.cost, NumNodes: cl.NumNodes()}
	procs := func(first, g, n int) string {
		t := cl.rangeText(first, g)
		if n == g {
			return t
		}
		if n == 1 {
			return t + ":0"
		}
		return fmt.Sprintf("%s:0-%d", t, n-1)
	}
	var cfg strings.Builder
	if p.rm != nil {
		in := p.rm.in
		if c.colloc {
			s.Mode = ModeCollocated
			// RLinf launches N / TP rollout engines; saying so in the
			// process ranks keeps get_world_size right (D9).
			if n := N / in.RolloutTP; n == N || N%p.rm.block != 0 {
				s.Placement = []Entry{{"actor,rollout,reward", cl.rangeText(0, N)}}
			} else {
				s.Placement = []Entry{{"actor,reward", cl.rangeText(0, N)}, {"rollout", procs(0, N, n)}}
			}
		} else {
			s.Mode = ModeDisaggregated
			gr, gi, ga := c.sizes[0], c.sizes[1], c.sizes[2]
			// RLinf launches gr / (TP x PP) engines (dp); the process
			// ranks say so when they divide the GPUs.
			if n := gr / p.rm.uR; n == gr || n == 0 || gr%n != 0 {
				s.Placement = []Entry{{"rollout,reward", cl.rangeText(0, gr)}}
			} else {
				s.Placement = []Entry{{"rollout", procs(0, gr, n)}, {"reward", cl.rangeText(0, gr)}}
			}
			if gi > 0 {
				s.Placement = append(s.Placement, Entry{"inference", cl.rangeText(gr, gi)})
			}
			s.Placement = append(s.Placement, Entry{"actor", cl.rangeText(gr+gi, ga)})
		}
		writePlacement(&cfg, s.NumNodes, s.Placement)
		fmt.Fprintf(&cfg, "actor:\n  model:\n    tensor_model_parallel_size: %d\n    context_parallel_size: %d\n    pipeline_model_parallel_size: %d\n",
			in.ActorTP, in.ActorCP, in.ActorPP)
		fmt.Fprintf(&cfg, "rollout:\n  tensor_parallel_size: %d\n  pipeline_parallel_size: %d\n", in.RolloutTP, in.RolloutPP)
		if in.InferenceTPSet {
			fmt.Fprintf(&cfg, "inference:\n  model:\n    tensor_model_parallel_size: %d\n", in.InferenceTP)
		}
		fmt.Fprintf(&cfg, "algorithm:\n  recompute_logprobs: %t\n", in.Recompute)
	} else {
		if c.colloc {
			s.Mode = ModeCollocated
			s.Placement = []Entry{{"actor,env,rollout", cl.rangeText(0, N)}}
		} else {
			s.Mode = ModeHybrid
			s.Placement = []Entry{{"env", cl.rangeText(0, c.sizes[0])}, {"rollout", cl.rangeText(c.sizes[0], c.sizes[1])}, {"actor", cl.rangeText(0, N)}}
		}
		writePlacement(&cfg, s.NumNodes, s.Placement)
	}
	s.Config = []byte(cfg.String())
	return s
}

func writePlacement(b *strings.Builder, nodes int, es []Entry) {
	fmt.Fprintf(b, "cluster:\n  num_nodes: %d\n  component_placement:\n", nodes)
	for _, e := range es {
		fmt.Fprintf(b, "    %s: %s\n", e.Key, yamlValue(e.Value))
	}
}

// yamlValue quotes placement values that YAML could read as something
// else than a string of ranks.
func yamlValue(v string) string {
	if strings.ContainsAny(v, ":") {
		return `"` + v + `"`
	}
	return v
}

// describe adds the stages and the explanation to a rendered candidate.
func (p *problem) describe(c cand) Suggestion {
	s := p.render(c)
	var names []string
	var costs []float64
	if p.rm != nil {
		names, costs = p.rm.stageCosts(c)
	} else {
		names, costs = p.em.stageCosts(c)
	}
	N := p.cl.GPUs
	first := 0
	for i, name := range names {
		st := Stage{Name: name, Cost: costs[i]}
		switch {
		case c.colloc || name == "actor" && p.em != nil:
			st.GPUs, st.First, st.Last = N, 0, N-1
		default:
			g := c.sizes[i]
			if p.rm != nil && name == "actor" {
				g = c.sizes[2]
			}
			st.GPUs, st.First, st.Last = g, first, first+g-1
			first += g
		}
		s.Stages = append(s.Stages, st)
	}
	s.Formula = p.formula(c, s.Stages, &s.Bottleneck)
	return s
}

func (p *problem) formula(c cand, st []Stage, bottleneck *string) string {
	parts := func(stages []Stage) string {
		var b []string
		for _, x := range stages {
			b = append(b, fmt.Sprintf("%s %.4g", x.Name, x.Cost))
		}
		return strings.Join(b, " + ")
	}
	if p.rm != nil {
		R := p.rm.in.RolloutBatch
		if c.colloc {
			return fmt.Sprintf("collocated: the stages take turns on all GPUs, total = %d groups x (%s) s", R, parts(st))
		}
		sum, mx := 0.0, -1.0
		for _, x := range st {
			sum += x.Cost
			if x.Cost > mx {
				mx, *bottleneck = x.Cost, x.Name
			}
		}
		return fmt.Sprintf("pipelined: total = (%s) + (%d - 1) x %.4g (%s, the bottleneck) = %.4g + %d x %.4g s", parts(st), R, mx, *bottleneck, sum, R-1, mx)
	}
	S := max(p.em.in.Stages, 1)
	if c.colloc {
		return fmt.Sprintf("collocated: env, rollout and actor take turns on all GPUs, total = %s s", parts(st))
	}
	if st[0].Cost >= st[1].Cost {
		*bottleneck = "env"
	} else {
		*bottleneck = "rollout"
	}
	if S == 1 {
		return fmt.Sprintf("env and rollout on their own GPUs, one pipeline stage (no overlap), actor on all: total = %s s", parts(st))
	}
	return fmt.Sprintf("env and rollout overlap in %d pipeline stages: total = (env %.4g + rollout %.4g)/%d + %d/%d x max + actor %.4g s",
		S, st[0].Cost, st[1].Cost, S, S-1, S, st[2].Cost)
}
