package rules

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/memory"
	"github.com/rlsolve/rlsolve/model"
)

// memRule is the memory rule on one input: its facts, how the front end
// places components on GPUs under a presence, and its evaluations.
type memRule struct {
	mem *Memory
	s   *model.MemorySettings
	// reads are the rule's facts: the model, the memory settings, and the
	// placement facts the front end reads.
	reads []int
	// model is the fact that names the architecture (the model path, or
	// model_type), -1 when none does (--model-config): without it there
	// is nothing to check.
	model int
	// settings are the memory settings that are facts, by key.
	settings []settingFact
	spanFact map[model.Span]int
	// place is the front end's placement under a presence; ok is false
	// when it does not hold (its own rules say why).
	place func(p Present, s *model.MemorySettings) (*gpuLoad, bool)
	// anchor and capacity locate what no setting does: the input, and
	// the inventory's GPUs.
	anchor   model.Span
	capacity []model.Label
	// rebuild is the rule set of the input with key set to value (written
	// at at when the key is in the input): a fix to verify.
	rebuild func(key, value string, at model.Span) (*Set, bool)
	// editText is the text that replaces a setting's span to give it a
	// value (nil: the value itself); false when no edit can.
	editText func(key, value string) (string, bool)
	// under is the settings under a presence (nil: the input's, with
	// every absent setting back to its default).
	under func(p Present) *model.MemorySettings
	cache map[string]*memEval
}

type settingFact struct {
	fact int
	key  string
}

// memEval is one evaluation: the GPUs grouped by layout, and the
// findings; nil groups when nothing is checked.
type memEval struct {
	groups   []memory.Group
	findings []memory.Finding
}

// newMemRule gives the located memory settings facts (reusing a fact at
// the same position, such as a TP size the placement rules read) and
// makes the rule read them with the placement facts.
func newMemRule(set *Set, mem *Memory, s *model.MemorySettings, placement []int) *memRule {
	m := &memRule{mem: mem, s: s, model: -1, spanFact: map[model.Span]int{}, cache: map[string]*memEval{}}
	for i, f := range set.Facts {
		if _, dup := m.spanFact[f.Span]; !dup && f.Span.Known() {
			m.spanFact[f.Span] = i
		}
	}
	for _, st := range s.Located() {
		fid, ok := m.spanFact[st.Span]
		if !ok {
			fid = set.add(Fact{Kind: FactSetting, Span: st.Span, Name: st.Key, What: settingText(st.Key, st.Value)})
			m.spanFact[st.Span] = fid
		}
		m.settings = append(m.settings, settingFact{fact: fid, key: st.Key})
		if !slices.Contains(m.reads, fid) {
			m.reads = append(m.reads, fid)
		}
		if st.Span == mem.Source.Span {
			m.model = fid
		}
	}
	for _, f := range placement {
		if !slices.Contains(m.reads, f) {
			m.reads = append(m.reads, f)
		}
	}
	set.memory = m
	return m
}

// settingText is a setting as a label: `key: value`, or `--flag value`.
func settingText(key, value string) string {
	if strings.HasPrefix(key, "--") {
		return key + " " + value
	}
	return key + ": " + value
}

// eval evaluates the rule under p, once per presence of its facts; nil
// when the placement does not hold.
func (m *memRule) eval(p Present) *memEval {
	key := make([]byte, len(m.reads))
	for i, f := range m.reads {
		key[i] = '0'
		if p(f) {
			key[i] = '1'
		}
	}
	if ev, ok := m.cache[string(key)]; ok {
		return ev
	}
	ev := m.compute(p)
	m.cache[string(key)] = ev
	return ev
}

func (m *memRule) compute(p Present) *memEval {
	if m.model >= 0 && !p(m.model) {
		return &memEval{} // no model: nothing to check
	}
	s := m.settingsUnder(p)
	load, ok := m.place(p, s)
	if !ok {
		return nil
	}
	return m.evaluate(s, load)
}

// settingsUnder is the settings with each absent setting at its default.
func (m *memRule) settingsUnder(p Present) *model.MemorySettings {
	if m.under != nil {
		return m.under(p)
	}
	s := m.s
	for _, sf := range m.settings {
		if !p(sf.fact) {
			if s == m.s {
				s = m.s.Clone()
			}
			s.Unset(sf.key)
		}
	}
	return s
}

// evaluate computes each GPU layout's memory and judges it.
func (m *memRule) evaluate(s *model.MemorySettings, load *gpuLoad) *memEval {
	in := memory.Input{Settings: s, Arch: m.mem.Arch, Source: m.mem.Source, Profile: m.mem.Profile, Layout: load.layout()}
	workers := memory.Workers(in)
	ev := &memEval{groups: []memory.Group{}}
	var reports []memory.GPUReport
	for _, g := range load.groups() {
		names := make([]string, len(g.comps))
		for i, c := range g.comps {
			names[i] = load.names[c]
		}
		r := memory.Aggregate(m.mem.gpu(workers, names, memory.DevicesText(g.devices), g.capacity))
		reports = append(reports, r)
		ev.groups = append(ev.groups, memory.Group{Devices: g.devices, GPUReport: r})
	}
	ev.findings = memory.Check(reports, m.mem.Profile)
	return ev
}

// gpuLoad is what a placement puts on each GPU with a known capacity.
type gpuLoad struct {
	// names are the components by id, in the order first placed.
	names []string
	ids   map[string]int
	// gpus[g] lists the component ids of GPU g's processes (one per
	// process, ascending); node, local and capacity locate it.
	gpus     [][]int
	node     []int
	local    []int
	capacity []int64
	// actorLogprob: the actor computes log-probs itself.
	actorLogprob bool
}

// newGPULoad numbers the GPUs of n nodes (node(i)'s GPUs, in order; id
// names the j-th on its node) and sizes them by the node's memory_gib.
func newGPULoad(n int, node func(i int) *model.Node, id func(i, j int) int) *gpuLoad {
	l := &gpuLoad{ids: map[string]int{}}
	for i := range n {
		nd := node(i)
		for j := 0; j < nd.AccelCount; j++ {
			l.node = append(l.node, nd.Rank)
			l.local = append(l.local, id(i, j))
			l.capacity = append(l.capacity, int64(nd.MemoryGiB*memory.GiB))
		}
	}
	// Each GPU's list starts in one shared array (room for a few
	// processes each), so that placing them allocates nothing.
	const room = 4
	backing := make([]int, room*len(l.node))
	l.gpus = make([][]int, len(l.node))
	for g := range l.gpus {
		l.gpus[g] = backing[g*room : g*room : g*room+room]
	}
	return l
}

// put places one process of component name on GPU g.
func (l *gpuLoad) put(name string, g int) {
	id, ok := l.ids[name]
	if !ok {
		id = len(l.names)
		l.ids[name] = id
		l.names = append(l.names, name)
	}
	l.gpus[g] = append(l.gpus[g], id)
}

// finish orders each GPU's components, as layout and groups read them.
func (l *gpuLoad) finish() {
	for _, cs := range l.gpus {
		sort.Ints(cs)
	}
}

// layout is what the memory model needs of the placement: each modelled
// component's GPU count, and whether actor and rollout share GPUs.
func (l *gpuLoad) layout() memory.Layout {
	count := map[string]int{}
	lay := memory.Layout{ActorLogprob: l.actorLogprob}
	actor, rollout := l.ids["actor"], l.ids["rollout"]
	_, hasActor := l.ids["actor"]
	_, hasRollout := l.ids["rollout"]
	for g, cs := range l.gpus {
		last := -1
		for _, c := range cs {
			if c != last {
				count[l.names[c]]++
				last = c
			}
		}
		if hasActor && hasRollout && slices.Contains(cs, actor) && slices.Contains(cs, rollout) {
			lay.Collocated = true
		}
		if hasActor && lay.GPUsPerNode == 0 && slices.Contains(cs, actor) {
			lay.GPUsPerNode = l.perNode(g)
		}
	}
	lay.ActorGPUs, lay.RolloutGPUs, lay.InferenceGPUs = count["actor"], count["rollout"], count["inference"]
	if lay.GPUsPerNode == 0 {
		lay.GPUsPerNode = 8
	}
	return lay
}

// perNode is how many GPUs GPU g's node has.
func (l *gpuLoad) perNode(g int) int {
	n := 0
	for i := range l.node {
		if l.node[i] == l.node[g] {
			n++
		}
	}
	return n
}

// loadGroup is the GPUs with one layout.
type loadGroup struct {
	devices  []memory.Devices
	capacity int64
	comps    []int
}

// groups gathers the GPUs with a capacity and something placed by
// layout (capacity and components), in the order of their first GPU.
func (l *gpuLoad) groups() []loadGroup {
	var out []loadGroup
	index := map[string]int{}
	var key []byte
	for g, cs := range l.gpus {
		if len(cs) == 0 || l.capacity[g] <= 0 {
			continue
		}
		key = strconv.AppendInt(key[:0], l.capacity[g], 10)
		for _, c := range cs {
			key = strconv.AppendInt(append(key, ','), int64(c), 10)
		}
		i, ok := index[string(key)] // no allocation for a lookup
		if !ok {
			i = len(out)
			index[string(key)] = i
			out = append(out, loadGroup{capacity: l.capacity[g], comps: cs})
		}
		d := &out[i].devices
		if n := len(*d); n > 0 && (*d)[n-1].Node == l.node[g] {
			(*d)[n-1].GPUs = append((*d)[n-1].GPUs, l.local[g])
		} else {
			*d = append(*d, memory.Devices{Node: l.node[g], GPUs: []int{l.local[g]}})
		}
	}
	return out
}
