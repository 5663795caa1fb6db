package suggest

import (
	"fmt"
	"math"

	"github.com/rlsolve/rlsolve/model"
)

var inf = math.Inf(1)

// Error is a problem with the inputs or the result, with its code.
type Error struct {
	Code string
	Msg  string
	Why  string
	Help string
	// Labels point at the settings that refuse each mode (refusal.go).
	Labels []model.Label
}

func (e *Error) Error() string { return e.Msg }

// Diagnostic is the error as rlsolve reports it, at the config file (or
// at the flags when there is none).
func (e *Error) Diagnostic(file string) model.Diagnostic {
	if file == "" {
		file = "<flags>"
	}
	d := model.Diagnostic{Code: e.Code, Severity: model.SeverityError, Summary: e.Msg, Primary: model.Span{File: file}, Why: e.Why, Labels: e.Labels}
	if e.Help != "" {
		d.Help = []model.Fix{{Message: e.Help}}
	}
	return d
}

// cand is one layout: collocated, or a contiguous split rollout |
// [inference |] actor (embodied: env | rollout, actor on all GPUs).
type cand struct {
	cost   float64
	colloc bool
	// sizes are the GPU counts of the split's stages in placement order
	// (reasoning: rollout, inference, actor; inference 0 without it;
	// embodied: env, rollout).
	sizes [3]int
}

// before orders candidates: cheaper first; on a tie collocated, then
// fewer GPUs for the earlier stages.
func (a cand) before(b cand) bool {
	if a.cost != b.cost {
		return a.cost < b.cost
	}
	if a.colloc != b.colloc {
		return a.colloc
	}
	for i := range a.sizes {
		if a.sizes[i] != b.sizes[i] {
			return a.sizes[i] < b.sizes[i]
		}
	}
	return false
}

// topK keeps the k best candidates, sorted.
type topK struct {
	k    int
	list []cand
}

func (t *topK) full() bool { return len(t.list) >= t.k }

func (t *topK) push(c cand) {
	n := len(t.list)
	if n >= t.k && !c.before(t.list[n-1]) {
		return
	}
	i := n
	for i > 0 && c.before(t.list[i-1]) {
		i--
	}
	if n < t.k {
		t.list = append(t.list, cand{})
	}
	copy(t.list[i+1:], t.list[i:len(t.list)-1])
	t.list[i] = c
}

// rmodel is the reasoning cost model of spec §1.3-1.4 for N GPUs, with
// its tables precomputed: cost per group batch (seconds per prompt group)
// of each stage on g GPUs, +Inf where the table has no entry.
type rmodel struct {
	in *Reasoning
	cl *Cluster
	N  int
	R  float64

	roll, infer, actor []float64
	wR, wI, wA         int // profiled world sizes
	mpR, mpI, mpA      int // model-parallel sizes of the cost model
	// Units of the layout filter: a rollout process's GPUs (strict: one
	// node), and the model-parallel groups of inference and actor.
	uR, uI, uA int
	// Collocated layout: the rollout engines' block (rollout TP x stride)
	// and whether actor TP and rollout TP are compatible.
	block    int
	tpCompat bool
	// unfiltered makes search keep every priced layout, for finding the
	// best-priced layout of a mode the filter refuses (refusal.go).
	unfiltered bool
}

func newRModel(in *Reasoning, cl *Cluster) (*rmodel, error) {
	N := cl.GPUs
	m := &rmodel{in: in, cl: cl, N: N, R: float64(in.RolloutBatch)}
	world := func(w int) int {
		if w <= 0 {
			return N
		}
		return w
	}
	m.wA, m.wR = world(in.ProfiledActor), world(in.ProfiledRollout)
	amp := in.ActorTP * in.ActorCP * in.ActorPP
	rmp := in.RolloutTP * in.RolloutPP
	mpOf := func(name string, w, size int) (int, error) {
		dp := w / size
		if dp == 0 {
			return 0, &Error{Code: model.CodeSuggestProfiled,
				Msg: fmt.Sprintf("%s = %d is larger than its %d GPUs in the profiled placement", name, size, w),
				Why: "The cost model reads each component's model-parallel size from the profiled placement (world size / data-parallel size)."}
		}
		return w / dp, nil
	}
	var err error
	if m.mpA, err = mpOf("actor TP x CP x PP", m.wA, amp); err != nil {
		return nil, err
	}
	if m.mpR, err = mpOf("rollout TP x PP", m.wR, rmp); err != nil {
		return nil, err
	}
	switch in.ProfiledInference {
	case 0:
		m.wI, m.mpI = m.wA, m.mpA
	default:
		m.wI = world(max(in.ProfiledInference, 0))
		if m.mpI, err = mpOf("inference TP x PP", m.wI, in.InferenceTP*in.InferencePP); err != nil {
			return nil, err
		}
	}
	// Units larger than N never fit; capping them keeps the arithmetic
	// in range for any input.
	m.uR = min(rmp, N+1)
	m.uA = model.LCMCap(m.mpA, amp, N+1)
	m.uI = model.LCMCap(m.mpI, in.InferenceTP*in.InferencePP, N+1)
	m.tpCompat = in.ActorTP <= in.RolloutTP || in.ActorTP%in.RolloutTP == 0
	stride := 1
	if in.ActorTP > in.RolloutTP && m.tpCompat {
		stride = in.ActorTP / in.RolloutTP
	}
	m.block = in.RolloutTP * stride

	R, gs, nmb := in.RolloutBatch, in.GroupSize, in.Minibatches
	m.roll = rolloutTable(N, m.wR, m.mpR, in.RolloutCost/m.R, R*gs, in.MaxRunningRequests)
	m.actor = megatronTable(N, m.wA, m.mpA, in.ActorCost/m.R, R, gs, nmb)
	if in.Recompute {
		m.infer = megatronTable(N, m.wI, m.mpI, in.InferenceCost/m.R, R, gs, nmb)
	}
	return m, nil
}

// megatronTable is §1.3's table for actor and inference: valid counts are
// dp*mp with dp dividing the per-iteration batch in groups (every
// multiple of mp when none does); below the profiled W the component is
// slower, with the toolkit's damped speed-up; above W there is no entry.
func megatronTable(N, W, mp int, cbar float64, R, gs, nmb int) []float64 {
	t := make([]float64, N+1)
	for i := range t {
		t[i] = inf
	}
	tib := R * gs / nmb
	var valid []int
	for dp := 1; dp <= N/mp; dp++ {
		if tib%(dp*gs) == 0 {
			valid = append(valid, dp*mp)
		}
	}
	if len(valid) == 0 {
		for dp := 1; dp <= N/mp; dp++ {
			valid = append(valid, dp*mp)
		}
	}
	for _, g := range valid {
		if g < W {
			s := float64(W) / float64(g)
			t[g] = cbar * s / (1 + min(max(s/10, 0.1), 0.9))
		}
	}
	if W <= N {
		t[W] = cbar
	}
	return t
}

// rolloutTable is §1.3's rollout table: a step function of how many
// requests the engines hold at once.
func rolloutTable(N, W, mp int, cbar float64, requests, mrr int) []float64 {
	t := make([]float64, N+1)
	for i := range t {
		t[i] = inf
	}
	capacity := mrr
	if mrr >= 128 {
		capacity = int(math.Ceil(float64(mrr) * 0.9))
	}
	for g := mp; g < W && g <= N; g += mp {
		if (g/mp)*capacity >= requests {
			t[g] = cbar
		} else {
			t[g] = cbar * float64(W) / float64(g)
		}
	}
	if W <= N {
		t[W] = cbar
	}
	return t
}

func (m *rmodel) stages() int {
	if m.in.Recompute {
		return 3
	}
	return 2
}

// collocated is the all-collocated layout's cost (+Inf when a table has
// no entry at N).
func (m *rmodel) collocatedCost() float64 {
	t := m.roll[m.N] + m.actor[m.N]
	if m.in.Recompute {
		t += m.infer[m.N]
	}
	return t * m.R
}

// collocatedOK is the layout filter for the collocated layout: what
// RLinf's ModelParallel placement requires of it (actor TP divisible by
// rollout TP, rollout engines of TP x stride GPUs filling the GPUs, each
// engine on one node) and rlsolve's rule that no actor model-parallel
// group crosses a node unless it covers whole nodes.
func (m *rmodel) collocatedOK() (check, groups bool) {
	in := m.in
	// A rollout engine's GPUs interleave inside its block of TP x stride
	// GPUs and reach from its first to its last GPU, so with TP >= 2 every
	// block must stay on one node; with TP 1 each engine is one GPU.
	engines := m.N%m.block == 0
	if in.RolloutTP > 1 {
		engines = m.cl.fits(0, m.N, m.block, true)
	}
	check = m.tpCompat && in.ActorTP <= m.N && in.RolloutTP <= m.N &&
		m.N%(in.ActorTP*in.ActorCP*in.ActorPP) == 0 && engines
	groups = m.cl.fits(0, m.N, m.uA, false)
	return check, groups
}

// splitOK is the layout filter for a split: rollout on [0, gr), inference
// on the next gi, actor on the rest.
func (m *rmodel) splitOK(gr, gi, ga int) (check, groups bool) {
	in := m.in
	check = m.cl.fits(0, gr, m.uR, true) && ga%(in.ActorTP*in.ActorCP*in.ActorPP) == 0 && ga >= in.ActorTP
	groups = m.cl.fits(gr+gi, ga, m.uA, false)
	if gi > 0 {
		check = check && gi >= in.InferenceTP
		groups = groups && m.cl.fits(gr, gi, m.uI, false)
	}
	return check, groups
}

// splitCost is §1.4's pipelined total for per-group costs t.
func (m *rmodel) splitCost(ts ...float64) float64 {
	sum, mx := 0.0, 0.0
	for _, t := range ts {
		if math.IsInf(t, 1) {
			return inf
		}
		sum += t
		mx = max(mx, t)
	}
	return sum + (m.R-1)*mx
}

// search fills top with the best candidates that pass the layout filter,
// enumerating every split with O(1) work each. It returns how many
// layouts had a cost and how many of those the filter kept.
func (m *rmodel) search(top *topK) (costed, kept int) {
	N := m.N
	if c := m.collocatedCost(); !math.IsInf(c, 1) {
		costed++
		if a, b := m.collocatedOK(); m.unfiltered || a && b {
			kept++
			top.push(cand{cost: c, colloc: true})
		}
	}
	reachR := m.cl.reachOf(m.uR, true)
	reachA := m.cl.reachOf(m.uA, false)
	atp := m.in.ActorTP * m.in.ActorCP * m.in.ActorPP
	actorOK := func(start, ga int) bool {
		return ga%m.uA == 0 && ga%atp == 0 && ga >= m.in.ActorTP && reachA[start] >= ga
	}
	if !m.in.Recompute {
		for gr := 1; gr < N; gr++ {
			tr, ta := m.roll[gr], m.actor[N-gr]
			if math.IsInf(tr, 1) || math.IsInf(ta, 1) {
				continue
			}
			costed++
			if !m.unfiltered && (gr%m.uR != 0 || reachR[0] < gr || !actorOK(gr, N-gr)) {
				continue
			}
			kept++
			top.push(cand{cost: m.splitCost(tr, ta), sizes: [3]int{gr, 0, N - gr}})
		}
		return costed, kept
	}
	reachI := m.cl.reachOf(m.uI, false)
	var validI []int
	for g := 1; g <= N; g++ {
		if !math.IsInf(m.infer[g], 1) {
			validI = append(validI, g)
		}
	}
	itp := m.in.InferenceTP
	R1 := m.R - 1
	for gr := 1; gr <= N-2; gr++ {
		tr := m.roll[gr]
		if math.IsInf(tr, 1) {
			continue
		}
		rOK := gr%m.uR == 0 && reachR[0] >= gr
		for _, gi := range validI {
			ga := N - gr - gi
			if ga < 1 {
				break
			}
			ta := m.actor[ga]
			if math.IsInf(ta, 1) {
				continue
			}
			costed++
			if !m.unfiltered && (!rOK || gi%m.uI != 0 || gi < itp || reachI[gr] < gi || !actorOK(gr+gi, ga)) {
				continue
			}
			kept++
			ti := m.infer[gi]
			cost := tr + ti + ta + R1*max(tr, ti, ta)
			if top.full() && cost > top.list[len(top.list)-1].cost {
				continue
			}
			top.push(cand{cost: cost, sizes: [3]int{gr, gi, ga}})
		}
	}
	return costed, kept
}

// stageCosts are the per-group costs of a candidate's stages, in
// placement order, with their names.
func (m *rmodel) stageCosts(c cand) ([]string, []float64) {
	if c.colloc {
		if m.in.Recompute {
			return []string{"rollout", "inference", "actor"}, []float64{m.roll[m.N], m.infer[m.N], m.actor[m.N]}
		}
		return []string{"rollout", "actor"}, []float64{m.roll[m.N], m.actor[m.N]}
	}
	if m.in.Recompute {
		return []string{"rollout", "inference", "actor"}, []float64{m.roll[c.sizes[0]], m.infer[c.sizes[1]], m.actor[c.sizes[2]]}
	}
	return []string{"rollout", "actor"}, []float64{m.roll[c.sizes[0]], m.actor[c.sizes[2]]}
}
