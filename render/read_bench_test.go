package render_test

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/render"
)

// BenchmarkReadPlanDocument8192 reads back the document of the 8,192-GPU
// benchmark layout (22,528 workers, about 35 MB indented): what
// `solve --from` and `plan --diff` read before anything else.
func BenchmarkReadPlanDocument8192(b *testing.B) {
	data := writeDoc(b, scaleInput(b, 8192))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := render.ReadPlanDocument(bytes.NewReader(data), "plan.json"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDiffPlans8192 diffs the 8,192-GPU layout's workers against a
// copy of them in which the workers of nodes 10 and up moved one node on
// (their CLUSTER_NODE_RANK with them): what `solve --from --without-node
// 10` prints.
func BenchmarkDiffPlans8192(b *testing.B) {
	old := scaleDocument(b, 8192).Records()
	new := scaleDocument(b, 8192).Records()
	for i := range new.Components {
		for j := range new.Components[i].Workers {
			if w := &new.Components[i].Workers[j]; w.ClusterNodeRank >= 10 {
				w.ClusterNodeRank++
				w.Env["CLUSTER_NODE_RANK"] = strconv.Itoa(w.ClusterNodeRank)
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if d := model.DiffPlans(old, new); d.Moved == 0 {
			b.Fatal("no worker moved")
		}
	}
}
