package solver

import (
	"errors"
	"time"

	"github.com/go-air/gini"
	"github.com/go-air/gini/z"
	"github.com/rlsolve/rlsolve/model"
)

// maxScope bounds a rule's truth table (2^maxScope evaluations).
const maxScope = 10

// ErrBudget is returned when the solver's time budget runs out.
var ErrBudget = errors.New("solver time budget exceeded")

// present says which facts of a rule's scope are in the config.
type present func(fact int) bool

// violation is what a rule's predicate found; nil means the rule holds.
type violation struct {
	Code    string
	Summary string
	Why     string
	// Primary is the fact the diagnostic points at (-1: none).
	Primary int
	// At, when known, is a more exact span inside the primary fact.
	At model.Span
	// Roles label facts with what they contribute ("covers node 3").
	Roles map[int]string
	// Fixes are candidate edits, kept only when re-solving confirms them.
	Fixes []candidateFix
}

// rule is one constraint instance over a scope of facts.
type rule struct {
	name  string
	scope []int
	check func(p present) *violation
	relax z.Lit
}

// problem is the SAT instance: selectors for facts, clauses for rules.
type problem struct {
	g     *gini.Gini
	sel   []z.Lit
	rules []*rule
	// evals counts predicate evaluations, for the benchmark's report.
	evals int
}

func newProblem(nfacts int) *problem {
	p := &problem{g: gini.New()}
	p.sel = make([]z.Lit, nfacts)
	for i := range p.sel {
		p.sel[i] = p.g.Lit()
	}
	return p
}

// implies adds the hard clause a -> b between facts (an env var needs its
// env_configs entry).
func (p *problem) implies(a, b int) {
	p.g.Add(p.sel[a].Not())
	p.g.Add(p.sel[b])
	p.g.Add(0)
}

// add compiles a rule: one clause per violating assignment of its scope,
// each clause saying "not this assignment, unless the rule is relaxed".
func (p *problem) add(r *rule) {
	r.relax = p.g.Lit()
	p.rules = append(p.rules, r)
	k := len(r.scope)
	if k > maxScope {
		k = maxScope // callers keep scopes small; see scopeFor
		r.scope = r.scope[:k]
	}
	for mask := 0; mask < 1<<k; mask++ {
		// Facts outside the scope stay as the config has them: present.
		in := func(f int) bool {
			for i, s := range r.scope {
				if s == f {
					return mask&(1<<i) != 0
				}
			}
			return true
		}
		p.evals++
		if r.check(in) == nil {
			continue
		}
		for i, f := range r.scope {
			if mask&(1<<i) != 0 {
				p.g.Add(p.sel[f].Not())
			} else {
				p.g.Add(p.sel[f])
			}
		}
		p.g.Add(r.relax)
		p.g.Add(0)
	}
}

// conflict is one minimal set of facts that violates one rule.
type conflict struct {
	rule  *rule
	facts []int
}

// solve reports up to max independent conflicts, each minimal, within the
// deadline.
func (p *problem) solve(max int, deadline time.Time) ([]conflict, error) {
	relaxed := make([]bool, len(p.rules))
	byRelax := map[z.Lit]int{}
	for i, r := range p.rules {
		byRelax[r.relax.Not()] = i
	}
	var out []conflict
	for len(out) < max {
		assume := make([]z.Lit, 0, len(p.sel)+len(p.rules))
		assume = append(assume, p.sel...)
		for i, r := range p.rules {
			if !relaxed[i] {
				assume = append(assume, r.relax.Not())
			}
		}
		res, err := p.try(assume, deadline)
		if err != nil {
			return out, err
		}
		if res == 1 {
			return out, nil
		}
		// The failed assumptions name the rules and facts involved; take
		// the first rule and shrink its facts with only that rule active.
		ri := -1
		var core []int
		for _, m := range p.g.Why(nil) {
			if i, ok := byRelax[m]; ok && (ri < 0 || i < ri) {
				ri = i
			}
		}
		if ri < 0 {
			return out, errors.New("solver: conflict without a rule") // hard clauses alone are satisfiable
		}
		for f := range p.sel {
			core = append(core, f)
		}
		m, err := p.minimize(ri, core, deadline)
		if err != nil {
			return out, err
		}
		out = append(out, conflict{rule: p.rules[ri], facts: m})
		relaxed[ri] = true
		p.g.Add(p.rules[ri].relax)
		p.g.Add(0)
	}
	return out, nil
}

// minimize shrinks facts by deletion to a minimal set that still violates
// rule ri on its own (every other rule relaxed).
func (p *problem) minimize(ri int, facts []int, deadline time.Time) ([]int, error) {
	only := make([]z.Lit, 0, len(p.rules))
	for i, r := range p.rules {
		if i == ri {
			only = append(only, r.relax.Not())
		} else {
			only = append(only, r.relax)
		}
	}
	// Facts outside the rule's scope cannot matter to it; start from the
	// scope's facts, then delete one at a time.
	inScope := map[int]bool{}
	for _, f := range p.rules[ri].scope {
		inScope[f] = true
	}
	var m []int
	for _, f := range facts {
		if inScope[f] {
			m = append(m, f)
		}
	}
	for i := 0; i < len(m); {
		trial := append(append([]int(nil), m[:i]...), m[i+1:]...)
		assume := append([]z.Lit(nil), only...)
		for _, f := range trial {
			assume = append(assume, p.sel[f])
		}
		res, err := p.try(assume, deadline)
		if err != nil {
			return nil, err
		}
		if res == -1 {
			m = trial // still conflicting without it
		} else {
			i++
		}
	}
	return m, nil
}

func (p *problem) try(assume []z.Lit, deadline time.Time) (int, error) {
	left := time.Until(deadline)
	if left <= 0 {
		return 0, ErrBudget
	}
	p.g.Assume(assume...)
	res := p.g.Try(left)
	if res == 0 {
		return 0, ErrBudget
	}
	return res, nil
}
