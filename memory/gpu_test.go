package memory

import (
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

// at is a known span on line n, for drivers.
func at(n int) model.Span { return model.Span{File: "c.yaml", Line: n, Col: 3, EndLine: n, EndCol: 6} }

func fixed(component string, order int, bytes int64, kind Kind) Worker {
	w := Worker{Component: component, StartOrder: order, AfterStart: Usage{{Kind: kind, Bytes: bytes}}}
	for p := range w.Phases {
		w.Phases[p] = Usage{{Kind: kind, Bytes: bytes}}
	}
	return w
}

func engineWorker(kind string, frac float64, weights float64, offloaded bool) Worker {
	return Worker{Component: kind, Engine: &Engine{Kind: kind, Fraction: frac, WeightsBytes: weights, CellBytes: 1 << 20,
		PageSize: 1, SeqTokens: 10, Offloaded: offloaded, ContextBytes: GiB}, Drivers: Drivers{
		{Role: RoleFraction, Key: "rollout.gpu_memory_utilization", Span: at(4), Value: "0.5", Set: true},
		{Role: RoleEngineTP, Key: "rollout.tensor_parallel_size", Span: at(5), Value: "1", Set: true}}}
}

func TestAggregateStartOrder(t *testing.T) {
	// An SGLang engine starting after a resident 20 GiB worker sizes its
	// budget from what is free then.
	g := GPU{Label: "g", CapacityBytes: 80 * GiB, Workers: []Worker{fixed("actor", 1, 20*GiB, KindWeights), engineWorker("sglang", 0.5, 4*GiB, true)}}
	g.Workers[1].StartOrder = 2
	r := Aggregate(g)
	if e := r.Engines[0]; e.FreeAtStart != 59*GiB || e.Budget != 59*GiB/2 {
		t.Errorf("engine found %s free and reserved %s", gib(e.FreeAtStart), gib(e.Budget))
	}
	if init := r.Phase(PhaseInit); init.Starting != "sglang" || init.Bytes != 20*GiB+GiB+59*GiB/2 {
		t.Errorf("init phase %s at %s's start", gib(init.Bytes), init.Starting)
	}
	// Released between rollouts: only its context outside the rollout.
	if tr := r.Phase(PhaseTrain); tr.Bytes != 21*GiB {
		t.Errorf("train phase %s, want the actor and the engine's context", gib(tr.Bytes))
	}
	if r.PeakPhase != PhaseInit && r.PeakPhase != PhaseRollout {
		t.Errorf("peak in %s", r.PeakPhase)
	}
}

func TestChecks(t *testing.T) {
	tests := []struct {
		name    string
		gpu     GPU
		code    string
		fixKey  string
		fixWant string
	}{
		{"state over capacity", GPU{CapacityBytes: 24 * GiB, Workers: []Worker{withDrivers(fixed("actor", 1, 30*GiB, KindOptimizer),
			Driver{Role: RoleTP, Key: "actor.model.tensor_model_parallel_size", Span: at(2), Value: "1", Set: true})}},
			model.CodeMemoryState, "actor.model.tensor_model_parallel_size", "2"},
		{"SGLang pool empty", GPU{CapacityBytes: 24 * GiB, Workers: []Worker{engineWorker("sglang", 0.4, 14*GiB, false)}},
			model.CodeMemoryPool, "rollout.gpu_memory_utilization", "0.61"},
		{"vLLM refuses to start beside a resident worker", GPU{CapacityBytes: 24 * GiB, Workers: []Worker{
			fixed("actor", -1, 10*GiB, KindWeights), engineWorker("vllm", 0.9, 2*GiB, false)}},
			model.CodeMemoryVLLMInit, "rollout.gpu_memory_utilization", "0.54"},
		{"pool below one sequence", GPU{CapacityBytes: 24 * GiB, Workers: []Worker{seq(engineWorker("sglang", 0.5, 10*GiB, false), 1<<20)}},
			model.CodeMemoryKVSeq, "rollout.tensor_parallel_size", "2"},
		{"fractions over 1", GPU{CapacityBytes: 80 * GiB, Workers: []Worker{engineWorker("vllm", 0.6, GiB, false), renamed(engineWorker("vllm", 0.5, GiB, false), "judge")}},
			model.CodeMemoryFractions, "", ""},
		{"estimated peak over capacity", GPU{CapacityBytes: 24 * GiB, Workers: []Worker{fixed("actor", 1, 26*GiB, KindActivations)}},
			model.WarnMemoryPeak, "", ""},
		{"thin headroom", GPU{CapacityBytes: 24 * GiB, Workers: []Worker{fixed("actor", 1, 23*GiB, KindActivations)}},
			model.WarnMemoryHeadroom, "", ""},
		{"logits spike", GPU{CapacityBytes: 80 * GiB, Workers: []Worker{spiky(fixed("actor", 1, 40*GiB, KindWeights), 50*GiB)}},
			model.WarnMemoryLogits, "runner.max_tokens_per_mbs", "36000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.gpu.Label = "node 0 GPU 0"
			fs := Check([]GPUReport{Aggregate(tt.gpu)}, DefaultProfile())
			var f *Finding
			for i := range fs {
				if fs[i].Code == tt.code {
					f = &fs[i]
				}
			}
			if f == nil {
				t.Fatalf("no %s in %+v", tt.code, fs)
			}
			if !strings.HasSuffix(f.Summary, "(node 0 GPU 0)") || f.Severity == model.SeverityNote {
				t.Errorf("summary %q, severity %v", f.Summary, f.Severity)
			}
			if tt.fixKey == "" {
				return
			}
			for _, fx := range f.Fixes {
				if fx.Key == tt.fixKey && (tt.fixWant == "" || fx.Value == tt.fixWant) {
					d := f.Diagnostic()
					if !d.Primary.Known() || len(d.Help) == 0 {
						t.Errorf("diagnostic without location or help: %+v", d)
					}
					return
				}
			}
			t.Errorf("no fix %s=%s in %+v", tt.fixKey, tt.fixWant, f.Fixes)
		})
	}
}

func TestCheckMergesIdenticalGPUs(t *testing.T) {
	var rs []GPUReport
	for _, l := range []string{"a", "b", "c"} {
		rs = append(rs, Aggregate(GPU{Label: l, CapacityBytes: 24 * GiB, Workers: []Worker{fixed("actor", 1, 30*GiB, KindWeights)}}))
	}
	fs := Check(rs, DefaultProfile())
	if len(fs) != 1 || len(fs[0].GPUs) != 3 || !strings.Contains(fs[0].Summary, "on 3 GPUs: a, b, c") {
		t.Errorf("findings %+v", fs)
	}
	if rs[0].Key() != rs[1].Key() {
		t.Error("identical GPUs have different keys")
	}
}

func withDrivers(w Worker, ds ...Driver) Worker {
	w.Drivers = append(w.Drivers, ds...)
	return w
}

func seq(w Worker, tokens int64) Worker {
	w.Engine.SeqTokens = tokens
	return w
}

func renamed(w Worker, c string) Worker {
	w.Component = c
	return w
}

func spiky(w Worker, b int64) Worker {
	w.Spikes[PhaseTrain] = Part{Kind: KindLogits, Bytes: b}
	return withDrivers(w, Driver{Role: RoleMaxTokens, Key: "runner.max_tokens_per_mbs", Span: at(7), Value: "45000", Set: true})
}
