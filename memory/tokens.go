package memory

import (
	"fmt"
	"math"
	"strconv"

	"github.com/rlsolve/rlsolve/model"
)

// The tokens of one micro-batch. A token cap (slime --max-tokens-per-gpu,
// RLinf runner.max_tokens_per_mbs) packs samples up to the cap, but a
// sample longer than the cap forms a micro-batch of its own (slime's
// dynamic batching never splits a sample): the micro-batch is bounded by
// the longest sample the run can produce, not by the cap. slime#1951's
// "Tried to allocate 58.15 GiB" is the fp32 logits of a ~205k-token
// micro-batch under a cap of 9,216.

// sampleBound is the longest sample the run can produce and which bound
// applies; open is true when nothing in the input bounds it.
type sampleBound struct {
	tokens  int
	why     string
	open    bool
	drivers Drivers
}

// longestSample: the sequence length (RLinf); for multi-turn generation
// the context cap, since the response cap bounds one turn only; else the
// prompt and response caps; failing those, for single-turn generation, the
// model's context (max_position_embeddings: the engine refuses longer
// requests).
func (in Input) longestSample() sampleBound {
	b := in.Settings.Batch
	tok := func(v int) int { return min(max(v, 0), maxTokens) }
	switch {
	case b.SeqLength.Value > 0:
		return sampleBound{tokens: tok(b.SeqLength.Value), why: "the sequence length " + b.SeqLength.Key,
			drivers: Drivers{intDriver(RoleSeqLength, b.SeqLength)}}
	case b.MultiTurn.Value && b.MaxContextLength.Value > 0:
		return sampleBound{tokens: tok(b.MaxContextLength.Value), why: "the multi-turn context cap " + b.MaxContextLength.Key,
			drivers: Drivers{intDriver(RoleSeqLength, b.MaxContextLength)}}
	case !b.MultiTurn.Value && !b.PromptUnbounded:
		lb := sampleBound{tokens: tok(b.MaxPromptLength.Value) + tok(b.MaxResponseLength.Value),
			why:     fmt.Sprintf("prompt %s + response %s", b.MaxPromptLength.Key, b.MaxResponseLength.Key),
			drivers: Drivers{intDriver(RoleSeqLength, b.MaxPromptLength), intDriver(RoleSeqLength, b.MaxResponseLength)}}
		if c := tok(b.MaxContextLength.Value); c > 0 && c < lb.tokens {
			// The engine stops a sample at the context cap.
			lb = sampleBound{tokens: c, why: "the context cap " + b.MaxContextLength.Key, drivers: Drivers{intDriver(RoleSeqLength, b.MaxContextLength)}}
		}
		return lb
	case !b.MultiTurn.Value && in.Settings.Rollout.ContextLength.Value > 0:
		c := in.Settings.Rollout.ContextLength
		return sampleBound{tokens: tok(c.Value), why: "the engine's context " + c.Key, drivers: Drivers{intDriver(RoleSeqLength, c)}}
	case !b.MultiTurn.Value && in.Arch.MaxPositions > 0:
		// One request: the engine refuses a prompt and response longer than
		// its context. A multi-turn trajectory is assembled by the custom
		// function outside any one request (slime#1951's ~205k tokens on a
		// model of 40,960 positions): only a context cap bounds it.
		return sampleBound{tokens: tok(in.Arch.MaxPositions), why: "the model's context (max_position_embeddings)"}
	}
	why := "no prompt cap (--rollout-max-prompt-len, --rollout-max-context-len) and no model context"
	if b.MultiTurn.Value {
		why = "multi-turn generation (" + b.MultiTurn.Key + ") without --rollout-max-context-len"
	}
	return sampleBound{tokens: tok(b.MaxPromptLength.Value) + tok(b.MaxResponseLength.Value), why: why, open: true}
}

// packed is a micro-batch packed up to a token cap: the cap, or the
// longest sample when that is longer.
func (in Input) packed(capTokens model.IntFact, ds Drivers) shape {
	lb := in.longestSample()
	sh := shape{seq: capTokens.Value, mbs: 1, drivers: ds, open: lb.open, openWhy: lb.why}
	if !lb.open && lb.tokens > capTokens.Value {
		sh.seq = lb.tokens
		sh.bound = fmt.Sprintf(" (the longest sample, %s, over the cap %s %d)", lb.why, capTokens.Key, capTokens.Value)
		sh.drivers = append(sh.drivers, lb.drivers...)
	}
	return sh
}

// fixed is a micro-batch of mbs samples, each up to the longest sample.
func (in Input) fixed(mbs model.IntFact, role Role) shape {
	lb := in.longestSample()
	sh := shape{seq: lb.tokens, mbs: max(mbs.Value, 1), drivers: append(lb.drivers, intDriver(role, mbs)), open: lb.open, openWhy: lb.why}
	if !lb.open {
		sh.bound = " (" + lb.why + ")"
	}
	return sh
}

// OpenTokens is a phase whose micro-batch nothing bounds: the tokens it is
// estimated at and what each further token costs (activations and logits,
// linear in the tokens).
type OpenTokens struct {
	Tokens   int64
	PerToken float64
	Why      string
	Drivers  Drivers
	// CapKey is the key that caps a whole sample ("" when the framework
	// has none to propose).
	CapKey string
}

// openTokens records a phase's unbounded micro-batch.
func (in Input) openTokens(w *Worker, p Phase, sh shape, act, spike Part) {
	if !sh.open || sh.tokens() <= 0 {
		return
	}
	o := &OpenTokens{Tokens: sh.tokens(), PerToken: float64(act.Bytes+spike.Bytes) / float64(sh.tokens()),
		Why: sh.openWhy, Drivers: sh.drivers}
	if in.Settings.Framework == "slime" {
		o.CapKey = "--rollout-max-context-len"
	}
	w.Open[p] = o
}

// checkOpenTokens: a micro-batch nothing bounds runs out of memory at
// some token count; the warning names the smallest over the phases.
func checkOpenTokens(r GPUReport) []Finding {
	var best *Finding
	bestN := int64(0)
	for _, w := range r.workers {
		for p, o := range w.Open {
			if o == nil || !(o.PerToken > 0) {
				continue
			}
			ph := r.Phase(Phase(p))
			free := float64(r.CapacityBytes - ph.Bytes - ph.SpikeBytes)
			if free <= 0 {
				continue // out of memory at the cap already: the peak and logits warnings say so
			}
			n := o.Tokens + int64(math.Ceil(free/o.PerToken))
			if best != nil && bestN <= n {
				continue
			}
			f := openFinding(r, w.Component, Phase(p), o, n)
			best, bestN = &f, n
		}
	}
	if best == nil {
		return nil
	}
	return []Finding{*best}
}

func openFinding(r GPUReport, component string, p Phase, o *OpenTokens, n int64) Finding {
	var fx []FixCandidate
	if o.CapKey != "" {
		d := Driver{Role: RoleSeqLength, Key: o.CapKey, Value: "0"}
		// Three quarters of the length that runs out, in whole KiB tokens:
		// the sample then fits with room for the headroom.
		limit := strconv.FormatInt(max(n*3/4/1024*1024, 1024), 10)
		fx = append(fx, setFix(d, limit, "cap every sample (prompt, turns and response) below the length that runs out"))
	}
	for _, d := range o.Drivers.ByRole(RoleTP) {
		fx = append(fx, scaleFix(d, 2, "split the logits over more GPUs"))
	}
	return Finding{Code: model.WarnMemoryLogits, Severity: model.SeverityWarning, Phase: p, Component: component,
		Summary: fmt.Sprintf("nothing bounds the %s's micro-batch (%s): a sample of %d tokens forms a micro-batch of its own "+
			"and runs out of memory in the %s phase", component, o.Why, n, p),
		Why: "A token cap packs samples up to it but never splits one; a longer sample is a micro-batch of its own, " +
			"and its activations and fp32 logits copies grow with it (slime#1951: 58.15 GiB of logits at ~205k tokens " +
			"under a cap of 9,216).",
		Bytes: int64(float64(n) * o.PerToken), Capacity: r.CapacityBytes, Drivers: o.Drivers, Fixes: fx}
}
