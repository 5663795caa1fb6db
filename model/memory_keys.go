package model

import (
	"maps"
	"slices"
	"strconv"
)

// Memory settings by key: the rules layer takes a setting back to its
// default (a fact the solver removes) or sets it (a fix), by the key that
// set it. One key may set several settings (RLinf's
// algorithm.training_batch_size_per_gpu sizes the actor's and the log-prob
// worker's micro-batches): all of them change together.

// Setting is one located memory setting: a key written in the input.
type Setting struct {
	Key   string
	Span  Span
	Value string
}

// settingRefs are pointers to every fact of the settings, in a fixed
// order (*IntFact, *BoolFact, *FloatFact or *StringFact). Engines held in
// OtherEngines are visited through copies written back by each.
func (s *MemorySettings) each(f func(ref any)) {
	trainer := func(t *TrainerSettings) {
		for _, p := range []any{&t.Backend, &t.TP, &t.PP, &t.CP, &t.EP, &t.ETP, &t.VPP, &t.SequenceParallel,
			&t.DistributedOptimizer, &t.RecomputeGranularity, &t.RecomputeMethod, &t.RecomputeNumLayers, &t.Precision,
			&t.MicroBatch, &t.LogprobMicroBatch, &t.OffloadWeight, &t.OffloadGrad, &t.OffloadOptimizer,
			&t.OptimizerCPUOffload, &t.OptimizerOffloadFraction, &t.EnableOffload, &t.FSDPCPUOffload,
			&t.ShardingStrategy, &t.GradientCheckpointing, &t.LoRA, &t.LoRARank, &t.TrainExpertOnly, &t.TransformerImpl, &t.DeepEP} {
			f(p)
		}
	}
	engine := func(e *EngineSettings) {
		for _, p := range []any{&e.ModelPath, &e.Backend, &e.MemFraction, &e.TP, &e.PP, &e.MaxRunningRequests,
			&e.CUDAGraphMaxBS, &e.ChunkedPrefill, &e.EnforceEager, &e.Offload, &e.Precision, &e.Quantization, &e.DeepEP, &e.ContextLength} {
			f(p)
		}
	}
	f(&s.ModelPath)
	f(&s.ModelType)
	trainer(&s.Actor)
	if s.Inference != nil {
		trainer(s.Inference)
	}
	f(&s.Critic)
	engine(&s.Rollout)
	for _, name := range slices.Sorted(maps.Keys(s.OtherEngines)) {
		e := s.OtherEngines[name]
		engine(&e)
		s.OtherEngines[name] = e
	}
	b := &s.Batch
	for _, p := range []any{&b.SeqLength, &b.MaxPromptLength, &b.MaxResponseLength, &b.DynamicBatch,
		&b.MaxTokensPerMicroBatch, &b.LogprobMaxTokens, &b.MaxContextLength, &b.MultiTurn} {
		f(p)
	}
}

// Located lists the settings written in the input, once per position, in
// a fixed order.
func (s *MemorySettings) Located() []Setting {
	var out []Setting
	seen := map[Span]bool{}
	s.each(func(ref any) {
		key, span, set, value := factOf(ref)
		if set && span.Known() && !seen[span] {
			seen[span] = true
			out = append(out, Setting{Key: key, Span: span, Value: value})
		}
	})
	return out
}

// SetKey gives every setting read from key the value text, parsed as the
// setting's type: written at span when at is known (a fix's edit), else
// the key's default without a position (a removed fact). It reports
// whether a setting has that key and the text parses.
func (s *MemorySettings) SetKey(key, text string, at Span) bool {
	ok := false
	set := at.Known()
	s.each(func(ref any) {
		if k, _, _, _ := factOf(ref); k != key {
			return
		}
		switch r := ref.(type) {
		case *IntFact:
			if n, err := strconv.Atoi(text); err == nil {
				*r, ok = IntFact{Value: n, Set: set, Span: at, Key: key}, true
			}
		case *BoolFact:
			if v, err := strconv.ParseBool(text); err == nil {
				*r, ok = BoolFact{Value: v, Set: set, Span: at, Key: key}, true
			}
		case *FloatFact:
			if v, err := strconv.ParseFloat(text, 64); err == nil {
				*r, ok = FloatFact{Value: v, Set: set, Span: at, Key: key}, true
			}
		case *StringFact:
			*r, ok = StringFact{Value: text, Set: set, Span: at, Key: key}, true
		}
	})
	return ok
}

// Unset takes the setting read from key back to its default (Defaults).
func (s *MemorySettings) Unset(key string) bool {
	def, ok := s.Defaults[key]
	return ok && s.SetKey(key, def, Span{})
}

// Clone copies the settings deeply enough that SetKey on the copy leaves
// the original as it is.
func (s *MemorySettings) Clone() *MemorySettings {
	c := *s
	if s.Inference != nil {
		inf := *s.Inference
		c.Inference = &inf
	}
	c.OtherEngines = maps.Clone(s.OtherEngines)
	return &c
}

// factOf reads a fact's key, position, whether it is set, and its value
// as text.
func factOf(ref any) (key string, span Span, set bool, value string) {
	switch r := ref.(type) {
	case *IntFact:
		return r.Key, r.Span, r.Set, strconv.Itoa(r.Value)
	case *BoolFact:
		return r.Key, r.Span, r.Set, strconv.FormatBool(r.Value)
	case *FloatFact:
		return r.Key, r.Span, r.Set, strconv.FormatFloat(r.Value, 'g', -1, 64)
	case *StringFact:
		return r.Key, r.Span, r.Set, r.Value
	}
	return "", Span{}, false, ""
}
