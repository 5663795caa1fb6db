package proptest

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/memory"
)

// The memory corpus (conformance/memory/): Megatron-LM's own estimator run
// on many arguments, and SGLang's KV sizing. Every number is recomputed by
// the memory package's formulas; nothing is fitted to the cases.

type megatronCase struct {
	Name            string              `json:"name"`
	NumMicrobatches *int                `json:"num_microbatches"`
	Args            memory.MegatronArgs `json:"args"`
	WeightOpt       float64             `json:"weight_and_optimizer_bytes"`
	ActSP           float64             `json:"activation_bytes_compute_activation_memory"`
	ActNoSP         float64             `json:"activation_bytes_compute_activation_memory_without_sp"`
	Used            string              `json:"activation_function_used_by_report"`
}

// sglangModel is a model entry of sglang_kv_table.json.
type sglangModel struct {
	Hidden  int  `json:"hidden_size"`
	Layers  int  `json:"num_hidden_layers"`
	Heads   int  `json:"num_attention_heads"`
	KVHeads int  `json:"num_key_value_heads"`
	HeadDim int  `json:"head_dim"`
	FFN     int  `json:"intermediate_size"`
	Vocab   int  `json:"vocab_size"`
	Tie     bool `json:"tie_word_embeddings"`
	QKVBias bool `json:"qkv_bias"`
	QKNorm  bool `json:"qk_norm"`
	MoE     *struct {
		Experts int `json:"num_experts"`
		TopK    int `json:"num_experts_per_tok"`
		FFN     int `json:"moe_intermediate_size"`
		Shared  int `json:"shared_expert_intermediate_size"`
	} `json:"moe"`
	// MLA models (held out here) carry the latent ranks, at the top or
	// under "mla".
	KVLoRARank    int `json:"kv_lora_rank"`
	QLoRARank     int `json:"q_lora_rank"`
	QKNopeHeadDim int `json:"qk_nope_head_dim"`
	QKRopeHeadDim int `json:"qk_rope_head_dim"`
	VHeadDim      int `json:"v_head_dim"`
	MLA           *struct {
		KVLoRARank    int `json:"kv_lora_rank"`
		QLoRARank     int `json:"q_lora_rank"`
		QKNopeHeadDim int `json:"qk_nope_head_dim"`
		QKRopeHeadDim int `json:"qk_rope_head_dim"`
		VHeadDim      int `json:"v_head_dim"`
	} `json:"mla"`
	DtypeBytes int `json:"dtype_bytes"`
}

func (m sglangModel) arch() memory.Arch {
	a := memory.Arch{HiddenSize: m.Hidden, NumLayers: m.Layers, NumHeads: m.Heads, NumKVHeads: m.KVHeads, HeadDim: m.HeadDim,
		FFNSize: m.FFN, VocabSize: m.Vocab, TieEmbeddings: m.Tie, QKVBias: m.QKVBias, QKNorm: m.QKNorm, Gated: true,
		KVLoRARank: m.KVLoRARank, QLoRARank: m.QLoRARank, QKNopeHeadDim: m.QKNopeHeadDim, QKRopeHeadDim: m.QKRopeHeadDim, VHeadDim: m.VHeadDim}
	if m.MLA != nil {
		a.KVLoRARank, a.QLoRARank, a.QKNopeHeadDim, a.QKRopeHeadDim, a.VHeadDim =
			m.MLA.KVLoRARank, m.MLA.QLoRARank, m.MLA.QKNopeHeadDim, m.MLA.QKRopeHeadDim, m.MLA.VHeadDim
	}
	a.MLA = a.KVLoRARank > 0
	if a.NumKVHeads == 0 {
		a.NumKVHeads = a.NumHeads
	}
	if m.MoE != nil {
		a.NumExperts, a.TopK, a.MoEFFNSize, a.SharedExpertSize = m.MoE.Experts, m.MoE.TopK, m.MoE.FFN, m.MoE.Shared
	}
	return a
}

type sglangRow struct {
	Model     string  `json:"model"`
	TP        int     `json:"tp"`
	GPU       string  `json:"gpu"`
	TotalGiB  float64 `json:"gpu_total_GiB"`
	MFS       float64 `json:"mem_fraction_static"`
	Params    int64   `json:"params"`
	WeightsGB float64 `json:"weights_per_rank_GiB"`
	Cell      int64   `json:"kv_bytes_per_token_per_rank"`
	CellAll   int64   `json:"kv_bytes_per_token_all_ranks"`
	PoolGiB   float64 `json:"kv_pool_GiB"`
	Tokens    int64   `json:"max_total_num_tokens"`
	Seqs      int64   `json:"seqs_of_28672_tokens"`
	Error     *string `json:"error"`
	PageSize  int     `json:"page_size"`
	KVBytes   int     `json:"kv_dtype_bytes"`
}

type sglangTable struct {
	Models map[string]sglangModel `json:"models"`
	Rows   []sglangRow            `json:"rows"`
}

func readMemoryFile(t *testing.T, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpusDir(), "memory", name))
	if err != nil {
		t.Fatalf("memory corpus: %v", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("memory corpus %s: %v", name, err)
	}
}

// relErr compares at a relative tolerance of 1e-9.
func relErr(what string, got, want float64) string {
	if got == want || math.Abs(got-want) <= 1e-9*math.Abs(want) {
		return ""
	}
	return fmt.Sprintf("%s = %.17g, want %.17g", what, got, want)
}

func runMegatronCase(c megatronCase) string {
	nmb := 0
	if c.NumMicrobatches != nil {
		nmb = *c.NumMicrobatches
	}
	var errs []string
	for _, e := range []string{
		relErr("weight and optimizer bytes", memory.WeightAndOptimizerBytes(c.Args), c.WeightOpt),
		relErr("compute_activation_memory", memory.ActivationBytes(c.Args, nmb), c.ActSP),
		relErr("compute_activation_memory_without_sp", memory.ActivationBytesWithoutSP(c.Args, nmb), c.ActNoSP),
	} {
		if e != "" {
			errs = append(errs, e)
		}
	}
	used := "compute_activation_memory_without_sp"
	if memory.UsesSPFormula(c.Args) {
		used = "compute_activation_memory"
	}
	if c.Used != "" && used != c.Used {
		errs = append(errs, fmt.Sprintf("report uses %s, want %s", used, c.Used))
	}
	return strings.Join(errs, "; ")
}

func runSGLangRow(tab *sglangTable, r sglangRow) string {
	m, ok := tab.Models[r.Model]
	if !ok {
		return "model not described under models"
	}
	a := m.arch()
	dtype := 2
	if m.DtypeBytes > 0 {
		dtype = m.DtypeBytes
	}
	if r.KVBytes > 0 {
		dtype = r.KVBytes
	}
	var errs []string
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Sprintf(format, args...))
		}
	}
	params := a.Params()
	check(params == r.Params, "params %d, want %d", params, r.Params)
	cell := memory.KVCellBytes(a, r.TP, 1, dtype)
	check(cell == r.Cell, "cell %d, want %d", cell, r.Cell)
	check(cell*int64(r.TP) == r.CellAll, "cell over all ranks %d, want %d", cell*int64(r.TP), r.CellAll)
	weights := float64(params) * 2 / float64(r.TP)
	check(round3(weights/memory.GiB) == r.WeightsGB, "weights %.3f GiB, want %.3f", weights/memory.GiB, r.WeightsGB)
	pool := memory.SGLangKVPool(r.TotalGiB, r.MFS, weights, cell, max(r.PageSize, 1))
	check(pool.Tokens == r.Tokens, "tokens %d, want %d", pool.Tokens, r.Tokens)
	wantPool := r.PoolGiB
	gotPool := 0.0
	if pool.OK() {
		gotPool = round3(pool.RestGiB)
	}
	check(math.Abs(gotPool-wantPool) < 1e-9, "pool %.3f GiB, want %.3f", gotPool, wantPool)
	check(pool.Tokens/28672 == r.Seqs, "sequences %d, want %d", pool.Tokens/28672, r.Seqs)
	check(pool.OK() == (r.Error == nil), "starts %v, want error %v", pool.OK(), r.Error)
	return strings.Join(errs, "; ")
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// TestMemory judges every case of the memory corpus, printing one line per
// failing case and a closing count per file and overall.
func TestMemory(t *testing.T) {
	passed, failed := 0, 0
	run := func(file string, cases int, one func(i int) (string, string)) {
		p, f := 0, 0
		for i := 0; i < cases; i++ {
			name, why := one(i)
			if why == "" {
				p++
				continue
			}
			f++
			t.Logf("FAIL %s %s: %s", file, name, why)
			fmt.Printf("FAIL %s %s: %s\n", file, name, why)
		}
		fmt.Printf("memory %s: %d passed, %d failed\n", file, p, f)
		passed, failed = passed+p, failed+f
	}
	var meg struct {
		Cases []megatronCase `json:"cases"`
	}
	readMemoryFile(t, "megatron_cases.json", &meg)
	run("megatron_cases.json", len(meg.Cases), func(i int) (string, string) {
		c := meg.Cases[i]
		return c.Name, safely(func() string { return runMegatronCase(c) })
	})
	var tab sglangTable
	readMemoryFile(t, "sglang_kv_table.json", &tab)
	run("sglang_kv_table.json", len(tab.Rows), func(i int) (string, string) {
		r := tab.Rows[i]
		name := fmt.Sprintf("%s/tp%d/%s/mfs%g", r.Model, r.TP, r.GPU, r.MFS)
		return name, safely(func() string { return runSGLangRow(&tab, r) })
	})
	if passed+failed == 0 {
		t.Fatal("the memory corpus has no cases")
	}
	t.Logf("memory: %d passed, %d failed", passed, failed)
	fmt.Printf("memory: %d passed, %d failed\n", passed, failed)
	if failed > 0 {
		t.Fail()
	}
}
