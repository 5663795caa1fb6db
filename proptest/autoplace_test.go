package proptest

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/pipeline"
	"github.com/rlsolve/rlsolve/suggest"
)

// autoplaceCase is one entry of autoplace.json (conformance/README.md).
type autoplaceCase struct {
	Name   string `json:"name"`
	Inputs struct {
		TaskType    string          `json:"task_type"`
		GPUs        int             `json:"gpus"`
		GPUsPerNode int             `json:"gpus_per_node"`
		Config      json.RawMessage `json:"config"`
	} `json:"inputs"`
	Expect struct {
		Placement map[string][2]int `json:"placement"`
		TotalCost *float64          `json:"total_cost"`
		Error     *string           `json:"error"`
	} `json:"expect"`
	Audit struct {
		BestAll *struct {
			TotalCost float64           `json:"total_cost"`
			Placement map[string][2]int `json:"placement"`
		} `json:"best_all"`
	} `json:"audit"`
}

func autoplaceFile() string {
	if d := os.Getenv("RLSOLVE_CONFORMANCE_DIR"); d != "" {
		return filepath.Join(d, "autoplace.json")
	}
	return filepath.Join("..", "testdata", "conformance", "autoplace.json")
}

// sameCost compares modeled costs computed in different orders.
func sameCost(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// layoutOf turns the toolkit's {role: [first, last]} into a layout; ok is
// false for placements outside the search space (neither collocated nor
// a contiguous split in placement order).
func layoutOf(task string, n int, pl map[string][2]int) (suggest.Layout, bool) {
	all := [2]int{0, n - 1}
	order := []string{"rollout", "inference", "actor"}
	if task == suggest.TaskEmbodied {
		if pl["actor"] != all {
			return suggest.Layout{}, false
		}
		order = []string{"env", "env_rollout"}
	}
	colloc := true
	for _, r := range order {
		if p, ok := pl[r]; ok && p != all {
			colloc = false
		}
	}
	if colloc {
		return suggest.Layout{Collocated: true}, true
	}
	var l suggest.Layout
	next := 0
	for i, r := range order {
		p, ok := pl[r]
		if !ok {
			continue
		}
		if p[0] != next || p[1] < p[0] {
			return l, false
		}
		l.Sizes[i] = p[1] - p[0] + 1
		next = p[1] + 1
	}
	return l, next == n
}

// judgeAutoplace runs suggest on one case and returns why it fails ("" when
// it passes): the best suggestion must pass check; for reasoning it must
// cost no more than the toolkit's answer when that answer is valid, and
// exactly the audited optimum when that optimum is valid; for embodied
// (where rlsolve's model deliberately differs, spec W4) no more than the
// toolkit's answer and the audited optimum priced by rlsolve's model, when
// those are valid. References are re-priced by rlsolve's model: for
// reasoning the price must equal what the corpus says.
func judgeAutoplace(c autoplaceCase) string {
	spec, ds := suggest.Load(c.Name+".json", c.Inputs.Config)
	if spec == nil {
		return "config not read: " + autoplaceFirstError(ds)
	}
	cl, err := suggest.UniformCluster(c.Inputs.GPUs, c.Inputs.GPUsPerNode)
	if err != nil {
		return "cluster: " + err.Error()
	}
	reasoning := spec.Task == suggest.TaskReasoning
	type ref struct {
		what string
		pl   map[string][2]int
		cost *float64
	}
	refs := []ref{{"toolkit answer", c.Expect.Placement, c.Expect.TotalCost}}
	if b := c.Audit.BestAll; b != nil {
		refs = append(refs, ref{"audited optimum", b.Placement, &b.TotalCost})
	}
	var valid []ref
	var priced []float64
	for _, r := range refs {
		if r.pl == nil {
			continue
		}
		l, ok := layoutOf(spec.Task, c.Inputs.GPUs, r.pl)
		if !ok {
			if reasoning {
				return fmt.Sprintf("%s %v is outside the search space", r.what, r.pl)
			}
			continue
		}
		ev, err := suggest.Evaluate(spec, cl, l)
		if err != nil {
			return fmt.Sprintf("%s: %v", r.what, err)
		}
		if !ev.FilterAgrees {
			return fmt.Sprintf("%s %v: the layout filter and the check disagree", r.what, r.pl)
		}
		if reasoning && r.cost != nil && !sameCost(ev.Cost, *r.cost) {
			return fmt.Sprintf("%s %v: rlsolve prices it %.12g, the corpus says %.12g", r.what, r.pl, ev.Cost, *r.cost)
		}
		if ev.Valid && !math.IsInf(ev.Cost, 1) {
			valid = append(valid, r)
			if reasoning && r.cost != nil {
				priced = append(priced, *r.cost) // what the corpus says
			} else {
				priced = append(priced, ev.Cost)
			}
		}
	}
	res, err := suggest.Suggest(spec, cl, suggest.Options{Top: 3})
	if err != nil {
		if len(valid) > 0 {
			return fmt.Sprintf("no suggestion (%v), but the %s is valid", err, valid[0].what)
		}
		return ""
	}
	for i, s := range res.Suggestions {
		if why := checkClean(s.Config, cl, spec.Task); why != "" {
			return fmt.Sprintf("suggestion %d does not check clean: %s", i+1, why)
		}
		if i > 0 && s.TotalCost < res.Suggestions[i-1].TotalCost {
			return "suggestions not sorted by cost"
		}
	}
	best := res.Suggestions[0].TotalCost
	for i, r := range valid {
		switch {
		case best > priced[i] && !sameCost(best, priced[i]):
			return fmt.Sprintf("best suggestion costs %.12g, more than the valid %s (%.12g)", best, r.what, priced[i])
		case reasoning && r.what == "audited optimum" && !sameCost(best, priced[i]):
			return fmt.Sprintf("best suggestion costs %.12g, the valid audited optimum %.12g", best, priced[i])
		}
	}
	if reasoning && c.Audit.BestAll != nil && best < c.Audit.BestAll.TotalCost && !sameCost(best, c.Audit.BestAll.TotalCost) {
		return fmt.Sprintf("best suggestion costs %.12g, below the audited optimum %.12g over a larger space", best, c.Audit.BestAll.TotalCost)
	}
	return ""
}

// checkClean runs the real check on a suggestion's config.
func checkClean(cfg []byte, cl *suggest.Cluster, task string) string {
	mode := model.ClassModelParallel
	if task == suggest.TaskEmbodied {
		mode = model.ClassHybrid
	}
	o := pipeline.CheckBytes("suggestion.yaml", cfg, pipeline.Options{Inventory: cl.Inventory, GPUsPerNode: -1, Class: mode})
	for _, d := range o.Diagnostics {
		if d.Severity >= model.SeverityWarning {
			return d.Code + " " + d.Summary
		}
	}
	return ""
}

func autoplaceFirstError(ds model.Diagnostics) string {
	for _, d := range ds {
		if d.Severity == model.SeverityError {
			return d.Code + " " + d.Summary
		}
	}
	return "unknown"
}

// TestAutoplaceConformance judges `suggest` on every autoplace case.
func TestAutoplaceConformance(t *testing.T) {
	data, err := os.ReadFile(autoplaceFile())
	if os.IsNotExist(err) && os.Getenv("RLSOLVE_CONFORMANCE_DIR") != "" {
		t.Skipf("no autoplace.json in RLSOLVE_CONFORMANCE_DIR")
	}
	if err != nil {
		t.Fatal(err)
	}
	var cases []autoplaceCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no autoplace cases")
	}
	passed, failed := 0, 0
	for _, c := range cases {
		if why := judgeAutoplace(c); why != "" {
			failed++
			t.Logf("FAIL autoplace %s: %s", c.Name, strings.ReplaceAll(why, "\n", " "))
		} else {
			passed++
		}
	}
	t.Logf("autoplace: %d passed, %d failed", passed, failed)
	fmt.Printf("autoplace: %d passed, %d failed\n", passed, failed)
	if failed > 0 {
		t.Errorf("%d autoplace cases failed", failed)
	}
}
