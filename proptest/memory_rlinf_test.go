package proptest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/memory"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
)

// h100Nodes is n nodes of 8 H100-80GB.
func h100Nodes(n int) *model.Inventory {
	inv := &model.Inventory{Source: "test"}
	for r := 0; r < n; r++ {
		inv.Nodes = append(inv.Nodes, model.Node{Rank: r, IP: fmt.Sprintf("10.0.0.%d", r+1), AccelType: "NV_GPU",
			AccelModel: "H100", AccelCount: 8, MemoryGiB: 80})
	}
	return inv
}

// TestMemoryRLinfExamples runs the memory model on RLinf's own example
// configs (RLSOLVE_RLINF_DIR: a checkout of RLinf) on nodes of 8 H100s, and
// requires no memory error on the single-node ones whose model rlsolve
// knows: they run on such a node. It prints each config's per-GPU peak.
func TestMemoryRLinfExamples(t *testing.T) {
	root := os.Getenv("RLSOLVE_RLINF_DIR")
	if root == "" {
		t.Skip("RLSOLVE_RLINF_DIR is not set (a checkout of RLinf, whose examples/ are checked)")
	}
	var files []string
	_ = filepath.Walk(filepath.Join(root, "examples"), func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	checked, unknown, invalid := 0, 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cfg, _ := grammar.LoadConfig(f, data, grammar.DefaultLimits)
		if cfg == nil || cfg.Memory == nil || cfg.NumNodes < 1 {
			continue
		}
		o := pipeline.CheckBytes(f, data, pipeline.Options{Inventory: h100Nodes(cfg.NumNodes), GPUsPerNode: -1})
		if o.Diagnostics.HasErrors() {
			invalid++
			continue
		}
		run, err := runMemory(o, memory.DefaultProfile())
		if errors.Is(err, memory.ErrUnknownArch) || errors.Is(err, errNoMemory) {
			unknown++
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		checked++
		rel, _ := filepath.Rel(root, f)
		peak, phase := int64(0), memory.PhaseInit
		for _, r := range run.reports {
			if r.PeakBytes > peak {
				peak, phase = r.PeakBytes, r.PeakPhase
			}
		}
		var codes []string
		for _, fd := range run.findings {
			codes = append(codes, fd.Code)
			if fd.Severity == model.SeverityError && cfg.NumNodes == 1 {
				t.Errorf("%s: %s %s", rel, fd.Code, fd.Summary)
			}
		}
		fmt.Printf("%-70s %2d node(s) %-22s %6.2f GiB peak (%s) %s\n", rel, cfg.NumNodes, run.source.String(), float64(peak)/memory.GiB, phase, strings.Join(codes, " "))
	}
	fmt.Printf("RLinf examples: %d checked for memory, %d with a model rlsolve does not know, %d not valid placements on H100 nodes\n",
		checked, unknown, invalid)
}
