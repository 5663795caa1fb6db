package suggest

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"strconv"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

// randomCase draws a reasoning spec and a cluster (uniform or uneven
// nodes, sometimes a node without GPUs).
func randomCase(rng *rand.Rand, maxN int) (*Spec, *Cluster) {
	pick := func(xs ...int) int { return xs[rng.Intn(len(xs))] }
	var inv model.Inventory
	N := 0
	if rng.Intn(2) == 0 {
		k := pick(1, 2, 3, 4, 6, 8)
		nodes := 1 + rng.Intn(max(1, maxN/k))
		for i := 0; i < nodes; i++ {
			inv.Nodes = append(inv.Nodes, model.Node{Rank: i, AccelType: model.AccelNVGPU, AccelCount: k})
		}
		N = k * nodes
	} else {
		for N < 2 || rng.Intn(3) > 0 && N < maxN-8 {
			c := pick(0, 1, 2, 3, 4, 5, 6, 8)
			if N == 0 && c == 0 {
				c = 2
			}
			inv.Nodes = append(inv.Nodes, model.Node{Rank: len(inv.Nodes), AccelType: model.AccelNVGPU, AccelCount: c})
			N += c
		}
	}
	r := &Reasoning{
		RolloutBatch: pick(1, 4, 7, 8, 16, 64), GroupSize: pick(1, 2, 4, 8), Minibatches: pick(1, 2, 4),
		MaxRunningRequests: pick(1, 8, 64, 128, 256), Recompute: rng.Intn(3) > 0,
		ActorCost: 1 + rng.Float64()*100, RolloutCost: 1 + rng.Float64()*100, InferenceCost: rng.Float64() * 50, HasInferenceCost: true,
		ActorTP: pick(1, 1, 2, 4, 3, 8), ActorCP: pick(1, 1, 1, 2), ActorPP: pick(1, 1, 1, 2),
		RolloutTP: pick(1, 1, 2, 4, 3), RolloutPP: pick(1, 1, 1, 2), InferencePP: 1,
	}
	r.InferenceTP = r.ActorTP
	if rng.Intn(4) == 0 {
		r.InferenceTP, r.InferenceTPSet = pick(1, 2, 4), true
	}
	if rng.Intn(5) == 0 {
		r.ProfiledActor = 1 + rng.Intn(N)
		r.ProfiledRollout = r.ProfiledActor
	}
	if rng.Intn(6) == 0 && r.Recompute {
		r.ProfiledInference = 1 + rng.Intn(N)
	}
	// Keep the profiled sizes readable: parallel sizes within them.
	w := func(x int) int {
		if x == 0 {
			return N
		}
		return x
	}
	for r.ActorTP*r.ActorCP*r.ActorPP > w(r.ProfiledActor) {
		r.ActorTP, r.ActorCP, r.ActorPP = 1, 1, 1
		r.InferenceTP = 1
	}
	for r.RolloutTP*r.RolloutPP > w(r.ProfiledRollout) {
		r.RolloutTP, r.RolloutPP = 1, 1
	}
	if r.ProfiledInference > 0 && r.InferenceTP*r.InferencePP > r.ProfiledInference {
		r.InferenceTP, r.InferenceTPSet = 1, true
	}
	cl, err := NewCluster(&inv, N)
	if err != nil {
		panic(err)
	}
	return &Spec{Task: TaskReasoning, Reasoning: r, ProfileSource: SourceConfig}, cl
}

// groupsSlow is the node rule written directly: every unit-sized group of
// [start, start+g) lies on one node, or (not strict) covers whole nodes.
func groupsSlow(cl *Cluster, start, g, unit int, strict bool) bool {
	if g%unit != 0 || start+g > cl.GPUs {
		return false
	}
	nodeOf := func(x int) int {
		for i := range cl.first {
			if x >= cl.first[i] && x <= cl.last[i] {
				return i
			}
		}
		return -1
	}
	for a := start; a < start+g; a += unit {
		b := a + unit - 1
		na, nb := nodeOf(a), nodeOf(b)
		if na == nb {
			continue
		}
		if strict || a != cl.first[na] || b != cl.last[nb] {
			return false
		}
	}
	return true
}

// TestFilterMatchesCheck: the layout filter's check part says exactly
// what the real check (pipeline.CheckBytes) says, on random configs and
// clusters, for collocated and split layouts whether or not the cost
// model prices them; its node rule matches a direct implementation.
func TestFilterMatchesCheck(t *testing.T) {
	rng := rand.New(rand.NewSource(seedFor(7)))
	trials, layouts, accepted, grouped := 150, 0, 0, 0
	if testing.Short() {
		trials = 40
	}
	for trial := 0; trial < trials; trial++ {
		spec, cl := randomCase(rng, 24)
		p, err := newProblem(spec, cl, Options{})
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		m := p.rm
		N := cl.GPUs
		var cands []cand
		cands = append(cands, cand{colloc: true})
		for gr := 1; gr < N; gr++ {
			if !m.in.Recompute {
				cands = append(cands, cand{sizes: [3]int{gr, 0, N - gr}})
				continue
			}
			for gi := 1; gr+gi < N; gi++ {
				cands = append(cands, cand{sizes: [3]int{gr, gi, N - gr - gi}})
			}
		}
		rng.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
		if len(cands) > 40 {
			cands = cands[:40]
		}
		for _, c := range cands {
			var check, groups, slow bool
			if c.colloc {
				check, groups = m.collocatedOK()
				slow = groupsSlow(cl, 0, N, m.uA, false)
			} else {
				check, groups = m.splitOK(c.sizes[0], c.sizes[1], c.sizes[2])
				slow = groupsSlow(cl, c.sizes[0]+c.sizes[1], c.sizes[2], m.uA, false)
				if c.sizes[1] > 0 {
					slow = slow && groupsSlow(cl, c.sizes[0], c.sizes[1], m.uI, false)
				}
			}
			real, err := p.verify(c)
			if err != nil {
				t.Fatal(err)
			}
			layouts++
			if real {
				accepted++
			}
			if groups {
				grouped++
			}
			if check != real || groups != slow {
				s := p.render(c)
				t.Fatalf("trial %d, nodes %v, %+v: filter says check=%v groups=%v, real check %v, direct node rule %v\n%s",
					trial, cl.NodeSizes(), *spec.Reasoning, check, groups, real, slow, s.Config)
			}
		}
	}
	t.Logf("%d layouts cross-checked: the check accepts %d, the node rule %d", layouts, accepted, grouped)
}

// TestSearchIsExact: the fast search returns the same optimum (and the
// same number of priced and kept layouts) as a brute force over every
// layout using the plain filter functions.
func TestSearchIsExact(t *testing.T) {
	rng := rand.New(rand.NewSource(seedFor(11)))
	for trial := 0; trial < 400; trial++ {
		spec, cl := randomCase(rng, 64)
		p, err := newProblem(spec, cl, Options{})
		if err != nil {
			t.Fatal(err)
		}
		m := p.rm
		N := cl.GPUs
		best, costed, kept := math.Inf(1), 0, 0
		consider := func(cost float64, check, groups bool) {
			if math.IsInf(cost, 1) {
				return
			}
			costed++
			if check && groups {
				kept++
				best = min(best, cost)
			}
		}
		a, b := m.collocatedOK()
		consider(m.collocatedCost(), a, b)
		for gr := 1; gr < N; gr++ {
			if !m.in.Recompute {
				a, b := m.splitOK(gr, 0, N-gr)
				consider(m.splitCost(m.roll[gr], m.actor[N-gr]), a, b)
				continue
			}
			for gi := 1; gr+gi < N; gi++ {
				ga := N - gr - gi
				a, b := m.splitOK(gr, gi, ga)
				consider(m.splitCost(m.roll[gr], m.infer[gi], m.actor[ga]), a, b)
			}
		}
		top := &topK{k: 1}
		gotCosted, gotKept := m.search(top)
		got := math.Inf(1)
		if len(top.list) > 0 {
			got = top.list[0].cost
		}
		if gotCosted != costed || gotKept != kept || got != best && math.Abs(got-best) > 1e-9*best {
			t.Fatalf("trial %d (%d GPUs, nodes %v, %+v): search %v (%d priced, %d kept), brute force %v (%d, %d)",
				trial, N, cl.NodeSizes(), *spec.Reasoning, got, gotCosted, gotKept, best, costed, kept)
		}
	}
}

// TestSuggestionsCheckClean: every suggestion Suggest returns passes the
// real check, and the best is the brute-force optimum over the layouts
// the real check accepts.
func TestSuggestionsCheckClean(t *testing.T) {
	rng := rand.New(rand.NewSource(seedFor(5)))
	for trial := 0; trial < 60; trial++ {
		spec, cl := randomCase(rng, 16)
		res, err := Suggest(spec, cl, Options{Top: 3})
		p, _ := newProblem(spec, cl, Options{})
		m := p.rm
		N := cl.GPUs
		best := math.Inf(1)
		try := func(c cand) {
			if math.IsInf(c.cost, 1) {
				return
			}
			var groups bool
			if c.colloc {
				_, groups = m.collocatedOK()
			} else {
				_, groups = m.splitOK(c.sizes[0], c.sizes[1], c.sizes[2])
			}
			if ok, _ := p.verify(c); ok && groups {
				best = min(best, c.cost)
			}
		}
		try(cand{colloc: true, cost: m.collocatedCost()})
		for gr := 1; gr < N; gr++ {
			if !m.in.Recompute {
				try(cand{sizes: [3]int{gr, 0, N - gr}, cost: m.splitCost(m.roll[gr], m.actor[N-gr])})
				continue
			}
			for gi := 1; gr+gi < N; gi++ {
				ga := N - gr - gi
				try(cand{sizes: [3]int{gr, gi, ga}, cost: m.splitCost(m.roll[gr], m.infer[gi], m.actor[ga])})
			}
		}
		if err != nil {
			if !math.IsInf(best, 1) {
				t.Fatalf("trial %d: %v, but a valid layout costs %v", trial, err, best)
			}
			continue
		}
		if got := res.Suggestions[0].TotalCost; got != best {
			t.Fatalf("trial %d: best suggestion %v, brute force over checked layouts %v", trial, got, best)
		}
		for i, s := range res.Suggestions {
			if ok, _ := p.verify(cand{colloc: s.Mode == ModeCollocated, sizes: sizesOf(s)}); !ok {
				t.Fatalf("trial %d: suggestion %d fails the check:\n%s", trial, i+1, s.Config)
			}
		}
	}
}

func sizesOf(s Suggestion) [3]int {
	var out [3]int
	if s.Mode == ModeCollocated {
		return out
	}
	for _, st := range s.Stages {
		switch st.Name {
		case "rollout":
			out[0] = st.GPUs
		case "inference":
			out[1] = st.GPUs
		case "actor":
			out[2] = st.GPUs
		}
	}
	return out
}

func ExampleProfile_At() {
	p := Profile{{4, 0.6}, {8, 1.0}, {16, 2.1}}
	for _, x := range []int{2, 4, 6, 16, 32} {
		v, ok := p.At(x)
		fmt.Printf("%d envs/GPU: %.2f %v\n", x, v, ok)
	}
	// Output:
	// 2 envs/GPU: 0.60 true
	// 4 envs/GPU: 0.60 true
	// 6 envs/GPU: 0.80 true
	// 16 envs/GPU: 2.10 true
	// 32 envs/GPU: 0.00 false
}

// seedFor is def, or RLSOLVE_SEED when set (to explore more cases).
func seedFor(def int64) int64 {
	if s, err := strconv.ParseInt(os.Getenv("RLSOLVE_SEED"), 10, 64); err == nil {
		return s
	}
	return def
}
