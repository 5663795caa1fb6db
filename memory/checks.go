package memory

import (
	"fmt"
	"math"
	"strconv"

	"github.com/rlsolve/rlsolve/model"
)

// checkState: the model state alone (weights, gradients, optimizer: exact
// bookkeeping, no activation estimate) of some phase exceeds the GPU.
func checkState(r GPUReport) []Finding {
	worst, at := int64(0), PhaseInit
	for _, p := range r.Phases {
		if s := p.Parts.State(); s > worst {
			worst, at = s, p.Phase
		}
	}
	if worst <= r.CapacityBytes {
		return nil
	}
	ds := r.phaseDrivers(at, RoleModel, RoleTP, RolePP, RoleDistOpt, RoleOffload, RoleOffloadWts, RoleOptOffload, RoleSharding)
	return []Finding{{Code: model.CodeMemoryState, Severity: model.SeverityError, Phase: at, Component: r.Phase(at).Parts.largest(true),
		Summary: fmt.Sprintf("weights, gradients and optimizer state need %s in the %s phase, more than the GPU's %s",
			gib(worst), at, gib(r.CapacityBytes)),
		Why: "Model state is exact bookkeeping (Megatron's compute_weight_and_optimizer_memory, FSDP's shards), " +
			"before any activation: the run cannot start its " + at.String() + " phase on this GPU.",
		Bytes: worst, Capacity: r.CapacityBytes, Drivers: ds, Fixes: stateFixes(ds, at, scaleFor(worst, r.CapacityBytes))}}
}

// scaleFor is the power of two that brings need under capacity when need
// shrinks in proportion (as sharded state does with TP).
func scaleFor(need, capacity int64) int {
	k := 2
	for k < 1024 && float64(need)/float64(k) > float64(capacity) {
		k *= 2
	}
	return k
}

// stateFixes: more tensor parallelism (by k), the distributed optimizer,
// offload.
func stateFixes(ds Drivers, at Phase, k int) []FixCandidate {
	var fx []FixCandidate
	for _, d := range ds.ByRole(RoleTP) {
		fx = append(fx, scaleFix(d, k, "shard the model over more GPUs"))
	}
	for _, d := range ds {
		switch {
		case d.Role == RoleDistOpt && d.Value == "false":
			fx = append(fx, setFix(d, "true", "shard the optimizer state over data parallelism"))
		case d.Role == RoleOffload && d.Value == "false" && at != PhaseTrain,
			d.Role == RoleOffloadWts && d.Value == "false" && at != PhaseTrain && at != PhaseWeightSync:
			fx = append(fx, setFix(d, "true", "move this state to the CPU outside training"))
		case d.Role == RoleOptOffload && d.Value == "false":
			fx = append(fx, setFix(d, "true", "keep the optimizer state on the CPU"))
		case d.Role == RoleSharding && d.Value == "no_shard":
			fx = append(fx, setFix(d, "full_shard", "shard parameters, gradients and optimizer over the actor's GPUs"))
		case d.Role == RolePrecision && precisionBytes(model.StringFact{Value: d.Value}, 4) == 4:
			fx = append(fx, setFix(d, "bf16", "keep the parameters in bf16, half of fp32"))
		}
	}
	return fx
}

// checkEngines: SGLang's pool empty, vLLM refusing to start, a pool
// smaller than one sequence.
func checkEngines(r GPUReport) []Finding {
	var out []Finding
	for _, e := range r.Engines {
		ds := r.engineDrivers(e.Component)
		switch {
		case e.StartFails && e.Kind == "vllm":
			v := math.Floor(float64(e.FreeAtStart)/float64(r.CapacityBytes)*100) / 100
			out = append(out, Finding{Code: model.CodeMemoryVLLMInit, Severity: model.SeverityError, Phase: PhaseInit, Component: e.Component,
				Summary: fmt.Sprintf("vLLM reserves %s (gpu_memory_utilization %g of %s) but finds only %s free when it starts",
					gib(e.Budget), e.Fraction, gib(r.CapacityBytes), gib(e.FreeAtStart)),
				Why: "vLLM takes its fraction of the GPU's total, not of free memory, and refuses to start when less " +
					"is free (\"Free memory on device ... is less than desired GPU memory utilization\"): what another " +
					"process holds when it starts must be released first.",
				Bytes: e.Budget, Capacity: e.FreeAtStart, Drivers: ds, Fixes: fractionFixes(ds, v, "lower the fraction to what is free")})
		case e.StartFails:
			need := (fractionWeights(r, e) + float64(e.SeqTokens)*float64(cellOf(r, e))) / float64(max(e.FreeAtStart, 1))
			out = append(out, Finding{Code: model.CodeMemoryPool, Severity: model.SeverityError, Phase: PhaseInit, Component: e.Component,
				Summary: fmt.Sprintf("SGLang's KV pool is empty: mem_fraction_static %g of %s free leaves nothing after %s of weights",
					e.Fraction, gib(e.FreeAtStart), gib(clampBytes(fractionWeights(r, e)))),
				Why: "SGLang keeps mem_fraction_static of the memory free at its start for weights and KV cache; when " +
					"the weights take it all it stops with \"Not enough memory. Please try to increase --mem-fraction-static\".",
				Bytes: clampBytes(fractionWeights(r, e)), Capacity: e.Budget, Drivers: ds, Fixes: append(
					fractionFixes(ds, math.Ceil(need*100)/100, "raise the fraction"), engineTPFix(ds)...)})
		case e.SeqTokens > 0 && e.Tokens < e.SeqTokens:
			need := float64(e.Budget+(e.SeqTokens-e.Tokens)*cellOf(r, e)) / float64(max(e.FreeAtStart, 1))
			out = append(out, Finding{Code: model.CodeMemoryKVSeq, Severity: model.SeverityError, Phase: PhaseRollout, Component: e.Component,
				Summary: fmt.Sprintf("%s's KV pool holds %d tokens, less than one sequence of %d", e.Kind, e.Tokens, e.SeqTokens),
				Why:     "A request longer than the whole KV cache can never be scheduled; generation stalls or is cut.",
				Bytes:   e.KVBytes, Capacity: e.KVBytes, Drivers: ds,
				Fixes: append(fractionFixes(ds, math.Ceil(need*100)/100, "raise the fraction"), engineTPFix(ds)...)})
		}
	}
	return out
}

func (r GPUReport) engineDrivers(component string) Drivers {
	for _, w := range r.workers {
		if w.Component == component {
			return w.Drivers
		}
	}
	return nil
}

func (r GPUReport) engine(component string) *Engine {
	for _, w := range r.workers {
		if w.Component == component && w.Engine != nil {
			return w.Engine
		}
	}
	return nil
}

func fractionWeights(r GPUReport, e EngineState) float64 {
	if en := r.engine(e.Component); en != nil {
		return en.WeightsBytes
	}
	return 0
}

func cellOf(r GPUReport, e EngineState) int64 {
	if en := r.engine(e.Component); en != nil {
		return en.CellBytes
	}
	return 0
}

// fractionFixes sets the fraction to v when v is a usable fraction.
func fractionFixes(ds Drivers, v float64, why string) []FixCandidate {
	d, ok := ds.First(RoleFraction)
	if !ok || !(v > 0 && v < 0.96) {
		return nil
	}
	return []FixCandidate{setFix(d, strconv.FormatFloat(v, 'f', -1, 64), why)}
}

func engineTPFix(ds Drivers) []FixCandidate {
	if d, ok := ds.First(RoleEngineTP); ok {
		return []FixCandidate{scaleFix(d, 2, "split the engine's weights and KV heads over more GPUs")}
	}
	return nil
}

// checkFractions: engines whose budgets are resident together on one GPU
// with fractions summing over 1.
func checkFractions(r GPUReport) []Finding {
	if len(r.Engines) < 2 {
		return nil
	}
	for _, p := range r.Phases {
		sum, n, last := 0.0, 0, ""
		var ds Drivers
		for _, e := range r.Engines {
			if p.Parts.has(e.Component, KindBudget) {
				sum += e.Fraction
				n++
				last = e.Component
				ds = append(ds, r.engineDrivers(e.Component).ByRole(RoleFraction)...)
			}
		}
		if n >= 2 && sum > 1 {
			return []Finding{{Code: model.CodeMemoryFractions, Severity: model.SeverityError, Phase: p.Phase, Component: last,
				Summary: fmt.Sprintf("%d engines on one GPU reserve fractions summing to %g in the %s phase", n, sum, p.Phase),
				Why:     "Each engine reserves its fraction at start; together they ask for more than the GPU has.",
				Bytes:   p.Bytes, Capacity: r.CapacityBytes, Drivers: ds}}
		}
	}
	return nil
}

// largest is the component holding the most of the usage (of its model
// state only, with state set); the first such in order.
func (u Usage) largest(state bool) string {
	by := map[string]int64{}
	best := ""
	for _, p := range u {
		if !state || p.Kind.IsState() {
			by[p.Component] += p.Bytes
		}
	}
	for _, p := range u {
		if n, ok := by[p.Component]; ok && (best == "" || n > by[best]) {
			best = p.Component
		}
	}
	return best
}

// has reports whether a component has a part of kind k.
func (u Usage) has(component string, k Kind) bool {
	for _, p := range u {
		if p.Component == component && p.Kind == k && p.Bytes > 0 {
			return true
		}
	}
	return false
}

// checkHeadroom: the estimated peak over the GPU, or thin headroom, at
// the tightest phase; and the largest logits spike beyond its phase's
// headroom.
func checkHeadroom(r GPUReport, prof Profile) []Finding {
	limit := max(prof.HeadroomMinBytes, int64(prof.HeadroomFraction*float64(r.CapacityBytes)))
	var out []Finding
	tight, over := r.Phases[0], 0
	for _, p := range r.Phases {
		if p.Bytes > tight.Bytes {
			tight = p
		}
		if p.Bytes > r.CapacityBytes {
			over++
		}
	}
	head := tight.Headroom(r.CapacityBytes)
	ds := r.phaseDrivers(tight.Phase)
	fixes := append(r.lowerFractions(tight, limit-head), peakFixes(ds)...)
	switch {
	case head < 0:
		also := ""
		if over > 1 {
			also = fmt.Sprintf("; %d phases are over", over)
		}
		out = append(out, Finding{Code: model.WarnMemoryPeak, Severity: model.SeverityWarning, Phase: tight.Phase, Component: tight.Parts.largest(false),
			Summary: fmt.Sprintf("the %s phase is estimated at %s, over the GPU's %s (%s)%s", tight.Phase, gib(tight.Bytes),
				gib(r.CapacityBytes), topParts(tight.Parts), also),
			Why:   "Activations and engine budgets are estimates (spec/memory.md §1); by them this phase runs out of memory.",
			Bytes: tight.Bytes, Capacity: r.CapacityBytes, Drivers: ds, Fixes: fixes})
	case head < limit:
		out = append(out, Finding{Code: model.WarnMemoryHeadroom, Severity: model.SeverityWarning, Phase: tight.Phase, Component: tight.Parts.largest(false),
			Summary: fmt.Sprintf("the %s phase leaves %s of the GPU's %s free, less than %s", tight.Phase, gib(head), gib(r.CapacityBytes), gib(limit)),
			Why:     "Allocator fragmentation and unmodelled buffers take a few GiB; below the threshold an OOM is likely.",
			Bytes:   tight.Bytes, Capacity: r.CapacityBytes, Drivers: ds, Fixes: fixes})
	}
	var worst *PhaseUsage
	for i, p := range r.Phases {
		if p.Spike != nil && p.Bytes <= r.CapacityBytes && p.SpikeBytes > p.Headroom(r.CapacityBytes) &&
			(worst == nil || p.SpikeBytes-p.Headroom(r.CapacityBytes) > worst.SpikeBytes-worst.Headroom(r.CapacityBytes)) {
			worst = &r.Phases[i]
		}
	}
	if worst != nil {
		out = append(out, spikeFinding(r, *worst, worst.Headroom(r.CapacityBytes)))
	}
	return out
}

// lowerFractions proposes, for each engine whose budget a phase holds,
// the fraction that frees need bytes (a budget is the fraction of the
// free memory at its start for SGLang, of the total for vLLM), rounded
// down to a hundredth.
func (r GPUReport) lowerFractions(p PhaseUsage, need int64) []FixCandidate {
	var fx []FixCandidate
	for _, e := range r.Engines {
		base := e.FreeAtStart
		if e.Kind == "vllm" {
			base = r.CapacityBytes
		}
		if base <= 0 || need <= 0 || !p.Parts.has(e.Component, KindBudget) {
			continue
		}
		v := math.Floor((e.Fraction-float64(need)/float64(base))*100) / 100
		fx = append(fx, fractionFixes(r.engineDrivers(e.Component), v, "lower the engine's fraction to leave room for the rest")...)
	}
	return fx
}

// peakFixes: smaller micro-batches (a half, a quarter, an eighth: the
// rules layer keeps the first that re-checking confirms), recompute, more
// TP, offload.
func peakFixes(ds Drivers) []FixCandidate {
	var fx []FixCandidate
	for _, d := range ds {
		switch d.Role {
		case RoleMicroBatch, RoleMaxTokens, RoleLogprobBatch:
			v, err := strconv.Atoi(d.Value)
			for k := 2; err == nil && k <= 8 && v/k >= 1; k *= 2 {
				fx = append(fx, setFix(d, strconv.Itoa(v/k), "fewer tokens per micro-batch"))
			}
		case RoleRecompute:
			if d.Value != "full" {
				fx = append(fx, setFix(d, "full", "recompute activations in the backward pass"))
			}
		}
	}
	fx = append(fx, stateFixes(ds, PhaseRollout, 2)...)
	// Last: shorter samples, for a micro-batch that is one long sample.
	for _, d := range ds.ByRole(RoleSeqLength) {
		if v, err := strconv.Atoi(d.Value); err == nil && v >= 2 {
			fx = append(fx, setFix(d, strconv.Itoa(v/2), "shorter samples"))
		}
	}
	return fx
}

// spikeFinding: the worst-case logits of a micro-batch do not fit.
func spikeFinding(r GPUReport, p PhaseUsage, head int64) Finding {
	sp := p.Spike
	var ds Drivers
	for _, w := range r.workers {
		if w.Component == sp.Component {
			for _, d := range w.Drivers {
				if d.Role == RoleMaxTokens || d.Role == RoleMicroBatch || d.Role == RoleLogprobBatch || d.Role == RoleTP || d.Role == RoleCP || d.Role == RoleSeqLength {
					ds = append(ds, d)
				}
			}
		}
	}
	var fx []FixCandidate
	scale := float64(max(head, 0)) / float64(sp.Bytes)
	for _, d := range ds {
		v, err := strconv.Atoi(d.Value)
		switch {
		case err != nil:
		case (d.Role == RoleMaxTokens || d.Role == RoleMicroBatch || d.Role == RoleLogprobBatch) && v > 1:
			if n := int(math.Floor(float64(v) * scale)); n >= 1 {
				fx = append(fx, setFix(d, strconv.Itoa(n), "fewer tokens per micro-batch"))
			}
		case d.Role == RoleSeqLength && v > 1:
			// A sample longer than the cap is a micro-batch of its own:
			// only shorter samples make it smaller.
			if n := int(math.Floor(float64(v) * scale)); n >= 1 {
				fx = append(fx, setFix(d, strconv.Itoa(n), "shorter samples"))
			}
		case d.Role == RoleTP || d.Role == RoleCP:
			fx = append(fx, scaleFix(d, 2, "split the logits over more GPUs"))
		}
	}
	return Finding{Code: model.WarnMemoryLogits, Severity: model.SeverityWarning, Phase: p.Phase, Component: sp.Component,
		Summary: fmt.Sprintf("the worst-case logits of one %s micro-batch of %d tokens (%s) exceed the %s free in the %s phase",
			sp.Component, sp.tokens, gib(sp.Bytes), gib(max(head, 0)), p.Phase),
		Why: "Log-probs, entropy and KL materialise fp32 logits over the vocabulary, often copied two or three " +
			"times (slime #1767: 61 GiB at 108k packed tokens next to SGLang's 48.8 GiB).",
		Bytes: sp.Bytes, Capacity: max(head, 0), Drivers: ds, Fixes: fx}
}

// setFix sets a driver's key to v.
func setFix(d Driver, v, why string) FixCandidate {
	return FixCandidate{Role: d.Role, Key: d.Key, Span: d.Span, Set: d.Set, Value: v,
		Message: fmt.Sprintf("%s: set %s to %s", why, d.Key, v)}
}

// scaleFix multiplies an integer driver by k.
func scaleFix(d Driver, k int, why string) FixCandidate {
	v, _ := strconv.Atoi(d.Value)
	return setFix(d, strconv.Itoa(max(v, 1)*k), why)
}
