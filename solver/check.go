package solver

import (
	"fmt"
	"time"

	"github.com/rlsolve/rlsolve/model"
)

// Options bound the solver.
type Options struct {
	// ModelParallel applies ModelParallel placement's rules.
	ModelParallel bool
	// MaxConflicts bounds how many independent conflicts are reported (20).
	MaxConflicts int
	// Budget bounds the solver's time (10 s); past it, Check returns ErrBudget.
	Budget time.Duration
	// NoFixes skips proposing fixes (fix verification re-solves the config).
	NoFixes bool
	// MaxProcesses bounds one component's processes (1<<20): past it the
	// solver leaves the component to the planner's limit error.
	MaxProcesses int
}

// Stats describe one solve, for benchmarks and --verbose output.
type Stats struct {
	Facts, Rules, Evaluations, Conflicts, LargestSet int
	Elapsed                                          time.Duration
}

// Result is the verdict: no error diagnostic means the config is valid.
type Result struct {
	Diagnostics model.Diagnostics
	Stats       Stats
}

type session struct {
	cfg  *model.Config
	inv  *model.Inventory
	fs   *facts
	p    *problem
	view *model.Cluster
	// bases[e][s] is the worker index of part s's first process.
	bases    map[int][]int
	maxProcs int
	// found is how many conflicts the config has (for judging fixes).
	found int
}

// Check compiles cfg on inv into SAT and reports every conflict (up to
// MaxConflicts), each as a minimal set of located facts.
func Check(cfg *model.Config, inv *model.Inventory, opt Options) (*Result, error) {
	if opt.MaxConflicts == 0 {
		opt.MaxConflicts = 20
	}
	if opt.Budget == 0 {
		opt.Budget = 10 * time.Second
	}
	if opt.MaxProcesses == 0 {
		opt.MaxProcesses = 1 << 20
	}
	start := time.Now()
	deadline := start.Add(opt.Budget)
	if cfg.NumNodes > 0 && len(inv.Nodes) < cfg.NumNodes {
		return &Result{}, nil // the inventory itself is the problem; the planner says so
	}
	nodes := inv.Nodes
	if cfg.NumNodes > 0 {
		nodes = nodes[:cfg.NumNodes]
	}
	s := &session{cfg: cfg, inv: &model.Inventory{Nodes: nodes, Source: inv.Source}, fs: collect(cfg), maxProcs: opt.MaxProcesses}
	s.p = newProblem(len(s.fs.list))
	for gi := range s.fs.envVar {
		for j := range s.fs.envVar[gi] {
			for _, v := range s.fs.envVar[gi][j] {
				s.p.implies(v, s.fs.env[gi][j])
			}
		}
	}
	s.pairRules()
	for ei := range cfg.Components {
		if !cfg.Components[ei].Invalid && !brokenLabels(cfg, ei) {
			s.entryRule(ei)
		}
	}
	if opt.ModelParallel && !brokenMP(cfg) {
		s.mpRule()
	}
	conflicts, err := s.p.solve(opt.MaxConflicts, deadline)
	res := &Result{Stats: Stats{Facts: len(s.fs.list), Rules: len(s.p.rules), Evaluations: s.p.evals, Conflicts: len(conflicts)}}
	s.found = len(conflicts)
	for _, c := range conflicts {
		res.Stats.LargestSet = max(res.Stats.LargestSet, len(c.facts))
		res.Diagnostics = append(res.Diagnostics, s.diagnostic(c, opt, deadline))
	}
	res.Stats.Elapsed = time.Since(start)
	return res, err
}

func brokenLabels(cfg *model.Config, ei int) bool {
	for _, l := range cfg.Components[ei].NodeGroups {
		if cfg.Broken["group:"+l] {
			return true
		}
	}
	return false
}

func brokenMP(cfg *model.Config) bool {
	for _, n := range mpNames {
		if cfg.Broken["component:"+n] {
			return true
		}
	}
	return false
}

// diagnostic renders a conflict: the violation of its facts alone, with
// each fact as a labelled span and the fixes that re-solving confirms.
func (s *session) diagnostic(c conflict, opt Options, deadline time.Time) model.Diagnostic {
	in := map[int]bool{}
	for _, f := range c.facts {
		in[f] = true
	}
	scoped := map[int]bool{}
	for _, f := range c.rule.scope {
		scoped[f] = true
	}
	// Describe the conflict as the config has it (other facts present) when
	// that points at one of the set's facts; otherwise describe the set alone.
	v := c.rule.check(func(int) bool { return true })
	if v == nil || v.Primary >= 0 && !in[v.Primary] {
		v = c.rule.check(func(f int) bool { return !scoped[f] || in[f] })
	}
	if v == nil {
		// Cannot happen: minimize keeps the set violating.
		v = &violation{Code: model.CodeInvalidValue, Summary: "conflict in " + c.rule.name, Primary: -1}
	}
	d := model.Diagnostic{Code: v.Code, Severity: model.SeverityError, Summary: v.Summary, Why: v.Why}
	primary := v.Primary
	if primary < 0 || !in[primary] {
		if len(c.facts) > 0 {
			primary = s.sortedFacts(c.facts)[len(c.facts)-1]
		}
	}
	if primary >= 0 && primary < len(s.fs.list) {
		d.Primary = s.fs.list[primary].Span
		if v.At.Known() && primary == v.Primary {
			d.Primary = v.At
		}
		d.PrimaryLabel = role(v, s.fs.list[primary], primary)
	} else {
		d.Primary = s.cfg.ComponentsSpan
	}
	for _, f := range s.sortedFacts(c.facts) {
		if f != primary {
			d.Labels = append(d.Labels, model.Label{Span: s.fs.list[f].Span, Message: role(v, s.fs.list[f], f)})
		}
	}
	if len(c.facts) >= 2 && d.Why == "" {
		d.Why = fmt.Sprintf("These %d facts cannot all hold; dropping any one of them removes this conflict.", len(c.facts))
	}
	if !opt.NoFixes {
		d.Help = s.verifiedFixes(v, d, opt, deadline)
	}
	return d
}

func role(v *violation, f Fact, id int) string {
	if r, ok := v.Roles[id]; ok && r != "" {
		return r
	}
	return f.What
}

// verifiedFixes keeps up to three candidate fixes whose edited config no
// longer has this conflict and has no more conflicts than before.
func (s *session) verifiedFixes(v *violation, d model.Diagnostic, opt Options, deadline time.Time) []model.Fix {
	var out []model.Fix
	for _, cf := range v.Fixes {
		if len(out) == 3 || time.Until(deadline) <= 0 {
			break
		}
		edited := clone(s.cfg)
		edit, ok := cf.edit(edited)
		if !ok {
			continue
		}
		res, err := Check(edited, s.inv, Options{ModelParallel: opt.ModelParallel, MaxConflicts: opt.MaxConflicts, Budget: time.Until(deadline), NoFixes: true, MaxProcesses: opt.MaxProcesses})
		if err != nil {
			continue
		}
		gone := true
		for _, nd := range res.Diagnostics {
			if nd.Code == d.Code && nd.Primary == d.Primary {
				gone = false
			}
		}
		if gone && len(res.Diagnostics) < s.found {
			out = append(out, model.Fix{Message: cf.message, Edits: []model.Edit{edit}})
		}
	}
	return out
}

// covered are the codes of the rules the solver encodes; a planner error
// with one of these codes is the solver's to explain.
var covered = map[string]bool{
	model.CodeDuplicateLabel: true, model.CodeEnvNodeDuplicated: true, model.CodeEnvVarDuplicated: true,
	model.CodeHardwareConflict: true, model.CodeUnknownGroup: true, model.CodeEmptyGroup: true,
	model.CodeMixedTypedUntyped: true, model.CodeNoHardware: true, model.CodeRankOutOfRange: true,
	model.CodeDuplicateResource: true, model.CodeResourceOrder: true, model.CodeDuplicateProcess: true,
	model.CodeProcessOrder: true, model.CodeNotDivisible: true, model.CodeGroupsOverlap: true,
	model.CodeOneProcessOneNode: true, model.CodeSpansNodes: true, model.CodeMixedHardware: true,
	model.CodeNodeOrder: true, model.CodeMPMissing: true, model.CodeMPNotContiguous: true,
	model.CodeMPMode: true, model.CodeMPCollocatedExtra: true, model.CodeMPTPDivisible: true,
	model.CodeMPTPTooLarge: true, model.CodeMPRecompute: true, model.CodeMPAutoOrder: true,
	model.CodeMPSizes: true, model.CodePackedDivisible: true, model.CodeNeedsHardware: true,
	model.CodeProcessHardwareDup: true,
}

// Covers reports whether the solver encodes the rule behind code.
func Covers(code string) bool { return covered[code] }

// Reconcile merges the direct checks' diagnostics (grammar and planner)
// with the solver's. A direct error of a rule the solver encodes gives way
// to the solver's explanation of the same rule (a minimal set of located
// facts); every other diagnostic stays. If the solver missed a rule the
// direct checks caught, their error stays: failing safe keeps it visible.
func Reconcile(direct, solved model.Diagnostics) model.Diagnostics {
	explained := map[string]bool{}
	for _, d := range solved {
		if d.Severity == model.SeverityError {
			explained[d.Code] = true
		}
	}
	var out model.Diagnostics
	for _, d := range direct {
		if d.Severity == model.SeverityError && covered[d.Code] && explained[d.Code] {
			continue
		}
		out = append(out, d)
	}
	return append(out, solved...)
}
