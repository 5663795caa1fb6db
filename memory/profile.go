package memory

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// GiB is 2^30 bytes.
const GiB = 1 << 30

// Profile holds what rlsolve cannot derive from configs (spec/memory.md
// §4.2): per-process residue measured once per framework, GPU and model
// family, the thresholds, and the memory of components it does not model.
// DefaultProfile is conservative; --mem-profile FILE overrides any key.
//
// The file is either lines of `key: value` (a YAML subset; # starts a
// comment) or one JSON object of the same keys:
//
//	cuda_context_gib: 1.0        # CUDA context of each process on a GPU
//	nccl_gib: 0.5                # NCCL buffers of each process
//	cuda_graph_gib: 1.0          # an engine's CUDA graphs (kept when released)
//	engine_activation_gib: 2.0   # an engine's runtime memory beyond its budget (default: a formula, see engine_overhead.go)
//	engine_preload_gib: 0.4      # what an engine's process holds before it loads (context, NCCL; more on a desktop or WSL2)
//	vllm_v1: 1                   # vLLM's engine: 1 for V1 (the start check), 0 for V0
//	weight_sync_bucket_gib: 0.5  # the bucket a weight sync sends at once
//	fragmentation: 0.10          # allocator slack, a fraction of activations
//	logits_copies: 1.5           # fp32 logits copies beyond the output layer's (see DefaultProfile)
//	headroom_min_gib: 2          # warn below max(this, headroom_fraction)
//	headroom_fraction: 0.08      #   of the GPU's capacity
//	component_gib.env: 3.0       # a component rlsolve does not model, per process
type Profile struct {
	ContextBytes          int64
	NCCLBytes             int64
	GraphBytes            int64
	EngineActivationBytes int64
	BucketBytes           int64
	Fragmentation         float64
	LogitsCopies          float64
	HeadroomMinBytes      int64
	HeadroomFraction      float64
	// EnginePreloadBytes is what an engine's process holds before it
	// measures free memory and loads its weights.
	EnginePreloadBytes int64
	// VLLMV1 is 1 for vLLM's V1 engine, 0 for V0.
	VLLMV1 float64
	// Components are per-process bytes of components rlsolve does not
	// model (env simulators, reward servers), by component name.
	Components map[string]int64
	// File is the profile file, "" for the defaults; Spans locate its keys.
	File  string
	Spans map[string]model.Span
}

// DefaultProfile is the conservative default (spec/memory.md §4.2).
// LogitsCopies is 1.5: Megatron's output-layer term (with the
// activations) counts one fp32 logits tensor, 4 B per token and vocabulary
// entry; the log-prob path holds 10: the bf16 logits (2), their `.float()`
// copy (4) and the `logits - logits_max` buffer that vocab_parallel_softmax
// reuses for exp and softmax (4) (slime/utils/ppo_utils.py,
// _VocabParallelLogProbEntropy.forward at THUDM/slime 624b824). Older slime
// also cloned the logits first (compute_log_probs(logits.clone()),
// slime#1951): a profile with logits_copies 2.5 says so.
func DefaultProfile() Profile {
	return Profile{ContextBytes: GiB, NCCLBytes: GiB / 2, GraphBytes: GiB, EngineActivationBytes: 2 * GiB,
		BucketBytes: GiB / 2, Fragmentation: 0.10, LogitsCopies: 1.5, HeadroomMinBytes: 2 * GiB, HeadroomFraction: 0.08,
		EnginePreloadBytes: preloadBytes, VLLMV1: 1,
		Components: map[string]int64{}}
}

// Name names the profile in messages: the default, or its file.
func (p Profile) Name() string {
	if p.File == "" {
		return "default memory profile"
	}
	return "memory profile " + p.File
}

// Source names where a profile value came from, for the plan's sources.
func (p Profile) Source(key string) string {
	if sp, ok := p.Spans[key]; ok {
		return fmt.Sprintf("%s (%s)", key, sp)
	}
	return key + " (default profile)"
}

type profileKey struct {
	max   float64
	bytes func(*Profile) *int64
	frac  func(*Profile) *float64
}

var profileKeys = map[string]profileKey{
	"cuda_context_gib":       {max: 1024, bytes: func(p *Profile) *int64 { return &p.ContextBytes }},
	"nccl_gib":               {max: 1024, bytes: func(p *Profile) *int64 { return &p.NCCLBytes }},
	"cuda_graph_gib":         {max: 1024, bytes: func(p *Profile) *int64 { return &p.GraphBytes }},
	"engine_activation_gib":  {max: 1024, bytes: func(p *Profile) *int64 { return &p.EngineActivationBytes }},
	"weight_sync_bucket_gib": {max: 1024, bytes: func(p *Profile) *int64 { return &p.BucketBytes }},
	"headroom_min_gib":       {max: 1024, bytes: func(p *Profile) *int64 { return &p.HeadroomMinBytes }},
	"fragmentation":          {max: 10, frac: func(p *Profile) *float64 { return &p.Fragmentation }},
	"logits_copies":          {max: 16, frac: func(p *Profile) *float64 { return &p.LogitsCopies }},
	"headroom_fraction":      {max: 1, frac: func(p *Profile) *float64 { return &p.HeadroomFraction }},
	"engine_preload_gib":     {max: 1024, bytes: func(p *Profile) *int64 { return &p.EnginePreloadBytes }},
	"vllm_v1":                {max: 1, frac: func(p *Profile) *float64 { return &p.VLLMV1 }},
}

const componentPrefix = "component_gib."

// MaxProfileBytes bounds a profile file.
const MaxProfileBytes = 64 << 10

// ParseProfile reads a --mem-profile file over the defaults. Errors name
// the file, line and column.
func ParseProfile(file string, data []byte) (Profile, error) {
	p := DefaultProfile()
	p.File, p.Spans = file, map[string]model.Span{}
	src := source{file: file, data: data}
	if len(data) > MaxProfileBytes {
		return p, src.errorf(0, 1, "%s is %d bytes; a memory profile is read up to %d", file, len(data), MaxProfileBytes)
	}
	entries, err := src.profileEntries()
	if err != nil {
		return p, err
	}
	for _, e := range entries {
		if err := p.set(src, e); err != nil {
			return p, err
		}
	}
	return p, nil
}

// profileEntry is one key with its value's text and offsets.
type profileEntry struct {
	key          string
	keyOff, keyN int
	value        string
	valOff, valN int
}

func (s source) profileEntries() ([]profileEntry, error) {
	if i := skipSpace(s.data, 0); i < len(s.data) && s.data[i] == '{' {
		ms, err := s.objectMembers(i, len(s.data))
		if err != nil {
			return nil, err
		}
		out := make([]profileEntry, len(ms))
		for j, m := range ms {
			out[j] = profileEntry{key: m.key, keyOff: m.keyOff, keyN: len(m.key) + 2, value: string(m.value),
				valOff: m.off, valN: len(m.value)}
		}
		return out, nil
	}
	var out []profileEntry
	off := 0
	for _, line := range bytes.SplitAfter(s.data, []byte("\n")) {
		e, ok, err := s.profileLine(line, off)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, e)
		}
		off += len(line)
	}
	return out, nil
}

// profileLine reads `key: value  # comment`.
func (s source) profileLine(line []byte, off int) (profileEntry, bool, error) {
	text := string(line)
	if i := strings.IndexByte(text, '#'); i >= 0 {
		text = text[:i]
	}
	text = strings.TrimRight(text, " \t\r\n")
	lead := len(text) - len(strings.TrimLeft(text, " \t"))
	if strings.TrimSpace(text) == "" {
		return profileEntry{}, false, nil
	}
	colon := strings.IndexByte(text, ':')
	if colon < 0 {
		return profileEntry{}, false, s.errorf(off+lead, len(text)-lead, "expected `key: value`")
	}
	key := strings.TrimSpace(text[:colon])
	val := strings.TrimLeft(text[colon+1:], " \t")
	valOff := off + len(text) - len(val)
	return profileEntry{key: key, keyOff: off + lead, keyN: len(key), value: val, valOff: valOff, valN: len(val)}, true, nil
}

func (p *Profile) set(src source, e profileEntry) error {
	keySpan := src.span(e.keyOff, e.keyN)
	if _, dup := p.Spans[e.key]; dup {
		return &InputError{Span: keySpan, Msg: fmt.Sprintf("%s is given twice", e.key)}
	}
	k, known := profileKeys[e.key]
	name, isComponent := strings.CutPrefix(e.key, componentPrefix)
	if !known && !(isComponent && name != "") {
		return &InputError{Span: keySpan, Msg: fmt.Sprintf("unknown memory profile key %q; known keys: %s, %s<component>",
			e.key, strings.Join(profileKeyNames(), ", "), componentPrefix)}
	}
	if isComponent {
		k = profileKey{max: 1024}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(e.value), 64)
	if err != nil || math.IsNaN(v) || v < 0 || v > k.max {
		return src.errorf(e.valOff, e.valN, "%s must be a number from 0 to %g, but got %s", e.key, k.max, clip(e.value))
	}
	p.Spans[e.key] = keySpan
	switch {
	case isComponent:
		p.Components[name] = int64(v * GiB)
	case k.bytes != nil:
		*k.bytes(p) = int64(v * GiB)
	default:
		*k.frac(p) = v
	}
	return nil
}

func profileKeyNames() []string {
	var out []string
	for k := range profileKeys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
