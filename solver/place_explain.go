package solver

import (
	"sort"
	"strings"

	"github.com/go-air/gini/z"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/rules"
)

// explainer finds minimal sets of facts that cannot hold together: the
// counting argument where it applies, else the SAT instance with one
// selector per fact.
type explainer struct {
	sp       *rules.Space
	in       *instance
	deadline cpuDeadline
	// exact is false once the budget cut a minimization: the set is still
	// a conflict, maybe not a minimal one.
	exact bool
	calls int
}

// explain returns one diagnostic per independent conflict, the
// conflicts' facts, and the size of the search.
func explain(sp *rules.Space, opt PlaceOptions, deadline cpuDeadline) (model.Diagnostics, [][]int, PlaceStats) {
	ex := &explainer{sp: sp, deadline: deadline, exact: true}
	allowed := make([]bool, len(sp.Facts))
	for f := range allowed {
		allowed[f] = true
	}
	var ds model.Diagnostics
	var cores [][]int
	for len(ds) < opt.MaxConflicts {
		core := ex.core(allowed)
		if core == nil {
			break
		}
		core = ex.minimize(core)
		cores = append(cores, core)
		ds = append(ds, ex.describe(core, opt, deadline))
		for _, f := range core {
			allowed[f] = false
		}
	}
	if len(ds) == 0 {
		// Infeasible, yet no set of facts explains it: the cluster itself
		// (its devices per node) cannot hold what the components need.
		ds.Errorf(model.CodeUnplaceable, sp.Anchor(), "", "no placement satisfies the requirements on this cluster")
	}
	if len(ds) == opt.MaxConflicts {
		ds.Notef(model.NoteConflictsCut, sp.Anchor(), "", "only the first %d conflicts are explained", opt.MaxConflicts)
	}
	var st PlaceStats
	if ex.in != nil {
		st = ex.in.stats()
	}
	st.Calls = ex.calls
	return ds, cores, st
}

// core is a set of facts among present that cannot hold together, or nil.
func (ex *explainer) core(present []bool) []int {
	if s := hall(ex.sp, present); s != nil {
		return s.facts
	}
	st, why := ex.sat(present)
	if st != unsat {
		return nil
	}
	return why
}

// sat solves the explaining instance with the facts present; on unsat it
// returns the facts the solver used.
func (ex *explainer) sat(present []bool) (status, []int) {
	if ex.in == nil {
		ex.in = newInstance(ex.sp, true)
	}
	left := ex.deadline.left()
	if left <= 0 {
		return unknown, nil
	}
	var assume []z.Lit
	owner := map[z.Lit]int{}
	for f, ok := range present {
		if ok {
			assume = append(assume, ex.in.sel[f])
			owner[ex.in.sel[f]] = f
		}
	}
	// A first-fit placement under the facts present proves them feasible
	// by propagation alone; only when there is none does the search run.
	if guess, ok := ex.in.guess(func(f int) bool { return present[f] }); ok {
		ex.in.flush(append(assume, guess...)...)
		ex.in.g.Assume(assume...)
		ex.in.g.Assume(guess...)
		ex.calls++
		if solveFor(ex.in.g, left) == 1 {
			return sat, nil
		}
	}
	ex.in.flush(assume...)
	ex.in.g.Assume(assume...)
	ex.calls++
	st := status(solveFor(ex.in.g, left))
	if st != unsat {
		return st, nil
	}
	var why []int
	for _, m := range ex.in.g.Why(nil) {
		if f, ok := owner[m]; ok {
			why = append(why, f)
		}
	}
	sort.Ints(why)
	return unsat, why
}

// infeasible reports whether the facts of set, alone, cannot hold; when
// they cannot, it also returns the (possibly smaller) set that shows it.
func (ex *explainer) infeasible(set []int) ([]int, bool) {
	present := make([]bool, len(ex.sp.Facts))
	for _, f := range set {
		present[f] = true
	}
	if s := hall(ex.sp, present); s != nil {
		return s.facts, true
	}
	st, why := ex.sat(present)
	if st == unknown {
		ex.exact = false
	}
	return why, st == unsat
}

// minimize drops facts while the rest still cannot hold: what is left is
// a minimal set (each of its facts is needed).
func (ex *explainer) minimize(core []int) []int {
	core = uniq(core)
	for k := 0; k < len(core); {
		without := append(append([]int(nil), core[:k]...), core[k+1:]...)
		if smaller, ok := ex.infeasible(without); ok {
			core = intersect(without, smaller)
			if len(core) == 0 {
				core = without
			}
			continue
		}
		k++
	}
	return core
}

// describe renders a conflict: its facts, located, what the counting says
// when it applies, and fixes that re-solving confirms.
func (ex *explainer) describe(core []int, opt PlaceOptions, deadline cpuDeadline) model.Diagnostic {
	sp := ex.sp
	facts := byPosition(sp, core)
	present := make([]bool, len(sp.Facts))
	for _, f := range core {
		present[f] = true
	}
	var whats []string
	for _, f := range facts {
		whats = append(whats, sp.Facts[f].What)
	}
	d := model.Diagnostic{Code: model.CodeUnplaceable, Severity: model.SeverityError,
		Summary: "these cannot hold together: " + strings.Join(whats, " + ")}
	if s := hall(sp, present); s != nil {
		d.Why = s.describe() + "."
	} else if sp.Auto != nil && present[sp.Auto.Fact] {
		d.Why = autoWhy(sp)
	} else {
		// Contiguity is what the counting above cannot see: enough devices
		// in total, but no gap-free run long enough where it must be.
		d.Why = "No choice of devices satisfies them all: each component's devices must be contiguous (one gap-free run of ranks on each node, or one range over the cluster for a model-parallel component), in whole processes (engines, TP groups), and the free devices left do not form such runs."
	}
	if !ex.exact {
		d.Why += " (The time budget cut the search for a smaller set.)"
	}
	primary := facts[0]
	for _, f := range facts {
		if sp.Facts[f].Kind == rules.FactCount {
			primary = f
			break
		}
	}
	d.Primary, d.PrimaryLabel = sp.Facts[primary].Span, sp.Facts[primary].What
	if !d.Primary.Known() {
		d.Primary = sp.Anchor()
	}
	for _, f := range facts {
		if f != primary {
			d.Labels = append(d.Labels, model.Label{Span: sp.Facts[f].Span, Message: sp.Facts[f].What})
		}
	}
	d.Help = fixes(sp, core, opt, deadline)
	return d
}

// byPosition orders facts as the file has them; facts without a position
// (flags) come last.
func byPosition(sp *rules.Space, ids []int) []int {
	out := append([]int(nil), ids...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := sp.Facts[out[i]].Span, sp.Facts[out[j]].Span
		switch {
		case a.Known() != b.Known():
			return a.Known()
		case a.File != b.File:
			return a.File < b.File
		case a.Line != b.Line:
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return out
}

func uniq(xs []int) []int {
	seen := map[int]bool{}
	var out []int
	for _, x := range xs {
		if x >= 0 && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Ints(out)
	return out
}

// intersect keeps the elements of a that are in b.
func intersect(a, b []int) []int {
	in := map[int]bool{}
	for _, x := range b {
		in[x] = true
	}
	var out []int
	for _, x := range a {
		if in[x] {
			out = append(out, x)
		}
	}
	return out
}
