package memory

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
)

func TestResolveArch(t *testing.T) {
	dir := t.TempDir()
	withConfig := filepath.Join(dir, "Qwen2.5-7B")
	broken := filepath.Join(dir, "broken")
	for d, text := range map[string]string{withConfig: qwen7bConfig, broken: "{\n  \"hidden_size\": x\n}"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "config.json"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	explicit := filepath.Join(dir, "explicit.json")
	if err := os.WriteFile(explicit, []byte(qwen7bConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	qwen3Flags := map[string]model.FlagValue{"num-layers": {Text: "36"}, "hidden-size": {Text: "2560"}, "num-attention-heads": {Text: "32"},
		"vocab-size": {Text: "151936"}, "ffn-hidden-size": {Text: "9728"}, "group-query-attention": {}, "num-query-groups": {Text: "8"},
		"kv-channels": {Text: "128"}, "swiglu": {}, "qk-layernorm": {}}
	tests := []struct {
		name     string
		path     string
		typ      string
		flags    map[string]model.FlagValue
		explicit string
		kind     string
		params   int64
		err      string
	}{
		{"config.json beside the path wins", withConfig, "", qwen3Flags, explicit, SourceConfigJSON, 7615616512, ""},
		{"--model-config next", filepath.Join(dir, "absent"), "", qwen3Flags, explicit, SourceModelConfig, 7615616512, ""},
		{"then the model flags", filepath.Join(dir, "Qwen2.5-7B-missing"), "", qwen3Flags, "", SourceFlags, 4022468096, ""},
		{"then the table", "/path/to/model/Qwen2.5-7B-Instruct", "", nil, "", SourceTable, 7615616512, ""},
		{"unknown", "/path/to/model/mine", "qwen2.5", nil, "", "", 0, "unknown"},
		{"a broken config.json is an error", broken, "", nil, "", "", 0, "config.json:2:18"},
		{"a missing --model-config is an error", "/nowhere", "", nil, filepath.Join(dir, "nope.json"), "", 0, "cannot read --model-config"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &model.MemorySettings{ModelPath: model.StringFact{Value: tt.path, Set: true}, ModelType: model.StringFact{Value: tt.typ}, ModelArgs: tt.flags}
			a, src, err := ResolveArch(s, ResolveOptions{ModelConfig: tt.explicit})
			switch {
			case tt.err == "unknown":
				if !errors.Is(err, ErrUnknownArch) {
					t.Fatalf("got %v, want ErrUnknownArch", err)
				}
			case tt.err != "":
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want an error with %q", err, tt.err)
				}
			case err != nil:
				t.Fatal(err)
			case src.Kind != tt.kind || a.Params() != tt.params:
				t.Errorf("source %s, %d params; want %s, %d", src, a.Params(), tt.kind, tt.params)
			}
		})
	}
}

var errNotExist = os.ErrNotExist
