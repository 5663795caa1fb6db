package proptest

import (
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/rlsolve/rlsolve/memory"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
)

// memoryRun is the memory check of one checked config, wired the way the
// check will wire it (a test stand-in until rules/ lands): every
// placement's GPUs get its component's worker, each GPU is aggregated and
// judged.
type memoryRun struct {
	arch     memory.Arch
	source   memory.ArchSource
	reports  []memory.GPUReport
	findings []memory.Finding
}

// errNoMemory: the config is not checked for memory (no settings, no
// memory_gib, unknown model).
var errNoMemory = errors.New("memory not checked")

func runMemory(o *pipeline.Outcome, prof memory.Profile) (*memoryRun, error) {
	if o.Config == nil || o.Config.Memory == nil || o.Result == nil || o.Result.Plan == nil || o.Inventory == nil {
		return nil, errNoMemory
	}
	s := o.Config.Memory
	arch, src, err := memory.ResolveArch(s, memory.ResolveOptions{})
	if err != nil {
		return nil, err
	}
	gpus, layout := placeWorkers(o)
	in := memory.Input{Settings: s, Arch: arch, Source: src, Profile: prof, Layout: layout}
	workers := memory.Workers(in)
	run := &memoryRun{arch: arch, source: src}
	keys := make([]string, 0, len(gpus))
	for k := range gpus {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		g := gpus[k]
		if g.capacity <= 0 {
			return nil, errNoMemory
		}
		gpu := memory.GPU{Label: k, CapacityBytes: g.capacity}
		for _, c := range g.components {
			w, ok := workers[c]
			if !ok {
				w = memory.OtherWorker(c, prof)
			}
			gpu.Workers = append(gpu.Workers, w)
		}
		run.reports = append(run.reports, memory.Aggregate(gpu))
	}
	run.findings = memory.Check(run.reports, prof)
	return run, nil
}

type placedGPU struct {
	capacity   int64
	components []string
}

// placeWorkers lists each GPU's components and the layout memory needs.
func placeWorkers(o *pipeline.Outcome) (map[string]*placedGPU, memory.Layout) {
	gpus := map[string]*placedGPU{}
	count := map[string]int{}
	mem := map[int]float64{}
	for _, n := range o.Inventory.Nodes {
		mem[n.Rank] = n.MemoryGiB
	}
	for _, c := range o.Result.Plan.Components {
		seen := map[string]bool{}
		for _, p := range c.Placements {
			for _, v := range p.VisibleAccelerators {
				if _, err := strconv.Atoi(v); err != nil {
					continue
				}
				key := fmt.Sprintf("node %d GPU %s", p.ClusterNodeRank, v)
				g := gpus[key]
				if g == nil {
					g = &placedGPU{capacity: int64(mem[p.ClusterNodeRank] * memory.GiB)}
					gpus[key] = g
				}
				if !seen[key] {
					seen[key] = true
					g.components = append(g.components, c.Name)
					count[c.Name]++
				}
			}
		}
	}
	collocated := false
	for _, g := range gpus {
		has := map[string]bool{}
		for _, c := range g.components {
			has[c] = true
		}
		collocated = collocated || has["actor"] && has["rollout"]
	}
	cfg := o.Config
	_, hasInference := count["inference"]
	return gpus, memory.Layout{Collocated: collocated, ActorGPUs: count["actor"], RolloutGPUs: count["rollout"],
		InferenceGPUs: count["inference"], GPUsPerNode: 8,
		ActorLogprob: cfg.ModelParallel.RecomputeLogprobs.Value && !hasInference || cfg.Memory.Framework == "slime"}
}

// codes lists the findings' codes.
func (r *memoryRun) codes() map[string]model.Severity {
	out := map[string]model.Severity{}
	for _, f := range r.findings {
		out[f.Code] = f.Severity
	}
	return out
}
