package suggest

import (
	"fmt"
	"math"
	"strings"

	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// checkedName is the name generated configs are checked under; a problem
// found there is moved to the user's key it comes from.
const checkedName = "suggestion.yaml"

// Refusal says why a mode has no suggestion: the first problem its judge
// found with the mode's best-priced layout (the cost model when no layout
// of the mode has a cost, else rlsolve check on the generated config, else
// suggest's rule on model-parallel groups), located in the user's file.
type Refusal struct {
	Mode       string
	Diagnostic model.Diagnostic
}

// refusals explains each mode that has no suggestion. The checks it runs
// are not the search's: the first problem the search met stays p.reject.
func (p *problem) refusals(res *Result) ([]Refusal, error) {
	if res.Costed == 0 {
		return nil, nil // none() says what each stage can take
	}
	defer func(reject string) { p.reject = reject }(p.reject)
	split := ModeDisaggregated
	if p.em != nil {
		split = ModeHybrid
	}
	var out []Refusal
	for _, m := range []struct {
		mode string
		cost float64
		best func() *cand
	}{{ModeCollocated, res.CollocatedCost, p.collocated}, {split, res.BestSplitCost, p.bestPricedSplit}} {
		if !math.IsNaN(m.cost) && len(res.Suggestions) > 0 {
			continue
		}
		d, refused, err := p.refuse(m.best(), m.mode)
		if err != nil {
			return nil, err
		}
		if refused {
			out = append(out, Refusal{Mode: m.mode, Diagnostic: d})
		}
	}
	return out, nil
}

// bestPricedSplit is the cheapest split the model prices, valid or not
// (nil when none has a cost).
func (p *problem) bestPricedSplit() *cand {
	top := &topK{k: 2} // at most one of the two is collocated
	if p.rm != nil {
		p.rm.unfiltered = true
		defer func() { p.rm.unfiltered = false }()
	}
	p.search(top)
	for _, c := range top.list {
		if !c.colloc {
			return &c
		}
	}
	return nil
}

// refuse is why c, the best-priced layout of mode, is not suggested;
// refused is false when nothing refuses it (the search stopped at its
// bound of real checks before reaching it).
func (p *problem) refuse(c *cand, mode string) (d model.Diagnostic, refused bool, err error) {
	d = model.Diagnostic{Code: model.CodeSuggestNone, Severity: model.SeverityError}
	if c == nil {
		d.Summary, d.Primary = p.unpricedMode(mode)
		return d, true, nil
	}
	ok, err := p.verify(*c)
	if err != nil {
		return d, false, err
	}
	if !ok {
		return p.moved(*c, p.refused[*c]), true, nil
	}
	if p.rm == nil || p.groupsFit(*c) {
		return d, false, nil
	}
	d.Summary, d.Primary = p.crossing(*c, mode)
	return d, true, nil
}

// groupsFit is the layout filter's node rule for c.
func (p *problem) groupsFit(c cand) bool {
	if c.colloc {
		_, groups := p.rm.collocatedOK()
		return groups
	}
	_, groups := p.rm.splitOK(c.sizes[0], c.sizes[1], c.sizes[2])
	return groups
}

// moved is a problem the check found in c's generated config, at the
// user's key it comes from: the same key when the file has it, else the
// nearest section it has, else the file. Labels and fixes point into the
// generated config, so they are left out; the why stays.
func (p *problem) moved(c cand, d model.Diagnostic) model.Diagnostic {
	path := pathAt(p.render(c).Config, d.Primary.Line)
	at := p.spec.at(path)
	// A generated placement key names components; the user's entry for
	// the first of them is where that component's GPUs are set.
	if key, ok := strings.CutPrefix(path, "cluster.component_placement."); ok {
		at = p.spec.placedAt(strings.Split(key, ",")[0])
	}
	return model.Diagnostic{Code: d.Code, Severity: d.Severity, Summary: d.Summary, Why: d.Why, Primary: at}
}

// pathAt is the dotted path of the key on line of a YAML mapping ("" when
// none is there).
func pathAt(config []byte, line int) string {
	var doc yaml.Node
	if yaml.Unmarshal(config, &doc) != nil || len(doc.Content) == 0 {
		return ""
	}
	return walkPath(doc.Content[0], "", line)
}

func walkPath(n *yaml.Node, prefix string, line int) string {
	if n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		path := k.Value
		if prefix != "" {
			path = prefix + "." + k.Value
		}
		if k.Line == line || v.Kind == yaml.ScalarNode && v.Line == line {
			return path
		}
		if sub := walkPath(v, path, line); sub != "" {
			return sub
		}
	}
	return ""
}

// crossing is the layout filter's own rule, the one check does not have:
// no actor or inference model-parallel group across a node boundary
// unless it covers whole nodes.
func (p *problem) crossing(c cand, mode string) (string, model.Span) {
	m := p.rm
	name, unit, path := "actor", m.uA, "actor.model.tensor_model_parallel_size"
	if !c.colloc && c.sizes[1] > 0 && !p.cl.fits(c.sizes[0], c.sizes[1], m.uI, false) {
		name, unit, path = "inference", m.uI, "inference.model.tensor_model_parallel_size"
	}
	return fmt.Sprintf("%s would put one of the %s's model-parallel groups of %d GPUs across a node boundary (%s)",
		mode, name, unit, nodesText(p.cl.NodeSizes())), p.spec.at(path)
}

// unpricedMode says why no layout of mode has a cost: for collocated, the
// first stage the model cannot price on all N GPUs; for a split, the GPU
// counts the stages can take.
func (p *problem) unpricedMode(mode string) (string, model.Span) {
	N := p.cl.GPUs
	if mode != ModeCollocated {
		return fmt.Sprintf("no %s layout of %d GPUs has a cost: the stages can take %s", mode, N, stagesText(p.tables(), N)),
			p.spec.at("cluster.component_placement")
	}
	for _, t := range p.tables() {
		if math.IsInf(t.costs[N], 1) {
			why, at := p.noCost(t.name, N)
			return fmt.Sprintf("collocated has no cost on all %d GPUs: %s", N, why), at
		}
	}
	// Only the embodied actor is left, and it is priced everywhere.
	return fmt.Sprintf("collocated has no cost on all %d GPUs", N), p.spec.fileSpan()
}
