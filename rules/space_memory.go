package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlsolve/rlsolve/memory"
	"github.com/rlsolve/rlsolve/model"
)

// GPU memory in placing: a component goes only on GPUs that hold it. For
// each component that owns its devices, the memory rule (Memory.Need)
// says what one GPU needs for it and the components sharing its devices,
// for every GPU size its node groups have; nodes whose GPUs are too small
// are off its list, behind one fact per size ("actor needs 61.2 GiB per
// GPU at its peak; node(s) 2-3 have 24 GiB GPUs"), which a conflict may
// name and lift.

// FactMemory is a component's memory need against a GPU size (removed:
// those GPUs may hold it).
const FactMemory FactKind = 200

// memoryFit records, per root demand, the nodes whose GPUs cannot hold it.
func (s *Space) memoryFit(m *Memory) {
	if m == nil || s.cfg.Memory == nil {
		return
	}
	cand := s.candidate()
	for i, d := range s.Demands {
		if s.Root(i) != i || d.With >= 0 || d.WithPlaced >= 0 || d.Type != model.HardwareAccelerator {
			continue
		}
		comps := s.sharers(i)
		bySize := map[float64][]int{}
		for _, b := range d.Blocks {
			if gib := s.view.Nodes[b.Node].MemoryGiB; gib > 0 && !slices.Contains(bySize[gib], b.Node) {
				bySize[gib] = append(bySize[gib], b.Node)
			}
		}
		for gib, nodes := range bySize {
			capacity := int64(gib * (1 << 30))
			r, findings := m.Need(s.cfg.Memory, cand, comps, capacity)
			if r.PeakBytes <= capacity && !hasError(findings) {
				continue
			}
			f := s.fact(Fact{Kind: FactMemory, Entry: d.Entry, Span: s.cfg.Components[d.Entry].Requirement.Span,
				What: fmt.Sprintf("%s %.1f GiB per GPU at its peak (%s); %s have %g GiB GPUs", needsText(comps),
					float64(r.PeakBytes)/(1<<30), r.PeakPhase, nodesText(nodes), gib)})
			if s.Unfit[i] == nil {
				s.Unfit[i] = map[int]int{}
			}
			for _, n := range nodes {
				s.Unfit[i][n] = f
			}
		}
	}
}

// needsText is "actor needs" or "actor, rollout and reward need".
func needsText(names []string) string {
	if len(names) == 1 {
		return names[0] + " needs"
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " need"
}

// candidate is the layout the memory rule sizes components for: each
// component's GPU count, whether actor and rollout share GPUs, whether the
// actor computes the log-probs.
func (s *Space) candidate() Candidate {
	c := Candidate{GPUs: map[string]int{}}
	for i, d := range s.Demands {
		n := d.Count
		if n == 0 {
			n = s.Demands[s.Root(i)].Count
		}
		for _, name := range strings.Split(d.Name, ",") {
			c.GPUs[name] = n
		}
	}
	for _, e := range s.cfg.Components {
		if e.Requirement == nil && len(e.Segments) > 0 {
			r, _ := s.view.Resolve(e.NodeGroups)
			if r != nil && r.Typed && inRange(&e, r.Total) {
				for _, name := range e.Names {
					c.GPUs[name] = model.ProcessCount(&e, r.Total)
				}
			}
		}
	}
	a, r := s.demandNamed("actor"), s.demandNamed("rollout")
	c.Collocated = a >= 0 && r >= 0 && s.Root(a) == s.Root(r)
	for _, n := range s.view.Nodes {
		c.GPUsPerNode = max(c.GPUsPerNode, n.AccelCount)
	}
	c.ActorLogprob = s.cfg.ModelParallel.RecomputeLogprobs.Value && c.GPUs["inference"] == 0
	return c
}

// sharers are the component names on root i's devices.
func (s *Space) sharers(i int) []string {
	var out []string
	for j, d := range s.Demands {
		if s.Root(j) == i {
			out = append(out, strings.Split(d.Name, ",")...)
		}
	}
	return out
}

// demandNamed is the demand placing component name, or -1.
func (s *Space) demandNamed(name string) int {
	for i, d := range s.Demands {
		if slices.Contains(strings.Split(d.Name, ","), name) {
			return i
		}
	}
	return -1
}

func hasError(fs []memory.Finding) bool {
	for _, f := range fs {
		if f.Severity == model.SeverityError {
			return true
		}
	}
	return false
}
