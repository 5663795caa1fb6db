package memory

import (
	"errors"
	"strings"
	"testing"
)

func TestParseProfile(t *testing.T) {
	tests := []struct {
		name, text string
		check      func(p Profile) bool
	}{
		{"lines", "# measured on H100\ncuda_context_gib: 0.5   # per process\nnccl_gib: 0\ncomponent_gib.env: 3.5\nheadroom_fraction: 0.1\n",
			func(p Profile) bool {
				return p.ContextBytes == GiB/2 && p.NCCLBytes == 0 && p.Components["env"] == 3*GiB+GiB/2 && p.HeadroomFraction == 0.1 &&
					p.GraphBytes == DefaultProfile().GraphBytes
			}},
		{"json", `{"cuda_graph_gib": 2, "fragmentation": 0.2, "component_gib.reward": 1}`,
			func(p Profile) bool {
				return p.GraphBytes == 2*GiB && p.Fragmentation == 0.2 && p.Components["reward"] == GiB
			}},
		{"empty keeps the defaults", "\n# nothing\n", func(p Profile) bool { return p.ContextBytes == DefaultProfile().ContextBytes }},
		{"sources name the file", "nccl_gib: 1\n", func(p Profile) bool {
			return p.Source("nccl_gib") == "nccl_gib (p.yaml:1:1)" && p.Source("cuda_graph_gib") == "cuda_graph_gib (default profile)"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseProfile("p.yaml", []byte(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(p) {
				t.Errorf("unexpected profile %+v", p)
			}
		})
	}
}

func TestParseProfileErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"unknown key", "nccl_gib: 1\ncuda_context: 1\n", "p.yaml:2:1: unknown memory profile key \"cuda_context\""},
		{"bad number", "nccl_gib: lots\n", "p.yaml:1:11: nccl_gib must be a number from 0 to 1024, but got lots"},
		{"negative", "  fragmentation: -1\n", "p.yaml:1:18: fragmentation must be"},
		{"fraction over 1", "headroom_fraction: 2\n", "headroom_fraction must be a number from 0 to 1,"},
		{"no colon", "cuda_context_gib 1\n", "p.yaml:1:1: expected `key: value`"},
		{"twice", "nccl_gib: 1\nnccl_gib: 2\n", "p.yaml:2:1: nccl_gib is given twice"},
		{"empty component", "component_gib.: 1\n", "unknown memory profile key"},
		{"json type", `{"nccl_gib": "1"}`, "p.yaml:1:14: nccl_gib must be a number"},
		{"json syntax", `{"nccl_gib": 1,, }`, "p.yaml:1:16: invalid JSON"},
		{"too large", strings.Repeat("#", MaxProfileBytes+1), "is read up to"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseProfile("p.yaml", []byte(tt.text))
			wantInputError(t, err, tt.want)
		})
	}
}

func FuzzParseProfile(f *testing.F) {
	f.Add([]byte("cuda_context_gib: 1\ncomponent_gib.env: 2 # x\n"))
	f.Add([]byte(`{"nccl_gib": 0.5}`))
	f.Add([]byte("fragmentation: 1e309\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProfile("f.yaml", data)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || ie.Span.File != "f.yaml" {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		if p.ContextBytes < 0 || p.Fragmentation < 0 || p.HeadroomFraction > 1 {
			t.Fatalf("accepted out-of-range values: %+v", p)
		}
		for _, b := range p.Components {
			if b < 0 || b > 1024*GiB {
				t.Fatalf("component bytes %d", b)
			}
		}
	})
}
