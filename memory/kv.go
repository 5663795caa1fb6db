package memory

import "math"

// KVCellBytes is SGLang's KV-cache bytes per token on one rank
// (get_cell_size_per_token): for MHA/GQA max(1, kv_heads // tp) heads of
// keys and values over the stage's layers; for MLA the compressed latent
// and the rope key, not sharded by TP.
func KVCellBytes(a Arch, tp, pp, dtypeBytes int) int64 {
	tp, pp = max(tp, 1), max(pp, 1)
	layers := int64((a.NumLayers + pp - 1) / pp)
	if a.MLA {
		return int64(a.KVLoRARank+a.QKRopeHeadDim) * layers * int64(dtypeBytes)
	}
	heads := int64(max(1, a.NumKVHeads/tp))
	vDim := a.HeadDim
	if a.VHeadDim > 0 {
		vDim = a.VHeadDim
	}
	return heads * int64(a.HeadDim+vDim) * layers * int64(dtypeBytes)
}

// SGLangPool is SGLang's KV pool at start (profile_max_num_token).
type SGLangPool struct {
	// RestGiB is post_model_load_free − pre_model_load_free·(1 − mfs): the
	// KV pool in GiB, ≤ 0 when SGLang refuses to start ("Not enough
	// memory. Please try to increase --mem-fraction-static").
	RestGiB float64
	// Tokens is max_total_num_tokens: the pool over the cell size, rounded
	// down to a whole page; 0 when the pool is empty.
	Tokens int64
}

// OK reports whether SGLang starts.
func (p SGLangPool) OK() bool { return p.Tokens > 0 }

// SGLangKVPool sizes the pool from the free memory SGLang measures before
// loading its weights (preFreeGiB), its fraction, the weights it loads on
// this rank and the cell size, in SGLang's own arithmetic (GiB floats,
// then int(rest·2³⁰) // cell_size, then // page_size · page_size).
func SGLangKVPool(preFreeGiB, mfs float64, weightsBytes float64, cell int64, pageSize int) SGLangPool {
	post := preFreeGiB - weightsBytes/GiB
	rest := post - preFreeGiB*(1-mfs)
	if !(rest > 0) || cell <= 0 {
		return SGLangPool{RestGiB: rest}
	}
	bytes := rest * GiB
	if bytes > maxBytes {
		bytes = maxBytes
	}
	tokens := int64(bytes) / cell
	if pageSize > 1 {
		tokens = tokens / int64(pageSize) * int64(pageSize)
	}
	return SGLangPool{RestGiB: rest, Tokens: tokens}
}

// SGLangDefaultFraction is SGLang's mem_fraction_static when none is given
// (server_args.py _handle_gpu_memory_settings): the GPU less a reserve for
// activations and CUDA graphs, at least 10 GiB on GPUs over 60 GiB.
func SGLangDefaultFraction(capacityBytes int64, tp, pp, chunkedPrefill, cudaGraphMaxBS int) float64 {
	gpuMB := float64(capacityBytes) / (1 << 20)
	if gpuMB <= 0 {
		return 0.88
	}
	if chunkedPrefill <= 0 {
		chunkedPrefill = 8192
	}
	if cudaGraphMaxBS <= 0 {
		cudaGraphMaxBS = 256
	}
	reserved := 512 + float64(max(chunkedPrefill, 2048))*1.5 + float64(cudaGraphMaxBS)*2 + float64(max(tp, 1)*max(pp, 1))/8*1024
	if gpuMB > 60*1024 {
		reserved = math.Max(reserved, 10*1024)
	}
	return math.Round((gpuMB-reserved)/gpuMB*1000) / 1000
}

// VLLMBudget is vLLM's requested memory, ceil(total · utilization): at
// start vLLM refuses to run when less than this is free.
func VLLMBudget(capacityBytes int64, util float64) int64 {
	return clampBytes(math.Ceil(float64(capacityBytes) * util))
}
