package proptest

import (
	"fmt"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/rlsolve/rlsolve/memory"
	"github.com/rlsolve/rlsolve/model"
)

// Properties of the memory model (spec/memory.md §4.5), over the built-in
// architectures and random settings, with the fixed seed of gopter_test.go.

// memSpec is one generated run: an architecture and a trainer's and an
// engine's settings.
type memSpec struct {
	Arch                        int
	TP, PP, DP                  int
	DistOpt, SP, Dynamic        bool
	Recompute                   int // 0 none, 1 selective, 2 full block, 3 full uniform
	MBS, Seq                    int
	FSDP                        bool
	Sharding                    int
	Engine                      int // 0 sglang, 1 vllm, 2 huggingface
	Fraction                    float64
	EngineTP                    int
	Collocated, Logprob         bool
	Offloads                    [6]bool // weight, grad, optimizer, optimizer cpu, fsdp enable_offload, engine
	CapacityGiB                 int
	Others                      int // further unmodelled components on the GPU
	InsertBefore, NewIsEngine   bool
	NewEngineFrac               float64
	OptimizerFraction           float64
	GradientCheckpointing, LoRA bool
}

func genMemSpec() gopter.Gen {
	pow := func(max int) gopter.Gen { return gen.IntRange(0, max).Map(func(i int) int { return 1 << i }) }
	return gopter.CombineGens(
		gen.IntRange(0, len(memory.TableNames())-1), pow(3), pow(2), gen.IntRange(1, 16), gen.Bool(), gen.Bool(), gen.Bool(),
		gen.IntRange(0, 3), gen.IntRange(1, 8), gen.IntRange(256, 65536), gen.Bool(), gen.IntRange(0, 3),
		gen.IntRange(0, 2), gen.Float64Range(0.2, 0.95), pow(3), gen.Bool(), gen.Bool(),
		gen.SliceOfN(6, gen.Bool()), gen.IntRange(16, 160), gen.IntRange(0, 2), gen.Bool(), gen.Bool(),
		gen.Float64Range(0.05, 0.5), gen.Float64Range(0, 1), gen.Bool(), gen.Bool(),
	).Map(func(v []any) memSpec {
		s := memSpec{Arch: v[0].(int), TP: v[1].(int), PP: v[2].(int), DP: v[3].(int), DistOpt: v[4].(bool), SP: v[5].(bool),
			Dynamic: v[6].(bool), Recompute: v[7].(int), MBS: v[8].(int), Seq: v[9].(int), FSDP: v[10].(bool), Sharding: v[11].(int),
			Engine: v[12].(int), Fraction: v[13].(float64), EngineTP: v[14].(int), Collocated: v[15].(bool), Logprob: v[16].(bool),
			CapacityGiB: v[18].(int), Others: v[19].(int), InsertBefore: v[20].(bool), NewIsEngine: v[21].(bool),
			NewEngineFrac: v[22].(float64), OptimizerFraction: v[23].(float64), GradientCheckpointing: v[24].(bool), LoRA: v[25].(bool)}
		copy(s.Offloads[:], toBools(v[17].([]bool)))
		return s
	})
}

func toBools(b []bool) []bool { return b }

func (s memSpec) arch() memory.Arch {
	a, _ := memory.LookupTable(memory.TableNames()[s.Arch], "")
	return a
}

func (s memSpec) settings() *model.MemorySettings {
	b := func(v bool) model.BoolFact { return model.BoolFact{Value: v, Set: true} }
	i := func(v int) model.IntFact { return model.IntFact{Value: v, Set: true} }
	gran, method := []string{"", "selective", "full", "full"}[s.Recompute], []string{"", "", "block", "uniform"}[s.Recompute]
	backend := "megatron"
	if s.FSDP {
		backend = "fsdp"
	}
	return &model.MemorySettings{Framework: "rlinf",
		Actor: model.TrainerSettings{Backend: model.StringFact{Value: backend}, TP: i(s.TP), PP: i(s.PP), CP: i(1), EP: i(1),
			DistributedOptimizer: b(s.DistOpt), SequenceParallel: b(s.SP),
			RecomputeGranularity: model.StringFact{Value: gran}, RecomputeMethod: model.StringFact{Value: method}, RecomputeNumLayers: i(2),
			MicroBatch: i(s.MBS), LogprobMicroBatch: i(max(s.MBS/2, 1)), OffloadWeight: b(s.Offloads[0]), OffloadGrad: b(s.Offloads[1]),
			OffloadOptimizer: b(s.Offloads[2]), OptimizerCPUOffload: b(s.Offloads[3]), OptimizerOffloadFraction: model.FloatFact{Value: s.OptimizerFraction},
			EnableOffload: b(s.Offloads[4]), ShardingStrategy: model.StringFact{Value: []string{"full_shard", "shard_grad_op", "no_shard", "hybrid_shard"}[s.Sharding]},
			GradientCheckpointing: b(s.GradientCheckpointing), LoRA: b(s.LoRA), Precision: model.StringFact{Value: "bf16"}},
		Rollout: model.EngineSettings{Backend: model.StringFact{Value: []string{"sglang", "vllm", "huggingface"}[s.Engine]},
			MemFraction: model.FloatFact{Value: s.Fraction, Set: true}, TP: i(s.EngineTP), PP: i(1), Offload: b(s.Offloads[5])},
		Batch: model.BatchSettings{SeqLength: i(s.Seq), DynamicBatch: b(s.Dynamic), MaxTokensPerMicroBatch: i(s.Seq * s.MBS)},
	}
}

func (s memSpec) input(set *model.MemorySettings) memory.Input {
	world := s.TP * s.PP * s.DP
	return memory.Input{Settings: set, Arch: s.arch(), Profile: memory.DefaultProfile(),
		Layout: memory.Layout{Collocated: s.Collocated, ActorGPUs: world, RolloutGPUs: world, GPUsPerNode: 8, ActorLogprob: s.Logprob}}
}

// wo is the actor's weights and optimizer state per GPU (most-loaded rank).
func (s memSpec) wo(tp, pp, dp int) float64 {
	set := s.settings()
	set.Actor.TP.Value, set.Actor.PP.Value = tp, pp
	return memory.MostLoadedShard(memory.MegatronArgsFor(s.arch(), &set.Actor, tp*pp*dp, true, s.Seq, s.MBS)).Total()
}

func TestPropMemoryParallelism(t *testing.T) {
	props := gopter.NewProperties(propParams(t))
	props.Property("more TP, PP or DP never raises weights+optimizer per GPU", prop.ForAll(func(s memSpec) string {
		base := s.wo(s.TP, s.PP, s.DP)
		for name, more := range map[string]float64{"TP": s.wo(2*s.TP, s.PP, s.DP), "PP": s.wo(s.TP, 2*s.PP, s.DP), "DP": s.wo(s.TP, s.PP, s.DP+1)} {
			if more > base*(1+1e-12) {
				return fmt.Sprintf("%s up: %.0f > %.0f bytes", name, more, base)
			}
		}
		return ""
	}, genMemSpec()))
	propRun(t, props)
}

// gpuOf places the actor and the rollout engine (started first) on one GPU.
func (s memSpec) gpuOf(set *model.MemorySettings) memory.GPUReport {
	ws := memory.Workers(s.input(set))
	g := memory.GPU{CapacityBytes: int64(s.CapacityGiB) * memory.GiB, Workers: []memory.Worker{ws["rollout"], ws["actor"]}}
	for i := 0; i < s.Others; i++ {
		g.Workers = append(g.Workers, memory.OtherWorker(fmt.Sprintf("env%d", i), memory.DefaultProfile()))
	}
	return memory.Aggregate(g)
}

func TestPropMemoryOffload(t *testing.T) {
	props := gopter.NewProperties(propParams(t))
	props.Property("offload never raises a phase", prop.ForAll(func(s memSpec) string {
		off := s.settings()
		for _, f := range []*model.BoolFact{&off.Actor.OffloadWeight, &off.Actor.OffloadGrad, &off.Actor.OffloadOptimizer,
			&off.Actor.OptimizerCPUOffload, &off.Actor.EnableOffload, &off.Rollout.Offload} {
			f.Value = false
		}
		base := s.gpuOf(off)
		on := s.gpuOf(s.settings())
		for i, p := range on.Phases {
			if p.Bytes > base.Phases[i].Bytes {
				return fmt.Sprintf("%s: %d bytes with offload, %d without", p.Phase, p.Bytes, base.Phases[i].Bytes)
			}
		}
		return ""
	}, genMemSpec()))
	propRun(t, props)
}

func TestPropMemoryAddWorker(t *testing.T) {
	props := gopter.NewProperties(propParams(t))
	props.Property("adding a worker to a GPU never lowers its peak", prop.ForAll(func(s memSpec) string {
		set := s.settings()
		ws := memory.Workers(s.input(set))
		g := memory.GPU{CapacityBytes: int64(s.CapacityGiB) * memory.GiB, Workers: []memory.Worker{ws["rollout"], ws["actor"]}}
		base := memory.Aggregate(g)
		extra := memory.OtherWorker("env", memory.DefaultProfile())
		if s.NewIsEngine {
			e := set.Rollout
			e.MemFraction.Value, e.Backend.Value = s.NewEngineFrac, "vllm"
			extra = memory.EngineWorker(s.input(set), "judge", e)
		}
		// A worker that starts before an SGLang engine shrinks the
		// engine's pool (SGLang sizes it from free memory), so it is
		// added after SGLang engines, anywhere otherwise.
		extra.StartOrder = 10
		if s.InsertBefore && s.Engine != 0 {
			extra.StartOrder = -1
		}
		g.Workers = append(g.Workers, extra)
		more := memory.Aggregate(g)
		if more.PeakBytes < base.PeakBytes {
			return fmt.Sprintf("peak %d with %s, %d without", more.PeakBytes, extra.Component, base.PeakBytes)
		}
		return ""
	}, genMemSpec()))
	propRun(t, props)
}
