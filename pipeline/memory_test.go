package pipeline_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
)

// Configs shaped like RLinf's own examples for one node of eight H100s
// (reasoning with Megatron and FSDP, collocated and disaggregated, an MoE,
// embodied OpenVLA-OFT and pi0) run there: their memory is checked, with
// no memory error or warning. RLinf's example files themselves are checked
// by proptest's TestMemoryRLinfExamples (RLSOLVE_RLINF_DIR).
func TestMemoryH100Configs(t *testing.T) {
	files, _ := filepath.Glob("testdata/memory/*.yaml")
	if len(files) < 6 {
		t.Fatalf("%d configs", len(files))
	}
	inv := &model.Inventory{Source: "test", Nodes: []model.Node{{Rank: 0, IP: "10.0.0.1", AccelType: model.AccelNVGPU,
		AccelModel: "H100-SXM-80GB", AccelCount: 8, MemoryGiB: 80}}}
	for _, f := range files {
		o := pipeline.CheckFile(f, pipeline.Options{Inventory: inv, GPUsPerNode: -1})
		if o.Memory == nil || len(o.Memory.Groups) == 0 {
			t.Errorf("%s: memory not checked: %v", f, o.Diagnostics)
			continue
		}
		arch := false
		for _, d := range o.Diagnostics {
			arch = arch || d.Code == model.NoteMemoryArch
			if strings.HasPrefix(d.Code, "RLS-E") || strings.HasPrefix(d.Code, "RLS-W10") {
				t.Errorf("%s: %s %s", f, d.Code, d.Summary)
			}
		}
		if !arch {
			t.Errorf("%s: no note names the architecture's source", f)
		}
		for _, g := range o.Memory.Groups {
			if g.PeakBytes > g.CapacityBytes {
				t.Errorf("%s: %s peaks at %d bytes", f, g.Label, g.PeakBytes)
			}
		}
	}
}
