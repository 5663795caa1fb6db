// Package memory answers "will each GPU hold what is placed on it?" before
// a run (spec/memory.md). It imports only model and the standard library:
// it computes, the rules layer judges with its findings, the renderers
// show its reports.
//
// # The model
//
// A Worker is one process of a component on one GPU, with its resident
// bytes in each Phase (init, rollout, logprob, train, weight_sync), every
// number a Part that says what it is (weights, gradients, optimizer,
// activations, engine budget, ...) and where it comes from:
//
//   - Megatron trainers: Megatron-LM's compute_weight_and_optimizer_memory
//     (MostLoadedShard, WeightAndOptimizerBytes) and its two activation
//     formulas (ActivationBytes, ActivationBytesWithoutSP), checked against
//     the corpus by `go test ./proptest -run TestMemory`; full recompute by
//     the spec's formula (FullRecomputeBytes); the logits spike.
//   - FSDP trainers: FSDPStateBytes (and DeepSpeed's ZeRO estimators).
//   - Rollout engines: SGLang reserves mem_fraction_static of the memory
//     free when it starts (SGLangKVPool: SGLang's own arithmetic), vLLM
//     gpu_memory_utilization of the total (VLLMBudget); KV cells, pools and
//     tokens that fit (KVCellBytes). Engines are resolved on their GPU.
//   - Offload flags decide what each phase keeps; a per-process residue
//     (CUDA context, NCCL, CUDA graphs) comes from the Profile.
//
// # Wiring (check, plan, solve)
//
//  1. Settings: grammar fills model.Config.Memory for an RLinf config;
//     SlimeSettings maps slime's flags (name without dashes -> value and
//     span). Every value carries its key and span.
//  2. Architecture: ResolveArch(settings, ResolveOptions{ModelConfig:
//     --model-config}) tries the config.json beside the model path, the
//     --model-config file, slime's model flags, then the built-in table
//     (TableNames). It says which (ArchSource, for note RLS-N1002);
//     ErrUnknownArch means no memory check (note RLS-N1001); an
//     *InputError is RLS-E1006 (memory.Diagnostic).
//  3. Profile: DefaultProfile, or ParseProfile(--mem-profile FILE).
//  4. Workers(Input{Settings, Arch, Source, Profile, Layout}) gives the
//     modelled components by name ("actor", "critic", "inference",
//     "rollout", other engines of the same model); EngineWorker builds an
//     engine of another model; OtherWorker any other component (env,
//     reward): its context and the profile's component_gib.<name>.
//     Layout says what the placement decides: collocated or not, each
//     component's GPU count, GPUs per node, whether the actor computes
//     log-probs.
//  5. Per GPU (capacity from the inventory's memory_gib; none: note
//     RLS-N1001, no memory diagnostics): Aggregate(GPU{Label, CapacityBytes,
//     Workers}) sums each phase over the workers (the init phase in start
//     order) and takes the peak: a GPUReport, which marshals as the plan's
//     JSON `memory` entry (capacity_bytes, phases with bytes and parts with
//     their sources, peak_bytes, engines). GPUReport.Key groups identical
//     GPUs for the table.
//  6. Check(reports, profile) returns Findings: errors only where the run
//     cannot work (RLS-E1001 model state over capacity, E1002 SGLang pool
//     empty, E1003 vLLM over free memory at its start, E1004 engine
//     fractions over 1, E1005 KV pool under one sequence), warnings for
//     estimates (W1001 peak over capacity, W1002 thin headroom, W1003
//     logits spike, or a micro-batch nothing bounds with the sample length
//     that runs out: tokens.go). Each names its Drivers (settings with keys and spans)
//     and FixCandidates (set key to value) for the rules layer to verify by
//     re-checking; Finding.Diagnostic renders one.
//
// For solve, a component's need on a GPU is Aggregate over the candidate
// set of workers: the peak must stay within the capacity, with collocated
// components summed per phase.
package memory
