package memory

import (
	"fmt"
	"math"
)

// Engine is a rollout engine that sizes itself by a fraction at start:
// SGLang takes mem_fraction_static of the memory free when it starts,
// vLLM gpu_memory_utilization of the GPU's total. Its bytes are known only
// on a GPU, once what starts before it is known (Aggregate resolves it).
type Engine struct {
	// Kind is "sglang" or "vllm".
	Kind string
	// Fraction is the fraction; 0 for SGLang's own default.
	Fraction     float64
	WeightsBytes float64
	CellBytes    int64
	PageSize     int
	// SeqTokens is one sequence (prompt and response): the pool must hold
	// at least that.
	SeqTokens int64
	// Offloaded engines release weights and KV cache between rollouts.
	Offloaded bool
	// TP and PP size the default fraction's reserve.
	TP, PP         int
	ChunkedPrefill int
	CUDAGraphMaxBS int
	// Residual bytes: context (and NCCL), CUDA graphs, runtime activations.
	ContextBytes, GraphBytes, ActivationBytes int64
	// Sources of the residual numbers.
	ContextSource, GraphSource, ActivationSource string
	// Runtime, when set, sizes SGLang's activations from its pool
	// (engine_overhead.go) in place of ActivationBytes.
	Runtime *sglangRuntime
	// V0 is vLLM's V0 engine: no start check, and a KV cache of what the
	// fraction of the total leaves after everything resident.
	V0 bool
}

// EngineState is an engine resolved on a GPU.
type EngineState struct {
	Component string  `json:"component"`
	Kind      string  `json:"kind"`
	Fraction  float64 `json:"fraction"`
	// FreeAtStart is the memory the engine finds free when it starts.
	FreeAtStart int64 `json:"free_at_start_bytes"`
	// Budget is what it reserves: fraction × free (SGLang) or × total (vLLM).
	Budget int64 `json:"budget_bytes"`
	// KVBytes and Tokens are its KV pool and the tokens that fit; Seqs how
	// many sequences of SeqTokens.
	KVBytes   int64 `json:"kv_bytes"`
	Tokens    int64 `json:"kv_tokens"`
	SeqTokens int64 `json:"seq_tokens"`
	// StartFails is true when vLLM refuses to start (less free than its
	// budget) or SGLang's pool is empty.
	StartFails bool `json:"start_fails"`
}

// resolve sizes the engine on a GPU of capacity bytes where others bytes
// are resident when it starts, and returns its usage per phase, at start
// and after start.
func (e *Engine) resolve(component string, capacity, others int64) (EngineState, [NumPhases]Usage, Usage) {
	free := max(capacity-others-e.ContextBytes, 0)
	st := EngineState{Component: component, Kind: e.Kind, Fraction: e.Fraction, FreeAtStart: free, SeqTokens: e.SeqTokens}
	if st.Fraction <= 0 {
		st.Fraction = SGLangDefaultFraction(capacity, e.TP, e.PP, e.ChunkedPrefill, e.CUDAGraphMaxBS)
	}
	var budgetSrc string
	act, actSrc := e.ActivationBytes, e.ActivationSource
	if e.Kind == "vllm" {
		st.Budget = VLLMBudget(capacity, st.Fraction)
		// V1 refuses to start with less free than its budget; its KV cache
		// is the budget less weights, the profiled activations and the CUDA
		// graphs (all inside the budget). V0 has no such check: its KV cache
		// is the budget less all memory in use (others' included).
		inUse := int64(0)
		if e.V0 {
			inUse = others + e.ContextBytes
		} else {
			st.StartFails = st.Budget > free
		}
		graphsIn := e.GraphBytes
		if e.V0 {
			graphsIn = 0 // V0 captures its graphs after sizing the KV cache
		}
		st.KVBytes = max(st.Budget-inUse-clampBytes(e.WeightsBytes)-act-graphsIn, 0)
		st.StartFails = st.StartFails || e.V0 && st.KVBytes <= 0
		if e.CellBytes > 0 {
			st.Tokens = st.KVBytes / e.CellBytes
		}
		budgetSrc = fmt.Sprintf("vLLM budget ceil(total %s × gpu_memory_utilization %g)", gib(capacity), st.Fraction)
	} else {
		pool := SGLangKVPool(float64(free)/GiB, st.Fraction, e.WeightsBytes, e.CellBytes, e.PageSize)
		st.Budget = clampBytes(math.Floor(float64(free) * st.Fraction))
		st.KVBytes, st.Tokens = clampBytes(pool.RestGiB*GiB), pool.Tokens
		st.StartFails = !pool.OK()
		budgetSrc = fmt.Sprintf("SGLang mem_fraction_static %g × free at start %s (weights %s + KV pool %s, %d tokens)",
			st.Fraction, gib(free), gib(clampBytes(e.WeightsBytes)), gib(st.KVBytes), st.Tokens)
		if e.Runtime != nil {
			act, actSrc = e.Runtime.bytes(st.Tokens)
		}
	}
	ctx := part(KindContext, float64(e.ContextBytes), e.ContextSource)
	graphs := part(KindGraphs, float64(e.GraphBytes), e.GraphSource)
	budget := part(KindBudget, float64(st.Budget), budgetSrc)
	running := Usage{ctx, budget, graphs, part(KindEngineWork, float64(act), actSrc)}
	switch {
	case e.Kind == "vllm" && e.V0:
		// V0's budget is the GPU's fraction with everything in it: its own
		// share is what others leave; graphs are captured after the KV cache.
		budget.Bytes = max(st.Budget-others-e.ContextBytes, 0)
		running = Usage{ctx, budget, graphs}
	case e.Kind == "vllm":
		// Graphs and activations are inside V1's budget: counting them
		// again outside would double them.
		running = Usage{ctx, budget}
	}
	var phases [NumPhases]Usage
	inside := int64(0) // what of the kept graphs V1's budget already held
	if e.Kind == "vllm" && !e.V0 {
		graphs.Bytes = min(graphs.Bytes, st.Budget)
		inside = graphs.Bytes
	}
	released := Usage{ctx, graphs}
	if e.Runtime != nil {
		// Released SGLang keeps its context, CUDA graphs and workspace:
		// only weights, KV cache and the request map are under the memory
		// saver (sglang#2542: 1.1 GB left of a paused Llama-1B).
		released = append(released, part(KindEngineWork, sglangWorkspaceBytes, "workspace kept when released (sglang#2542)"))
	}
	for p := range phases {
		phases[p] = running
		if e.Offloaded && Phase(p) != PhaseRollout && Phase(p) != PhaseInit {
			phases[p] = released
		}
	}
	if e.Offloaded {
		// The weights are part of the budget (an engine whose weights
		// exceed it does not start, which checkEngines reports).
		w := min(e.WeightsBytes, float64(st.Budget-inside))
		phases[PhaseWeightSync] = Usage{ctx, graphs, part(KindWeights, w, "the engine's weights, resumed for the sync")}
	}
	after := running
	if e.Offloaded {
		after = released
	}
	return st, phases, after
}

// gib formats bytes as GiB for sources and messages.
func gib(b int64) string { return fmt.Sprintf("%.2f GiB", float64(b)/GiB) }
