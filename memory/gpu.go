package memory

import (
	"sort"
	"strings"
)

// GPU is one device and the workers placed on it.
type GPU struct {
	// Label names the GPU for messages and the plan ("node 0 GPU 3").
	Label         string
	CapacityBytes int64
	Workers       []Worker
}

// PhaseUsage is a GPU's memory in one phase, with every part's component
// and source.
type PhaseUsage struct {
	Phase Phase `json:"phase"`
	Bytes int64 `json:"bytes"`
	Parts Usage `json:"parts"`
	// SpikeBytes is the largest worst-case logits spike in the phase.
	SpikeBytes int64  `json:"spike_bytes,omitempty"`
	Spike      *Part  `json:"spike,omitempty"`
	Starting   string `json:"starting,omitempty"` // init: the worker whose start is the peak
}

// Headroom is what the phase leaves free.
func (p PhaseUsage) Headroom(capacity int64) int64 { return capacity - p.Bytes }

// GPUReport is one GPU's memory: the plan's `memory` section entry.
type GPUReport struct {
	Label         string        `json:"gpu"`
	CapacityBytes int64         `json:"capacity_bytes"`
	Components    []string      `json:"components"`
	Phases        []PhaseUsage  `json:"phases"`
	PeakBytes     int64         `json:"peak_bytes"`
	PeakPhase     Phase         `json:"peak_phase"`
	Engines       []EngineState `json:"engines,omitempty"`
	Notes         []string      `json:"notes,omitempty"`
	// workers are the resolved workers, in start order, for the checks.
	workers []Worker
}

// Key groups identical GPUs: same capacity and same components.
func (r GPUReport) Key() string {
	var b strings.Builder
	b.WriteString(gib(r.CapacityBytes))
	for _, c := range r.Components {
		b.WriteString("|" + c)
	}
	return b.String()
}

// Aggregate sums, per phase, what the workers on a GPU hold, and takes
// the peak over phases. The init phase is the worst moment of the starts:
// each worker's start with what the workers started before it hold.
// Engines are sized here: SGLang by the memory free when it starts.
func Aggregate(g GPU) GPUReport {
	ws := append([]Worker(nil), g.Workers...)
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].StartOrder < ws[j].StartOrder })
	r := GPUReport{Label: g.Label, CapacityBytes: g.CapacityBytes}
	var before Usage
	init := PhaseUsage{Phase: PhaseInit}
	for i := range ws {
		w := &ws[i]
		if w.Engine != nil {
			st, phases, after := w.Engine.resolve(w.Component, g.CapacityBytes, before.Total())
			w.Phases, w.AfterStart = phases, after
			r.Engines = append(r.Engines, st)
		}
		at := join(before, w.Phases[PhaseInit].with(w.Component))
		if t := at.Total(); t > init.Bytes || init.Parts == nil {
			init = PhaseUsage{Phase: PhaseInit, Bytes: t, Parts: at, Starting: w.Component}
		}
		before = join(before, w.AfterStart.with(w.Component))
		r.Components = append(r.Components, w.Component)
		r.Notes = append(r.Notes, w.Notes...)
	}
	r.Phases = append(r.Phases, init)
	for p := PhaseRollout; p < NumPhases; p++ {
		u := PhaseUsage{Phase: p}
		for _, w := range ws {
			u.Parts = append(u.Parts, w.Phases[p].with(w.Component)...)
			if sp := w.Spikes[p]; sp.Bytes > u.SpikeBytes {
				s := sp
				s.Component = w.Component
				u.SpikeBytes, u.Spike = sp.Bytes, &s
			}
		}
		u.Bytes = u.Parts.Total()
		r.Phases = append(r.Phases, u)
	}
	for _, p := range r.Phases {
		if p.Bytes > r.PeakBytes {
			r.PeakBytes, r.PeakPhase = p.Bytes, p.Phase
		}
	}
	r.workers = ws
	return r
}

// Phase returns the usage of one phase.
func (r GPUReport) Phase(p Phase) PhaseUsage {
	for _, u := range r.Phases {
		if u.Phase == p {
			return u
		}
	}
	return PhaseUsage{Phase: p}
}
