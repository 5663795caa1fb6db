package render

import "github.com/rlsolve/rlsolve/memory"

// memory writes the plan's `memory` section as encoding/json writes
// DocMemory (memory's JSON tags: fields in order, omitempty ones left out
// when empty).
func (w *walker) memory(m *DocMemory) {
	em := w.em
	em.beginObject()
	w.strField("model", m.Model)
	w.strField("architecture_source", m.ArchitectureSource)
	w.strField("profile", m.Profile)
	em.field("gpus")
	w.array(len(m.GPUs), m.GPUs == nil, func(i int) { w.memoryGroup(&m.GPUs[i]) })
	em.endObject()
}

func (w *walker) memoryGroup(g *memory.Group) {
	em := w.em
	em.beginObject()
	em.field("devices")
	w.array(len(g.Devices), g.Devices == nil, func(i int) {
		em.beginObject()
		w.intField("cluster_node_rank", g.Devices[i].Node)
		em.field("gpus")
		w.ints(g.Devices[i].GPUs)
		em.endObject()
	})
	r := &g.GPUReport
	w.strField("gpu", r.Label)
	w.int64Field("capacity_bytes", r.CapacityBytes)
	em.field("components")
	w.strings(r.Components)
	em.field("phases")
	w.array(len(r.Phases), r.Phases == nil, func(i int) { w.memoryPhase(&r.Phases[i]) })
	w.int64Field("peak_bytes", r.PeakBytes)
	w.strField("peak_phase", r.PeakPhase.String())
	if len(r.Engines) > 0 {
		em.field("engines")
		w.array(len(r.Engines), false, func(i int) { w.engineState(&r.Engines[i]) })
	}
	if len(r.Notes) > 0 {
		em.field("notes")
		w.strings(r.Notes)
	}
	em.endObject()
}

func (w *walker) memoryPhase(p *memory.PhaseUsage) {
	em := w.em
	em.beginObject()
	w.strField("phase", p.Phase.String())
	w.int64Field("bytes", p.Bytes)
	em.field("parts")
	w.array(len(p.Parts), p.Parts == nil, func(i int) { w.memoryPart(&p.Parts[i]) })
	if p.SpikeBytes != 0 {
		w.int64Field("spike_bytes", p.SpikeBytes)
	}
	if p.Spike != nil {
		em.field("spike")
		w.memoryPart(p.Spike)
	}
	w.optStr("starting", p.Starting)
	em.endObject()
}

func (w *walker) memoryPart(p *memory.Part) {
	em := w.em
	em.beginObject()
	w.optStr("component", p.Component)
	w.strField("kind", string(p.Kind))
	w.int64Field("bytes", p.Bytes)
	w.strField("source", p.Source)
	em.endObject()
}

func (w *walker) engineState(e *memory.EngineState) {
	em := w.em
	em.beginObject()
	w.strField("component", e.Component)
	w.strField("kind", e.Kind)
	em.field("fraction")
	w.float(e.Fraction)
	w.int64Field("free_at_start_bytes", e.FreeAtStart)
	w.int64Field("budget_bytes", e.Budget)
	w.int64Field("kv_bytes", e.KVBytes)
	w.int64Field("kv_tokens", e.Tokens)
	w.int64Field("seq_tokens", e.SeqTokens)
	em.field("start_fails")
	em.bool(e.StartFails)
	em.endObject()
}

// int64Field writes a byte count (at most 2^52: memory caps every number).
func (w *walker) int64Field(name string, n int64) {
	w.em.field(name)
	w.em.int(int(n))
}
