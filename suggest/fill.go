package suggest

import (
	"fmt"
	"math"
	"strings"
)

// What the cost model can fill: each stage's GPU counts with a cost, and
// the totals a layout of them reaches. When no layout of N GPUs has a
// cost, these are the numbers that say whether N is too many, too few or
// falls between the totals the stages can make.

// stageTable is one stage's costs by GPU count (index g, +Inf: none).
type stageTable struct {
	name  string
	costs []float64
}

// tables are the split's stages in placement order.
func (p *problem) tables() []stageTable {
	if p.em != nil {
		return []stageTable{{"env", p.em.env}, {"rollout", p.em.roll}}
	}
	m := p.rm
	if m.in.Recompute {
		return []stageTable{{"rollout", m.roll}, {"inference", m.infer}, {"actor", m.actor}}
	}
	return []stageTable{{"rollout", m.roll}, {"actor", m.actor}}
}

// counts are the GPU counts from 1 to N with a cost.
func (t stageTable) counts() []int {
	var out []int
	for g := 1; g < len(t.costs); g++ {
		if !math.IsInf(t.costs[g], 1) {
			out = append(out, g)
		}
	}
	return out
}

// fillable marks the totals from 0 to N that a split of the stages'
// counts reaches, or that every stage prices collocated.
func fillable(ts []stageTable, N int) []bool {
	reach := make([]bool, N+1)
	reach[0] = true
	for _, t := range ts {
		next := make([]bool, N+1)
		cs := t.counts()
		for s, ok := range reach {
			if !ok {
				continue
			}
			for _, g := range cs {
				if s+g > N {
					break
				}
				next[s+g] = true
			}
		}
		reach = next
	}
	for g := 1; g <= N; g++ {
		all := true
		for _, t := range ts {
			all = all && !math.IsInf(t.costs[g], 1)
		}
		reach[g] = reach[g] || all
	}
	return reach
}

// countsText lists GPU counts briefly: "1-16", "4, 8, 12", "2, 4, 6, ..., 40".
func countsText(cs []int) string {
	if len(cs) == 0 {
		return "none"
	}
	first, last := cs[0], cs[len(cs)-1]
	if last-first+1 == len(cs) && len(cs) > 2 {
		return fmt.Sprintf("%d-%d", first, last)
	}
	parts := make([]string, 0, 5)
	for i, c := range cs {
		if len(cs) > 5 && i == 3 {
			parts = append(parts, "...", fmt.Sprint(last))
			break
		}
		parts = append(parts, fmt.Sprint(c))
	}
	return strings.Join(parts, ", ")
}

// on is the same search on a cluster of g GPUs, for its cost tables only
// (nil when the model cannot be built there).
func (p *problem) on(g int) *problem {
	cl := &Cluster{GPUs: g}
	q := &problem{spec: p.spec, cl: cl}
	if p.em != nil {
		q.em = newEModel(p.em.in, cl)
		return q
	}
	m, err := newRModel(p.rm.in, cl)
	if err != nil {
		return nil
	}
	q.rm = m
	return q
}

// fillsExactly says whether some layout of exactly g GPUs has a cost, and
// roughly how much work finding out took.
func (p *problem) fillsExactly(g int) (bool, int) {
	q := p.on(g)
	if q == nil {
		return false, g
	}
	ts := q.tables()
	work := g
	for _, t := range ts {
		work += g * len(t.counts())
	}
	return fillable(ts, g)[g], work
}

// maxAdviceWork bounds the exact scan for the nearest GPU counts that a
// layout fills (a cluster's tables differ from N's where a component was
// profiled on "all" GPUs, so each count is priced on its own): past it,
// only the counts N's own tables fill are tried, each confirmed.
const maxAdviceWork = 50_000_000

// nearest is the first GPU count from N+step on, by step (+1 or -1, up to
// bound), that a priced layout fills exactly; 0 when none is found within
// the work bound. likely marks the counts to try once the exact scan is
// over its bound.
func (p *problem) nearest(step, bound int, likely []bool) int {
	N := p.cl.GPUs
	work := 0
	g := N + step
	for ; g >= 1 && g <= bound && work < maxAdviceWork; g += step {
		ok, w := p.fillsExactly(g)
		if ok {
			return g
		}
		work += w
	}
	for tries := 0; g >= 1 && g <= bound && g < len(likely) && tries < 16; g += step {
		if !likely[g] {
			continue
		}
		tries++
		if ok, _ := p.fillsExactly(g); ok {
			return g
		}
	}
	return 0
}

// nearestAbove is the fewest GPUs above N that a priced layout fills (0
// when none is found up to a bound).
func (p *problem) nearestAbove() int {
	N := p.cl.GPUs
	bound := min(MaxGPUs, 4*N+64)
	if bound <= N {
		return 0
	}
	var likely []bool
	if q := p.on(bound); q != nil {
		likely = fillable(q.tables(), bound)
	}
	return p.nearest(+1, bound, likely)
}

// stagesText lists the GPU counts each stage can take on N GPUs, and
// what a split of them fills: at most some count below N, or no total of
// exactly N.
func stagesText(ts []stageTable, N int) string {
	var parts []string
	most := 0
	for _, t := range ts {
		cs := t.counts()
		parts = append(parts, fmt.Sprintf("%s %s", t.name, countsText(cs)))
		if len(cs) > 0 {
			most += cs[len(cs)-1]
		}
	}
	fills := fmt.Sprintf("a split fills at most %d GPUs", most)
	for _, t := range ts {
		if len(t.counts()) == 0 {
			fills = fmt.Sprintf("%s takes no count up to %d", t.name, N)
			break
		}
	}
	if most >= N {
		fills = fmt.Sprintf("no split of them adds up to %d", N)
	}
	return fmt.Sprintf("%s (%s)", strings.Join(parts, "; "), fills)
}

// unpriced explains a search where no layout of N GPUs has a cost: what
// each stage can take, the totals that gives, and the nearest GPU count
// that has a priced layout.
func (p *problem) unpriced(e *Error, what string) {
	N := p.cl.GPUs
	ts := p.tables()
	stages := stagesText(ts, N)
	limits := "A component never gets more GPUs than in the profiled placement, and its GPU count must be a valid data-parallel size"
	if p.em != nil {
		limits = "Env GPUs must divide the environments, neither env nor rollout gets more GPUs than environments, and no GPU may hold more environments than the largest profiled load"
	}
	e.Why = fmt.Sprintf("%s. On %d GPUs the stages can take: %s; collocated needs every stage priced on all %d.",
		limits, N, stages, N)
	fewer := p.nearest(-1, N, fillable(ts, N))
	more := p.nearestAbove()
	e.Msg = fmt.Sprintf("no %s layout of %d GPUs has a cost under the model", what, N)
	grow := fmt.Sprintf("profile in a placement that uses all %d GPUs", N)
	if p.em != nil {
		grow = fmt.Sprintf("run more environments to use all %d GPUs", N)
		if fewer == 0 {
			grow = "profile larger loads (more envs per GPU)"
		}
	}
	switch {
	case fewer > 0 && more > 0:
		e.Msg += fmt.Sprintf("; the nearest counts a layout fills are %d and %d", fewer, more)
		e.Help = fmt.Sprintf("plan for %d or %d GPUs (--gpus %d or --gpus %d)", fewer, more, fewer, more)
		if p.rm != nil {
			e.Help += ", or " + grow
		}
	case fewer > 0:
		e.Msg += fmt.Sprintf("; %d GPUs is the most a layout fills", fewer)
		e.Help = fmt.Sprintf("plan for %d GPUs (--gpus %d), or %s", fewer, fewer, grow)
	case more > 0:
		e.Msg += fmt.Sprintf("; the fewest a layout fills is %d", more)
		e.Help = fmt.Sprintf("plan for more GPUs (--gpus %d), or %s", more, grow)
	default:
		e.Help = "profile on the GPUs you plan for (collocated on all of them)"
	}
}
