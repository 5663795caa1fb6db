package proptest

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/grammar"
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

// isMemoryCode reports whether a code is GPU memory's (E10, W10, N10).
func isMemoryCode(code string) bool { return len(code) > 6 && code[5:7] == "10" }

// TestMemoryRLinfExamples checks RLinf's own example configs
// (RLSOLVE_RLINF_DIR: a checkout of RLinf) on nodes of 8 H100s, as `rlsolve
// check` does, and requires no memory error on the single-node ones: they
// run on such a node. It prints each config's memory findings and peak.
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
	checked, unchecked, invalid, flagged := 0, 0, 0, 0
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
		var codes []string
		placementErr := false
		for _, d := range o.Diagnostics {
			switch {
			case isMemoryCode(d.Code) && d.Severity != model.SeverityNote:
				codes = append(codes, d.Code)
				if d.Severity == model.SeverityError && cfg.NumNodes == 1 {
					t.Errorf("%s: %s %s", f, d.Code, d.Summary)
				}
			case d.Severity == model.SeverityError:
				placementErr = true
			}
		}
		rel, _ := filepath.Rel(root, f)
		switch {
		case placementErr:
			invalid++
			continue
		case o.Memory == nil && len(codes) == 0:
			unchecked++
			continue
		}
		checked++
		if len(codes) > 0 {
			flagged++
		}
		peak, phase, source := int64(0), "", ""
		if o.Memory != nil {
			source = o.Memory.Memory.Source.String()
			for _, g := range o.Memory.Groups {
				if g.PeakBytes > peak {
					peak, phase = g.PeakBytes, g.PeakPhase.String()
				}
			}
		}
		fmt.Printf("%-70s %2d node(s) %-30s %6.2f GiB peak (%s) %s\n", rel, cfg.NumNodes, source, float64(peak)/(1<<30), phase, strings.Join(codes, " "))
	}
	fmt.Printf("RLinf examples: %d checked for memory (%d with memory diagnostics), %d not checked (model unknown), %d not valid placements on H100 nodes\n",
		checked, flagged, unchecked, invalid)
}
