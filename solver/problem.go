package solver

import (
	"errors"

	"github.com/go-air/gini"
	"github.com/go-air/gini/z"
	"github.com/rlsolve/rlsolve/rules"
)

// maxScope is the largest scope kept whole: a larger one is narrowed to the
// facts its violation depends on (never cut to a size).
const maxScope = 10

// ErrBudget is returned when the solver's time budget runs out.
var ErrBudget = errors.New("solver time budget exceeded")

// compiled is one rule instance in the SAT instance. A predicate is
// compiled lazily: each assignment of its scope that the SAT solver proposes
// and the predicate refuses becomes a clause forbidding it (unless relax),
// so only the assignments the search visits are ever evaluated, however
// large the scope. A Together rule is one clause from the start.
type compiled struct {
	inst *rules.Instance
	// written is the violation the instance reported with every fact
	// present, when it was compiled.
	written *rules.Violation
	scope   []int
	inScope map[int]bool
	relax   z.Lit
}

// problem is the SAT instance: one selector per fact, the hard
// implications, and the rule instances that the config as written violates
// (an instance that holds with every fact present can never be part of a
// conflict: every check assumes the facts it reports on).
type problem struct {
	g     *gini.Gini
	set   *rules.Set
	sel   []z.Lit
	rules []*compiled
	// evals counts predicate evaluations, clauses the clauses added.
	evals, clauses int
}

func newProblem(set *rules.Set) *problem {
	p := &problem{g: gini.New(), set: set, sel: make([]z.Lit, len(set.Facts))}
	for i := range p.sel {
		p.sel[i] = p.g.Lit()
	}
	for _, im := range set.Implies {
		p.clause(p.sel[im[0]].Not(), p.sel[im[1]])
	}
	return p
}

func (p *problem) clause(lits ...z.Lit) {
	for _, m := range lits {
		p.g.Add(m)
	}
	p.g.Add(0)
	p.clauses++
}

// add compiles an instance that the config as written violates.
func (p *problem) add(inst *rules.Instance, written *rules.Violation) {
	c := &compiled{inst: inst, written: written, scope: inst.Reads, relax: p.g.Lit()}
	if len(c.scope) > maxScope && !inst.Together {
		c.scope = p.narrow(inst)
	}
	c.inScope = make(map[int]bool, len(c.scope))
	for _, f := range c.scope {
		c.inScope[f] = true
	}
	p.rules = append(p.rules, c)
	// The config as written: every fact of the scope present.
	lits := make([]z.Lit, 0, len(c.scope)+1)
	for _, f := range c.scope {
		lits = append(lits, p.sel[f].Not())
	}
	p.clause(append(lits, c.relax)...)
}

// narrow keeps the facts of a large scope that the violation in the full
// config needs (found by deletion); the others are taken as present.
// Facts are deleted in chunks, halving from half the scope down to one:
// a violation that needs a few facts of thousands (a rank listed 40,000
// times) costs O(log n) checks per needed fact instead of one check per
// fact, and each check reads the whole scope. The last pass deletes facts
// one at a time, so every fact kept is needed.
func (p *problem) narrow(inst *rules.Instance) []int {
	reads := inst.Reads
	in := make(map[int]bool, len(reads))
	for _, f := range reads {
		in[f] = true
	}
	has := func(f int) bool { v, ok := in[f]; return !ok || v }
	for size := max(1, len(reads)/2); ; size /= 2 {
		for start := 0; start < len(reads); start += size {
			p.deleteIfHolds(inst, in, has, reads[start:min(start+size, len(reads))])
		}
		if size == 1 {
			break
		}
	}
	var out []int
	for _, f := range reads {
		if in[f] {
			out = append(out, f)
		}
	}
	return out
}

// deleteIfHolds deletes the present facts of chunk together when the
// violation survives without them, else restores them.
func (p *problem) deleteIfHolds(inst *rules.Instance, in map[int]bool, has func(int) bool, chunk []int) {
	var deleted []int
	for _, f := range chunk {
		if in[f] {
			in[f] = false
			deleted = append(deleted, f)
		}
	}
	if len(deleted) == 0 {
		return
	}
	p.evals++
	if inst.Check(has) == nil {
		for _, f := range deleted {
			in[f] = true
		}
	}
}

// try solves under assume, refining lazily compiled rules until the answer
// holds for every active rule: 1 SAT, -1 UNSAT.
func (p *problem) try(assume []z.Lit, active []*compiled, deadline cpuDeadline) (int, error) {
	for {
		left := deadline.left()
		if left <= 0 {
			return 0, ErrBudget
		}
		p.g.Assume(assume...)
		res := solveFor(p.g, left)
		if res == 0 {
			return 0, ErrBudget
		}
		if res == -1 || !p.refine(active) {
			return res, nil
		}
	}
}

// refine evaluates the active predicates on the SAT solver's model and
// forbids each scope assignment that violates its rule; it reports whether
// it added a clause (the model was not a real solution).
func (p *problem) refine(active []*compiled) bool {
	added := false
	for _, c := range active {
		if c.inst.Together || p.g.Value(c.relax) {
			continue
		}
		p.evals++
		if c.inst.Check(func(f int) bool { return !c.inScope[f] || p.g.Value(p.sel[f]) }) == nil {
			continue
		}
		lits := make([]z.Lit, 0, len(c.scope)+1)
		for _, f := range c.scope {
			if p.g.Value(p.sel[f]) {
				lits = append(lits, p.sel[f].Not())
			} else {
				lits = append(lits, p.sel[f])
			}
		}
		p.clause(append(lits, c.relax)...)
		added = true
	}
	return added
}

// conflict is one minimal set of facts that violates one rule instance.
type conflict struct {
	rule  *compiled
	facts []int
}

// solve reports up to max independent conflicts, each minimal, within the
// deadline.
func (p *problem) solve(max int, deadline cpuDeadline) ([]conflict, error) {
	byRelax := map[z.Lit]int{}
	for i, c := range p.rules {
		byRelax[c.relax.Not()] = i
	}
	relaxed := make([]bool, len(p.rules))
	var out []conflict
	for len(out) < max {
		assume := append([]z.Lit(nil), p.sel...)
		for i, c := range p.rules {
			if !relaxed[i] {
				assume = append(assume, c.relax.Not())
			}
		}
		res, err := p.try(assume, p.rules, deadline)
		if err != nil || res == 1 {
			return out, err
		}
		// The failed assumptions name the rules involved; take the first
		// and shrink its facts with only that rule active.
		ri := -1
		for _, m := range p.g.Why(nil) {
			if i, ok := byRelax[m]; ok && (ri < 0 || i < ri) {
				ri = i
			}
		}
		if ri < 0 {
			return out, errors.New("solver: conflict without a rule") // hard clauses alone are satisfiable
		}
		m, err := p.minimize(ri, deadline)
		if err != nil {
			return out, err
		}
		out = append(out, conflict{rule: p.rules[ri], facts: m})
		relaxed[ri] = true
		p.clause(p.rules[ri].relax)
	}
	return out, nil
}

// minimize shrinks rule ri's scope by deletion to a minimal set that still
// violates the rule on its own (every other rule relaxed), whatever the
// deleted facts are.
func (p *problem) minimize(ri int, deadline cpuDeadline) ([]int, error) {
	only := make([]z.Lit, 0, len(p.rules))
	for i, c := range p.rules {
		if i == ri {
			only = append(only, c.relax.Not())
		} else {
			only = append(only, c.relax)
		}
	}
	active := p.rules[ri : ri+1]
	m := append([]int(nil), p.rules[ri].scope...)
	for i := 0; i < len(m); {
		trial := append(append([]int(nil), m[:i]...), m[i+1:]...)
		assume := append([]z.Lit(nil), only...)
		for _, f := range trial {
			assume = append(assume, p.sel[f])
		}
		res, err := p.try(assume, active, deadline)
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
