package memory

import "fmt"

// What a rollout engine holds beyond its fraction, measured in public
// startup logs rather than assumed (each number cites its log):
//
//   - Its weights: a quarter GiB more than the parameters (sglangLoadExtra).
//   - Before it loads: SGLang 0.4.3 on a 22.03 GiB L4 logs "Load weight
//     begin. avail mem=21.63 GB" after "Init torch distributed ends. mem
//     usage=0.13 GB" (didier-durand/llms-in-clouds docs/sglang.md, TP 4):
//     0.40 GiB of context and NCCL. On Docker under WSL2 the same log shows
//     22.76 of 23.69 GiB (jerryzsj/my-deepseek-r1 README.md): 0.93 GiB, the
//     desktop's share; engine_preload_gib says so for such a machine.
//   - SGLang's request-to-token map, outside mem_fraction_static:
//     max_running_requests × context_len int32 entries (ReqToTokenPool);
//     2049 × 131072 × 4 B = 1.0 GiB in both logs above ("Memory pool end"
//     1.16 and 1.05 GiB below the KV pool's end).
//   - SGLang's attention workspace and sampling buffers: 0.64 GiB between
//     "Memory pool end. avail mem=2.09 GB" and "Capture cuda graph begin.
//     avail mem=1.45 GB" (the L4 log), and a prefill chunk's forward pass.
//   - CUDA graphs: "Capture cuda graph end ... mem usage=0.93 GB" for
//     cuda_graph_max_bs 80 (the L4 log): the profile's cuda_graph_gib is
//     for 80, scaled by the batch sizes captured.

// vLLM's own numbers, from its startup logs: "PyTorch activation peak
// memory takes 1.26GiB" (vllm#15815, Qwen2.5-32B TP 2, V0) and 1.42GiB
// (vllm#13882, Qwen2.5-7B); "Estimated CUDA graph memory: 0.73 GiB total"
// for V1's default capture sizes (vllm#39559).
const (
	vllmActivationBytes = 14 * GiB / 10
	vllmGraphBytes      = 73 * GiB / 100
)

// sglangLoadExtra is what SGLang's weight load takes beyond the parameters
// (its rotary caches, library workspaces, allocator rounding): "Load weight
// end ... mem usage=15.54 GB" for 15.26 GiB of Qwen2.5-32B at TP 4 (the L4
// log), 22.76 − 8.37 = 14.39 GiB for 14.19 GiB of a 7B (the WSL2 log).
const sglangLoadExtra = GiB / 4

// preloadBytes is the default engine_preload_gib: 0.4 GiB, the L4 log's.
const preloadBytes = 2 * GiB / 5

// graphBatch is the batch size cuda_graph_gib is measured at.
const graphBatch = 80

// sglangWorkspaceBytes is the attention workspace and sampling buffers.
const sglangWorkspaceBytes = 5 * GiB / 8

// assumedContextLen is SGLang's context_len when the model's
// max_position_embeddings is unknown.
const assumedContextLen = 32768

// engineGraphs is the CUDA graphs of an engine capturing batches up to
// maxBS (0: the engine's default, the profile's value as it is).
func engineGraphs(prof Profile, maxBS int) (int64, string) {
	if maxBS <= 0 {
		return prof.GraphBytes, prof.Source("cuda_graph_gib")
	}
	b := float64(prof.GraphBytes) * float64(maxBS) / graphBatch
	return clampBytes(b), fmt.Sprintf("%s × cuda_graph_max_bs %d / %d (0.93 GB captured for %d by SGLang 0.4.3, didier-durand/llms-in-clouds)",
		prof.Source("cuda_graph_gib"), maxBS, graphBatch, graphBatch)
}

// sglangRuntime sizes SGLang's memory beyond its fraction once its pool is
// known: the request-to-token map, the workspace, and a prefill chunk's
// forward pass (hidden states, QKV and the MLP's gate and up projections
// of one rank, bf16).
type sglangRuntime struct {
	Hidden, FFN, TP int
	ContextLen      int
	ContextKey      string // where ContextLen comes from
	MaxRunning      int
	ChunkedPrefill  int
}

// bytes returns the runtime memory and its source for a pool of tokens.
func (r sglangRuntime) bytes(tokens int64) (int64, string) {
	ctx, ctxSrc := r.ContextLen, r.ContextKey
	if ctx <= 0 {
		ctx, ctxSrc = assumedContextLen, "assumed (the model's max_position_embeddings is unknown)"
	}
	reqs, reqSrc := r.MaxRunning, "max_running_requests"
	if reqs <= 0 {
		// SGLang's default: min(max(tokens/context_len·512, 2048), 4096).
		reqs, reqSrc = int(min(max(tokens*512/int64(ctx), 2048), 4096)), "SGLang's default max_running_requests"
	}
	reqMap := float64(reqs+1) * float64(ctx+4) * 4
	chunk := max(r.ChunkedPrefill, 2048)
	if r.ChunkedPrefill <= 0 {
		chunk = 8192
	}
	tp := max(r.TP, 1)
	fwd := float64(chunk) * float64(4*r.Hidden+3*r.FFN/tp) * 2
	total := reqMap + sglangWorkspaceBytes + fwd
	return clampBytes(total), fmt.Sprintf("request map %d × context %d (%s, %s) × 4 B + workspace %s (SGLang 0.4.3's L4 log) + a %d-token prefill chunk's forward pass",
		reqs+1, ctx, reqSrc, ctxSrc, gib(sglangWorkspaceBytes), chunk)
}
