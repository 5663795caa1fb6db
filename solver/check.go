// Package solver is rlsolve's engine: it compiles the rule instances of
// rules/ over one selector per configuration fact into SAT (gini), judges
// an input and explains every conflict as a minimal set of located facts,
// with the fixes that re-solving confirms.
package solver

import (
	"fmt"
	"sort"
	"time"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
)

// Options bound the solver.
type Options struct {
	// MaxConflicts bounds how many independent conflicts are reported (20).
	MaxConflicts int
	// Budget bounds the solver's time (10 s); past it, Check returns ErrBudget.
	Budget time.Duration
	// NoFixes skips proposing fixes (fix verification re-solves the input).
	NoFixes bool
}

func (o *Options) defaults() {
	if o.MaxConflicts == 0 {
		o.MaxConflicts = 20
	}
	if o.Budget == 0 {
		o.Budget = 10 * time.Second
	}
}

// Stats describe one solve, for benchmarks and --verbose output.
type Stats struct {
	Facts, Rules, Evaluations, Clauses, Conflicts, LargestSet int
	// Violated is how many rule instances the input violates: the number
	// of conflicts there are, of which at most MaxConflicts are explained.
	Violated int
	Elapsed  time.Duration
}

// Result is the verdict: no error diagnostic means the input is valid.
type Result struct {
	Diagnostics model.Diagnostics
	Stats       Stats
}

// Check judges the rule set: every conflict (up to MaxConflicts) as a
// minimal set of located facts, and a note at the set's anchor when more
// conflicts were found than explained.
func Check(set *rules.Set, opt Options) (*Result, error) {
	opt.defaults()
	start := time.Now()
	deadline := cpuDeadlineIn(opt.Budget)
	p := newProblem(set)
	for _, inst := range set.Rules {
		p.evals++
		if v := inst.Check(rules.All); v != nil {
			p.add(inst, v)
		}
	}
	conflicts, err := p.solve(opt.MaxConflicts, deadline)
	res := &Result{Stats: Stats{Facts: len(set.Facts), Rules: len(set.Rules), Conflicts: len(conflicts), Violated: len(p.rules)}}
	for _, c := range conflicts {
		res.Stats.LargestSet = max(res.Stats.LargestSet, len(c.facts))
		res.Diagnostics = append(res.Diagnostics, describe(set, c, len(conflicts), opt, deadline))
	}
	if shown, all := res.Stats.Conflicts, res.Stats.Violated; err == nil && all > shown {
		res.Diagnostics.Notef(model.NoteConflictsCut, set.Anchor, "", "%d of %d conflicts shown; --max-conflicts N shows more", shown, all)
	}
	res.Stats.Evaluations, res.Stats.Clauses = p.evals, p.clauses
	res.Stats.Elapsed = time.Since(start)
	return res, err
}

// describe renders a conflict: the violation of its facts, each fact a
// labelled span, and the fixes that re-solving confirms.
func describe(set *rules.Set, c conflict, found int, opt Options, deadline cpuDeadline) model.Diagnostic {
	in := make(map[int]bool, len(c.facts))
	for _, f := range c.facts {
		in[f] = true
	}
	// Describe the conflict as the input has it (other facts present) when
	// that points at one of the set's facts; otherwise describe the set
	// alone.
	// Only instances violated as written are compiled. Should an instance
	// hold now, its check read state that something changed since (a fix
	// that renamed a component in the shared config did, found by
	// FuzzSolve): the violation it reported when compiled is described
	// rather than a nil one.
	v := c.rule.inst.Check(rules.All)
	if v == nil {
		v = c.rule.written
	}
	if v.Primary >= 0 && !in[v.Primary] {
		if alone := c.rule.inst.Check(func(f int) bool { return !c.rule.inScope[f] || in[f] }); alone != nil {
			v = alone
		}
	}
	d := model.Diagnostic{Code: v.Code, Severity: model.SeverityError, Summary: v.Summary, Why: v.Why}
	facts := sortedFacts(set, c.facts)
	primary := pickPrimary(v, in)
	role := func(f int) string {
		if r, ok := v.Roles[f]; ok && r != "" {
			return r
		}
		return set.Facts[f].What
	}
	switch {
	case primary >= 0:
		d.Primary, d.PrimaryLabel = set.Facts[primary].Span, role(primary)
		if v.At.Known() && primary == v.Primary {
			d.Primary = v.At
		}
		if v.Label != "" {
			d.PrimaryLabel = v.Label
		}
	case v.Else.Known():
		d.Primary, d.PrimaryLabel = v.Else, v.ElseLabel
	case len(facts) > 0:
		primary = facts[len(facts)-1]
		d.Primary, d.PrimaryLabel = set.Facts[primary].Span, role(primary)
	default:
		d.Primary, d.PrimaryLabel = set.Anchor, v.AnchorLabel
	}
	for _, f := range facts {
		if f != primary {
			d.Labels = append(d.Labels, model.Label{Span: set.Facts[f].Span, Message: role(f)})
		}
	}
	for _, l := range v.Extra {
		if !labelled(d, l.Span) { // context already shown as a fact
			d.Labels = append(d.Labels, l)
		}
	}
	if len(c.facts) >= 2 && d.Why == "" {
		d.Why = fmt.Sprintf("These %d %s cannot all hold; dropping any one of them removes this conflict.", len(c.facts), set.Noun)
	}
	if !opt.NoFixes {
		d.Help = verifiedFixes(v, d, found, opt, deadline)
	}
	return d
}

// labelled reports whether the diagnostic already points at sp.
func labelled(d model.Diagnostic, sp model.Span) bool {
	if d.Primary == sp {
		return true
	}
	for _, l := range d.Labels {
		if l.Span == sp {
			return true
		}
	}
	return false
}

// pickPrimary is the violation's primary fact when it is in the conflict,
// else its first preferred fact that is, else -1.
func pickPrimary(v *rules.Violation, in map[int]bool) int {
	if v.Primary >= 0 && in[v.Primary] {
		return v.Primary
	}
	for _, f := range v.Prefer {
		if in[f] {
			return f
		}
	}
	return -1
}

// verifiedFixes keeps up to three candidate fixes whose edited input no
// longer has this conflict and has fewer conflicts than before.
func verifiedFixes(v *rules.Violation, d model.Diagnostic, found int, opt Options, deadline cpuDeadline) []model.Fix {
	var out []model.Fix
	for _, cf := range v.Fixes {
		if len(out) == 3 || deadline.left() <= 0 {
			break
		}
		fix, next, ok := cf()
		if !ok {
			continue
		}
		res, err := Check(next, Options{MaxConflicts: opt.MaxConflicts, Budget: deadline.left(), NoFixes: true})
		if err != nil {
			continue
		}
		gone := true
		for _, nd := range res.Diagnostics {
			if nd.Code == d.Code && nd.Primary == d.Primary {
				gone = false
			}
		}
		if gone && len(res.Diagnostics) < found {
			out = append(out, fix)
		}
	}
	return out
}

// sortedFacts orders fact ids by their position in the input.
func sortedFacts(set *rules.Set, ids []int) []int {
	out := append([]int(nil), ids...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := set.Facts[out[i]].Span, set.Facts[out[j]].Span
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return out
}
