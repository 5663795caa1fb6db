package model

import "testing"

func TestMemorySettingsByKey(t *testing.T) {
	at := Span{File: "t.yaml", Line: 3, Col: 5, EndLine: 3, EndCol: 6}
	mb := IntFact{Value: 4, Set: true, Span: at, Key: "algorithm.training_batch_size_per_gpu"}
	s := &MemorySettings{
		Actor:        TrainerSettings{TP: IntFact{Value: 2, Set: true, Span: Span{File: "t.yaml", Line: 2, Col: 1, EndLine: 2, EndCol: 2}, Key: "actor.tp"}, MicroBatch: mb},
		Inference:    &TrainerSettings{MicroBatch: mb},
		Rollout:      EngineSettings{MemFraction: FloatFact{Value: 0.5, Set: true, Span: Span{File: "t.yaml", Line: 4, Col: 1, EndLine: 4, EndCol: 4}, Key: "rollout.f"}},
		OtherEngines: map[string]EngineSettings{"judge": {Offload: BoolFact{Key: "judge.offload"}}},
		Defaults:     map[string]string{"actor.tp": "1", "algorithm.training_batch_size_per_gpu": "1", "rollout.f": "0.65"},
	}
	// One key sets both micro-batches; located settings are listed once
	// per position.
	if got := s.Located(); len(got) != 3 || got[0].Key != "actor.tp" || got[1].Value != "4" {
		t.Errorf("Located: %+v", got)
	}
	c := s.Clone()
	for _, tc := range []struct {
		key, text string
		ok        bool
	}{{"actor.tp", "8", true}, {"rollout.f", "0.9", true}, {"judge.offload", "true", true}, {"actor.tp", "x", false}, {"no.such", "1", false}} {
		if got := c.SetKey(tc.key, tc.text, at); got != tc.ok {
			t.Errorf("SetKey(%s, %s) = %v", tc.key, tc.text, got)
		}
	}
	if c.Actor.TP.Value != 8 || c.Rollout.MemFraction.Value != 0.9 || !c.OtherEngines["judge"].Offload.Value {
		t.Errorf("SetKey did not set: %+v", c)
	}
	if s.Actor.TP.Value != 2 || s.OtherEngines["judge"].Offload.Value {
		t.Error("SetKey on a clone changed the original")
	}
	if !c.Unset("algorithm.training_batch_size_per_gpu") || c.Actor.MicroBatch.Value != 1 || c.Inference.MicroBatch.Value != 1 || c.Actor.MicroBatch.Set {
		t.Errorf("Unset: actor %+v, inference %+v", c.Actor.MicroBatch, c.Inference.MicroBatch)
	}
	if s.Inference.MicroBatch.Value != 4 {
		t.Error("Unset on a clone changed the original's inference settings")
	}
	if c.Unset("judge.offload") {
		t.Error("a key without a recorded default was unset")
	}
}
