package suggest

import (
	"fmt"
	"math"
)

// Layout is a placement in the search's terms: collocated, or a split
// whose stage sizes are given in placement order (reasoning: rollout,
// inference, actor, with inference 0 when it is not a stage; embodied:
// env, rollout, with the actor on every GPU).
type Layout struct {
	Collocated bool
	Sizes      [3]int
}

// Evaluation is what the model and the check say of one layout.
type Evaluation struct {
	// Cost is the modeled total (+Inf when the model has no entry).
	Cost float64
	// Valid is true when the layout passes rlsolve's check and no
	// model-parallel group crosses a node boundary.
	Valid bool
	// Reason says why it is not valid ("" when it is).
	Reason string
	// FilterAgrees is true when the search's fast filter and the real
	// check agree on the layout (the search relies on it).
	FilterAgrees bool
	// Placement is the layout's component_placement.
	Placement []Entry
}

// Evaluate prices a layout under the same model and judges its validity
// with the same filter and check as Suggest: for comparing a suggestion
// with another tool's answer.
func Evaluate(spec *Spec, cl *Cluster, l Layout) (*Evaluation, error) {
	p, err := newProblem(spec, cl, Options{})
	if err != nil {
		return nil, err
	}
	c := cand{colloc: l.Collocated, sizes: l.Sizes}
	ev := &Evaluation{Cost: inf}
	if l.Collocated {
		c.sizes = [3]int{}
	}
	N := cl.GPUs
	sum := 0
	for _, g := range c.sizes {
		sum += g
	}
	switch {
	case p.rm != nil && !l.Collocated:
		if sum != N || c.sizes[0] < 1 || c.sizes[2] < 1 || (c.sizes[1] < 1) == p.rm.in.Recompute {
			return nil, fmt.Errorf("a split must give each of its %d stages at least one GPU and use all %d", p.rm.stages(), N)
		}
	case p.em != nil && !l.Collocated:
		if c.sizes[0]+c.sizes[1] != N || c.sizes[0] < 1 || c.sizes[1] < 1 || c.sizes[2] != 0 {
			return nil, fmt.Errorf("an embodied split gives env and rollout at least one GPU each and uses all %d", N)
		}
	}
	var check, groups bool
	if p.rm != nil {
		m := p.rm
		if l.Collocated {
			ev.Cost = m.collocatedCost()
			check, groups = m.collocatedOK()
		} else {
			gr, gi, ga := c.sizes[0], c.sizes[1], c.sizes[2]
			ts := []float64{m.roll[gr], m.actor[ga]}
			if gi > 0 {
				ts = []float64{m.roll[gr], m.infer[gi], m.actor[ga]}
			}
			ev.Cost = m.splitCost(ts...)
			check, groups = m.splitOK(gr, gi, ga)
		}
	} else {
		check, groups = true, true
		if l.Collocated {
			ev.Cost = p.em.collocatedCost()
		} else {
			ev.Cost = p.em.splitCost(p.em.env[c.sizes[0]], p.em.roll[c.sizes[1]])
		}
	}
	if math.IsInf(ev.Cost, 0) || math.IsNaN(ev.Cost) {
		ev.Cost = inf
	}
	c.cost = ev.Cost
	ev.Placement = p.render(c).Placement
	ok, err := p.verify(c)
	if err != nil {
		return nil, err
	}
	ev.FilterAgrees = check == ok
	switch {
	case !ok:
		ev.Reason = "rlsolve check rejects it"
	case !groups:
		ev.Reason = "a model-parallel group crosses a node boundary"
	default:
		ev.Valid = true
	}
	return ev, nil
}
