package memory

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// MegatronArgs are the Megatron-LM arguments that its theoretical memory
// estimator (megatron/training/theoretical_memory_usage.py) reads, under
// Megatron's own names, so that a case computed by Megatron decodes into
// it directly. Optional arguments (None in Python) are pointers.
type MegatronArgs struct {
	HiddenSize                       int       `json:"hidden_size"`
	NumLayers                        int       `json:"num_layers"`
	NumAttentionHeads                int       `json:"num_attention_heads"`
	NumQueryGroups                   int       `json:"num_query_groups"`
	GroupQueryAttention              bool      `json:"group_query_attention"`
	FFNHiddenSize                    int       `json:"ffn_hidden_size"`
	UntieEmbeddingsAndOutputWeights  bool      `json:"untie_embeddings_and_output_weights"`
	KVChannels                       int       `json:"kv_channels"`
	SwiGLU                           bool      `json:"swiglu"`
	Normalization                    string    `json:"normalization"`
	NumExperts                       *int      `json:"num_experts"`
	MoEFFNHiddenSize                 *int      `json:"moe_ffn_hidden_size"`
	MoERouterTopK                    int       `json:"moe_router_topk"`
	MoELayerFreq                     LayerFreq `json:"moe_layer_freq"`
	MoESharedExpertIntermediateSize  *int      `json:"moe_shared_expert_intermediate_size"`
	MultiLatentAttention             bool      `json:"multi_latent_attention"`
	PaddedVocabSize                  int       `json:"padded_vocab_size"`
	TensorModelParallelSize          int       `json:"tensor_model_parallel_size"`
	PipelineModelParallelSize        int       `json:"pipeline_model_parallel_size"`
	ContextParallelSize              int       `json:"context_parallel_size"`
	ExpertModelParallelSize          int       `json:"expert_model_parallel_size"`
	ExpertTensorParallelSize         int       `json:"expert_tensor_parallel_size"`
	WorldSize                        int       `json:"world_size"`
	DataParallelSize                 int       `json:"data_parallel_size"`
	UseDistributedOptimizer          bool      `json:"use_distributed_optimizer"`
	SequenceParallel                 bool      `json:"sequence_parallel"`
	RecomputeGranularity             *string   `json:"recompute_granularity"`
	SeqLength                        int       `json:"seq_length"`
	MicroBatchSize                   int       `json:"micro_batch_size"`
	VirtualPipelineModelParallelSize *int      `json:"virtual_pipeline_model_parallel_size"`
	AddBiasLinear                    bool      `json:"add_bias_linear"`
	MTPNumLayers                     *int      `json:"mtp_num_layers"`
	MoELatentSize                    *int      `json:"moe_latent_size"`
	MoESharedExpertGate              bool      `json:"moe_shared_expert_gate"`
	QLoRARank                        *int      `json:"q_lora_rank"`
	KVLoRARank                       *int      `json:"kv_lora_rank"`
	QKHeadDim                        *int      `json:"qk_head_dim"`
	QKPosEmbHeadDim                  *int      `json:"qk_pos_emb_head_dim"`
	VHeadDim                         *int      `json:"v_head_dim"`
}

// LayerFreq is Megatron's --moe-layer-freq: an int i (every i-th layer is
// MoE, i.e. layers with index % i == 0) or an explicit 0/1 list per layer.
type LayerFreq struct {
	Every   int
	Pattern []int
}

// UnmarshalJSON reads an int, a list of ints, or null (every layer).
func (f *LayerFreq) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "null" {
		*f = LayerFreq{Every: 1}
		return nil
	}
	if strings.HasPrefix(s, "[") {
		var p []int
		if err := json.Unmarshal(b, &p); err != nil {
			return err
		}
		*f = LayerFreq{Pattern: p}
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("moe_layer_freq: want an integer or a list, got %s", s)
	}
	*f = LayerFreq{Every: n}
	return nil
}

// MarshalJSON writes the int or the list.
func (f LayerFreq) MarshalJSON() ([]byte, error) {
	if f.Pattern != nil {
		return json.Marshal(f.Pattern)
	}
	return json.Marshal(f.Every)
}

// moeLayers counts the MoE layers of n and says whether the last one is
// MoE (MTP layers copy it), as Megatron's expanded pattern does, without
// allocating the pattern. An interval below 1 (Python would divide by zero)
// makes no layer MoE; a list of the wrong length (Megatron asserts) counts
// its first n entries.
func (f LayerFreq) moeLayers(n int) (count, last int) {
	if n <= 0 {
		return 0, 0
	}
	if f.Pattern != nil {
		for i, v := range f.Pattern {
			if i >= n {
				break
			}
			if v != 0 {
				count++
			}
		}
		if len(f.Pattern) >= n && f.Pattern[n-1] != 0 {
			last = 1
		}
		return count, last
	}
	if f.Every < 1 {
		return 0, 0
	}
	count = (n + f.Every - 1) / f.Every
	if (n-1)%f.Every == 0 {
		last = 1
	}
	return count, last
}

func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}
