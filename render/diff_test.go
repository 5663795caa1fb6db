package render_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/render"
)

// rec is a worker on node (host) with devices hw, visible as the same
// numbers, and the environment RANK, NODE_RANK plus the pairs in env.
func rec(rank, node int, host string, hw []int, env ...string) model.WorkerRecord {
	vis := []string{}
	for _, h := range hw {
		vis = append(vis, strconv.Itoa(h))
	}
	e := map[string]string{"RANK": strconv.Itoa(rank), "NODE_RANK": strconv.Itoa(node)}
	for i := 0; i+1 < len(env); i += 2 {
		e[env[i]] = env[i+1]
	}
	return model.WorkerRecord{Placement: model.Placement{Rank: rank, ClusterNodeRank: node, LocalHardwareRanks: hw, VisibleAccelerators: vis}, Hostname: host, Env: e}
}

// diffCase is a re-plan after node 1 failed: actor's ranks 4-7 move from
// node 1 to node 2 (same devices), rollout's rank 1 changes devices, two
// env-only changes in a run, inference shrinks, reward goes, env workers
// come; a component that did not change.
func diffCase() (old, new *model.PlanRecords) {
	var oa, na []model.WorkerRecord
	for r := range 8 {
		node := r / 4
		oa = append(oa, rec(r, node, "gpu-"+strconv.Itoa(node), []int{r % 4}))
		if node == 1 {
			node = 2
		}
		na = append(na, rec(r, node, "gpu-"+strconv.Itoa(node), []int{r % 4}))
	}
	rollout := func(devices []int, extra ...string) []model.WorkerRecord {
		return []model.WorkerRecord{rec(0, 0, "gpu-0", []int{0, 1}, extra...), rec(1, 0, "gpu-0", devices, extra...), rec(2, 0, "gpu-0", []int{4, 5}, extra...)}
	}
	nr := rollout([]int{6, 7}, "SGLANG_PORT", "9000")
	nr[1].VisibleAccelerators = []string{"7", "6"}
	delete(nr[2].Env, "NODE_RANK")
	old = &model.PlanRecords{Components: []model.ComponentRecords{
		{Name: "actor", Workers: oa},
		{Name: "rollout", Workers: rollout([]int{2, 3}, "SGLANG_PORT", "8000")},
		{Name: "inference", Workers: []model.WorkerRecord{rec(0, 3, "gpu-3", []int{0}), rec(1, 3, "gpu-3", []int{1}), rec(2, 3, "gpu-3", []int{2})}},
		{Name: "reward", Workers: []model.WorkerRecord{rec(0, 0, "gpu-0", nil)}},
		{Name: "agent", Workers: []model.WorkerRecord{rec(0, 0, "", nil), rec(1, 1, "", nil)}},
	}}
	new = &model.PlanRecords{Components: []model.ComponentRecords{
		{Name: "actor", Workers: na},
		{Name: "rollout", Workers: nr},
		{Name: "inference", Workers: []model.WorkerRecord{rec(0, 3, "gpu-3", []int{0})}},
		{Name: "env", Workers: []model.WorkerRecord{rec(0, 0, "gpu-0", nil), rec(1, 2, "gpu-2", nil)}},
		{Name: "agent", Workers: []model.WorkerRecord{rec(0, 0, "", nil), rec(1, 1, "", nil)}},
	}}
	return old, new
}

func TestDiffGolden(t *testing.T) {
	old, new := diffCase()
	d := model.DiffPlans(old, new)
	same := model.DiffPlans(old, old)
	for _, g := range []struct {
		file string
		d    *model.PlanDiff
		json bool
	}{{"diff.txt", &d, false}, {"diff.json", &d, true}, {"diff-same.txt", &same, false}, {"diff-same.json", &same, true}} {
		var b bytes.Buffer
		write := render.WriteDiffTable
		if g.json {
			write = render.WriteDiffJSON
		}
		if err := write(&b, g.d, "old.json", "train.yaml"); err != nil {
			t.Fatal(err)
		}
		golden(t, g.file, b.Bytes())
	}
}

// TestDiffJSON: the document's counts agree with the diff, and empty
// lists are [] rather than null.
func TestDiffJSON(t *testing.T) {
	old, new := diffCase()
	d := model.DiffPlans(old, new)
	var b bytes.Buffer
	if err := render.WriteDiffJSON(&b, &d, "old.json", "train.yaml"); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b.Bytes(), []byte("null")) {
		t.Error("the document has a null")
	}
	var doc render.DiffDocument
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.FormatVersion != "1" || doc.Moved != 5 || doc.Changed != 7 || doc.Added != 2 || doc.Removed != 3 {
		t.Errorf("version %q, moved %d, changed %d, added %d, removed %d; want 1, 5, 7, 2, 3", doc.FormatVersion, doc.Moved, doc.Changed, doc.Added, doc.Removed)
	}
	if !reflect.DeepEqual(doc.ComponentsAdded, []string{"env"}) || !reflect.DeepEqual(doc.ComponentsRemoved, []string{"reward"}) {
		t.Errorf("components added %v, removed %v", doc.ComponentsAdded, doc.ComponentsRemoved)
	}
	actor := doc.Components["actor"]
	if len(actor.Changed) != 4 || actor.Unchanged != 4 || actor.Changed[0].Rank != 4 {
		t.Fatalf("actor: %+v", actor)
	}
	w := actor.Changed[0]
	want := render.DiffPair[render.DiffNode]{Old: render.DiffNode{ClusterNodeRank: 1, Hostname: "gpu-1"}, New: render.DiffNode{ClusterNodeRank: 2, Hostname: "gpu-2"}}
	if w.Node == nil || *w.Node != want || w.Devices != nil || w.Env == nil || !reflect.DeepEqual(w.Env.Changed, []string{"NODE_RANK"}) {
		t.Errorf("actor/4: %+v", w)
	}
	if inf := doc.Components["inference"]; inf.OldWorldSize != 3 || inf.NewWorldSize != 1 || !reflect.DeepEqual(inf.Removed, []int{1, 2}) {
		t.Errorf("inference: %+v", inf)
	}
}
