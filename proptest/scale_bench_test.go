package proptest

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/render"
	"github.com/rlsolve/rlsolve/strategies"
	"github.com/rlsolve/rlsolve/topology"
)

// Scaling benchmarks: the same realistic layout at 8, 64, 1024 and 8192
// GPUs (8 per node), so that time per worker can be compared across sizes.
// bench/run.sh runs them and prints the growth table.

// scaleGPUs are the cluster sizes of BenchmarkCheck and BenchmarkPlan.
var scaleGPUs = []int{8, 64, 1024, 8192}

const scaleGPUsPerNode = 8

// scaleConfig is a disaggregated RL layout on g GPUs (g a multiple of 8):
//
//	actor     GPUs [0, g/2)            one GPU per worker
//	reward    GPUs [0, g/2)            collocated with the actor
//	rollout   GPUs [g/2, 3g/4)         two GPUs per worker (TP 2)
//	inference GPUs [3g/4, 7g/8)        one GPU per worker
//	env       GPUs [7g/8, g)           two workers per GPU
//	agent     every node, CPU only     ten workers per node (node_group: node)
func scaleConfig(g int) []byte {
	nodes := g / scaleGPUsPerNode
	var b strings.Builder
	fmt.Fprintf(&b, "cluster:\n  num_nodes: %d\n  component_placement:\n", nodes)
	fmt.Fprintf(&b, "    actor: \"0-%d\"\n", g/2-1)
	fmt.Fprintf(&b, "    rollout: \"%d-%d:0-%d\"\n", g/2, g*3/4-1, g/8-1)
	fmt.Fprintf(&b, "    inference: \"%d-%d\"\n", g*3/4, g*7/8-1)
	fmt.Fprintf(&b, "    reward: \"0-%d\"\n", g/2-1)
	fmt.Fprintf(&b, "    env: \"%d-%d:0-%d\"\n", g*7/8, g-1, g/4-1)
	fmt.Fprintf(&b, "    agent: {node_group: node, placement: \"0-%d:0-%d\"}\n", nodes-1, nodes*10-1)
	return []byte(b.String())
}

// scaleWant is the worker count of each component of scaleConfig(g).
func scaleWant(g int) map[string]int {
	return map[string]int{"actor": g / 2, "reward": g / 2, "rollout": g / 8, "inference": g / 8, "env": g / 4, "agent": g / scaleGPUsPerNode * 10}
}

// cpuPoolConfig is one 100,000-process CPU pool on 10,000 nodes.
func cpuPoolConfig() []byte {
	return []byte("cluster:\n  num_nodes: 10000\n  component_placement:\n    agent: {node_group: node, placement: \"0-9999:0-99999\"}\n")
}

// check is what `rlsolve check` does for a valid config: load, plan, and
// the solver's verdict (pipeline.CheckBytes).
func check(tb testing.TB, data []byte, inv *model.Inventory) *strategies.Result {
	return checkOutcome(tb, data, inv).Result
}

func checkOutcome(tb testing.TB, data []byte, inv *model.Inventory) *pipeline.Outcome {
	o := pipeline.CheckBytes("bench.yaml", data, pipeline.Options{Inventory: inv, GPUsPerNode: -1})
	if o.Diagnostics.HasErrors() || o.Result == nil || o.Result.Plan == nil {
		tb.Fatalf("invalid: %v", o.Diagnostics)
	}
	return o
}

// explainConfig is scaleConfig(g) with three independent conflicts: a part
// past the last GPU, overlapping parts, and processes that do not divide.
func explainConfig(g int) []byte {
	extra := fmt.Sprintf("    bad_range: \"0-%d\"\n    bad_overlap: \"0-3,2-5\"\n    bad_divide: \"0-2:0-1\"\n", g)
	return append(scaleConfig(g), extra...)
}

// BenchmarkExplain is `rlsolve check` on an invalid config at each size:
// the solver finds, minimizes and explains the three conflicts (with fixes
// verified by re-solving).
func BenchmarkExplain(b *testing.B) {
	for _, g := range scaleGPUs {
		b.Run(fmt.Sprintf("gpus=%d", g), func(b *testing.B) {
			data := explainConfig(g)
			inv := topology.Uniform(g/scaleGPUsPerNode, scaleGPUsPerNode, "bench")
			b.ReportAllocs()
			cpu0, cpuOK := processCPU()
			conflicts := 0
			for b.Loop() {
				o := pipeline.CheckBytes("bench.yaml", data, pipeline.Options{Inventory: inv, GPUsPerNode: -1})
				conflicts = o.Diagnostics.Count(model.SeverityError)
			}
			if conflicts != 3 {
				b.Fatalf("%d conflicts, want 3", conflicts)
			}
			if cpu1, ok := processCPU(); ok && cpuOK && b.N > 0 {
				b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
			}
			workers := 0
			for _, n := range scaleWant(g) {
				workers += n
			}
			b.ReportMetric(float64(workers), "workers") // of the valid components
		})
	}
}

// planDocument is `rlsolve plan --output json` without the terminal: check,
// then the indented JSON document with every worker's environment,
// streamed as the CLI writes it (render.WriteJSON).
func planDocument(tb testing.TB, data []byte, inv *model.Inventory, w io.Writer) *strategies.Result {
	o := checkOutcome(tb, data, inv)
	if err := render.WriteJSON(w, o.RenderInput(), true); err != nil {
		tb.Fatal(err)
	}
	return o.Result
}

func countWorkers(res *strategies.Result) int {
	n := 0
	for i := range res.Plan.Components {
		n += res.Plan.Components[i].Placements.Len()
	}
	return n
}

// stage is how far a benchmark takes the pipeline.
type stage int

const (
	stageCheck    stage = iota // load + PlanConfig + the solver
	stageDocument              // + render.NewDocument (every worker's environment, held)
	stageJSON                  // + the indented JSON document to io.Discard
)

func scaleRun(b *testing.B, data []byte, inv *model.Inventory, st stage) {
	b.ReportAllocs()
	workers := 0
	cpu0, cpuOK := processCPU()
	for b.Loop() {
		var res *strategies.Result
		switch st {
		case stageCheck:
			res = check(b, data, inv)
		case stageDocument:
			o := checkOutcome(b, data, inv)
			res = o.Result
			if doc, err := render.NewDocument(o.RenderInput()); err != nil || len(doc.Components) == 0 {
				b.Fatal("empty document", err)
			}
		default:
			res = planDocument(b, data, inv, io.Discard)
		}
		workers = countWorkers(res)
	}
	if cpu1, ok := processCPU(); ok && cpuOK && b.N > 0 {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
	}
	b.ReportMetric(float64(workers), "workers")
}

// processCPU is the CPU time the process has used so far, user and system,
// all threads (the garbage collector's too), from /proc/self/stat; ok is
// false where there is none. On a shared machine it moves far less than
// wall time with the other load. Its unit is the kernel's clock tick
// (10 ms at the usual 100 Hz), fine over a benchmark's second.
func processCPU() (ns int64, ok bool) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, false
	}
	// Fields after the parenthesised command name start at field 3;
	// utime and stime are fields 14 and 15.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, false
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	const tick = int64(time.Second / 100) // USER_HZ
	return (ut + st) * tick, true
}

func scaleBench(b *testing.B, st stage) {
	for _, g := range scaleGPUs {
		b.Run(fmt.Sprintf("gpus=%d", g), func(b *testing.B) {
			scaleRun(b, scaleConfig(g), topology.Uniform(g/scaleGPUsPerNode, scaleGPUsPerNode, "bench"), st)
		})
	}
}

// BenchmarkCheck is load + PlanConfig (validity) at each size.
func BenchmarkCheck(b *testing.B) { scaleBench(b, stageCheck) }

// BenchmarkDocument is Check plus the plan document with every worker's
// environment, not encoded: rlsolve's own share of BenchmarkPlan.
func BenchmarkDocument(b *testing.B) { scaleBench(b, stageDocument) }

// BenchmarkPlan is Check plus every worker's environment and the JSON
// plan document, indented as `rlsolve plan --output json` writes it
// (render.WriteJSON), to io.Discard.
func BenchmarkPlan(b *testing.B) { scaleBench(b, stageJSON) }

// BenchmarkCPUPool100k checks a 100,000-process CPU pool on 10,000 nodes.
func BenchmarkCPUPool100k(b *testing.B) {
	scaleRun(b, cpuPoolConfig(), topology.Uniform(10000, scaleGPUsPerNode, "bench"), stageCheck)
}

// TestScaleConfigs keeps the scaling benchmarks honest: every generated
// config is valid, plans the expected workers, and its document encodes.
func TestScaleConfigs(t *testing.T) {
	for _, g := range scaleGPUs {
		t.Run(fmt.Sprintf("gpus=%d", g), func(t *testing.T) {
			nodes := g / scaleGPUsPerNode
			var sb strings.Builder
			res := planDocument(t, scaleConfig(g), topology.Uniform(nodes, scaleGPUsPerNode, "bench"), &sb)
			total := 0
			for name, n := range scaleWant(g) {
				total += n
				if cp := res.Plan.Component(name); cp == nil || cp.Placements.Len() != n {
					t.Errorf("%s: want %d workers", name, n)
				}
			}
			if got := countWorkers(res); got != total || total != g*22/8 {
				t.Errorf("workers: got %d, want %d (= 2.75 per GPU)", got, total)
			}
			rollout := res.Plan.Component("rollout")
			if p := rollout.Placements.At(rollout.Placements.Len() - 1); len(p.LocalHardwareRanks) != 2 || p.ClusterNodeRank != (g*3/4-1)/scaleGPUsPerNode {
				t.Errorf("last rollout worker: %+v", p)
			}
			agent := res.Plan.Component("agent")
			if p := agent.Placements.At(agent.Placements.Len() - 1); p.ClusterNodeRank != nodes-1 || p.LocalRank != 9 || p.LocalWorldSize != 10 {
				t.Errorf("last agent worker: %+v", p)
			}
			var doc render.Document
			if err := json.Unmarshal([]byte(sb.String()), &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Components) != 6 || len(doc.Components["env"].Placements) != g/4 || doc.Components["actor"].Placements[0].Env["CUDA_VISIBLE_DEVICES"] != "0" {
				t.Errorf("document: %d components", len(doc.Components))
			}
		})
	}
	res := check(t, cpuPoolConfig(), topology.Uniform(10000, scaleGPUsPerNode, "bench"))
	agent := res.Plan.Component("agent")
	if agent == nil || agent.Placements.Len() != 100000 {
		t.Fatal("cpu pool: want 100000 workers")
	}
	if p := agent.Placements.At(99999); p.ClusterNodeRank != 9999 || p.LocalRank != 9 || p.LocalWorldSize != 10 {
		t.Errorf("last cpu pool worker: %+v", p)
	}
}

// scaleMemoryConfig is scaleConfig(g) as a whole training config whose
// model rlsolve knows (Qwen2.5-7B, an FSDP actor): with memory_gib in the
// inventory, check also judges GPU memory.
func scaleMemoryConfig(g int) []byte {
	return append(scaleConfig(g), `runner:
  seq_length: 4096
rollout:
  gpu_memory_utilization: 0.6
  model:
    model_path: /models/Qwen2.5-7B-Instruct
actor:
  training_backend: fsdp
  micro_batch_size: 1
  model:
    precision: bf16
  fsdp_config:
    gradient_checkpointing: true
`...)
}

// memoryInventory is topology.Uniform's nodes of 8 GPUs with gib GiB each
// (0: no memory_gib).
func memoryInventory(g int, gib float64) *model.Inventory {
	inv := topology.Uniform(g/scaleGPUsPerNode, scaleGPUsPerNode, "bench")
	for i := range inv.Nodes {
		inv.Nodes[i].MemoryGiB = gib
	}
	return inv
}

// BenchmarkCheckMemory is check of scaleMemoryConfig at 1,024 and 8,192
// GPUs, without memory_gib (memory not checked) and with it (the memory
// rule judges every GPU layout): the difference is the memory rule's cost.
func BenchmarkCheckMemory(b *testing.B) {
	for _, g := range []int{1024, 8192} {
		for _, gib := range []float64{0, 80} {
			b.Run(fmt.Sprintf("gpus=%d/memory_gib=%g", g, gib), func(b *testing.B) {
				data, inv := scaleMemoryConfig(g), memoryInventory(g, gib)
				opt := pipeline.Options{Inventory: inv, GPUsPerNode: -1, Class: model.ClassHybrid}
				b.ReportAllocs()
				cpu0, cpuOK := processCPU()
				for b.Loop() {
					o := pipeline.CheckBytes("bench.yaml", data, opt)
					if o.Diagnostics.HasErrors() || (o.Memory != nil) != (gib > 0) {
						b.Fatalf("memory %v: %v", o.Memory != nil, o.Diagnostics)
					}
				}
				if cpu1, ok := processCPU(); ok && cpuOK && b.N > 0 {
					b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
				}
			})
		}
	}
}

// TestScaleMemoryConfig keeps BenchmarkCheckMemory honest: the config is
// valid, its memory is checked with memory_gib (every GPU in a layout) and
// not without.
func TestScaleMemoryConfig(t *testing.T) {
	g := 64
	for _, gib := range []float64{0, 80} {
		o := pipeline.CheckBytes("bench.yaml", scaleMemoryConfig(g), pipeline.Options{Inventory: memoryInventory(g, gib), GPUsPerNode: -1, Class: model.ClassHybrid})
		if o.Diagnostics.HasErrors() || o.Result == nil {
			t.Fatalf("memory_gib %g: %v", gib, o.Diagnostics)
		}
		if gib == 0 {
			if o.Memory != nil {
				t.Error("memory checked without memory_gib")
			}
			continue
		}
		n := 0
		for _, grp := range o.Memory.Groups {
			n += grp.GPUCount()
		}
		if o.Memory == nil || n != g {
			t.Errorf("memory of %d GPUs, want %d", n, g)
		}
	}
}
