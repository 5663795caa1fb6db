package proptest

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The memory-real corpus (conformance/memory-real/): public reports of real
// runs, each rebuilt as an rlsolve input with what happened. A case is
// judged as its README says: the verdict from `rlsolve check --output
// json`'s memory diagnostics, the reported numbers from `rlsolve plan
// --output json`'s memory section within the case's tolerance. The binary
// is built once and run as a user runs it.

type realCase struct {
	Name        string             `json:"name"`
	FrontEnd    string             `json:"front_end"`
	Input       string             `json:"input"`
	Inventory   string             `json:"inventory"`
	ModelConfig *string            `json:"model_config"`
	Verdict     string             `json:"verdict"`
	Reported    map[string]float64 `json:"reported"`
	Tolerance   map[string]float64 `json:"tolerance"`
	// SameTrainPhaseAs names a case whose run this one repeats with a
	// default written out: their train phases must be equal.
	SameTrainPhaseAs string `json:"same_train_phase_as"`
}

var (
	rlsolveOnce sync.Once
	rlsolveBin  string
	rlsolveErr  error
)

// rlsolveBinary builds cmd/rlsolve once per test binary.
func rlsolveBinary(t *testing.T) string {
	t.Helper()
	rlsolveOnce.Do(func() {
		dir, err := os.MkdirTemp("", "rlsolve-memory-real")
		if err != nil {
			rlsolveErr = err
			return
		}
		rlsolveBin = filepath.Join(dir, "rlsolve")
		out, err := exec.Command("go", "build", "-o", rlsolveBin, "github.com/rlsolve/rlsolve/cmd/rlsolve").CombinedOutput()
		if err != nil {
			rlsolveErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if rlsolveErr != nil {
		t.Fatal(rlsolveErr)
	}
	return rlsolveBin
}

// realArgs is the case's command line after the subcommand.
func (c realCase) args() []string {
	var a []string
	switch c.FrontEnd {
	case "slime":
		a = []string{"--slime", "@" + c.Input}
	default:
		a = []string{c.Input}
	}
	a = append(a, "--inventory", c.Inventory, "--output", "json")
	if c.ModelConfig != nil && *c.ModelConfig != "" {
		a = append(a, "--model-config", *c.ModelConfig)
	}
	return a
}

// runJSON runs the binary in dir and decodes its standard output; an exit
// status of 1 (errors found) still has a document.
func runJSON(bin, dir string, args []string, v any) error {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if jerr := json.Unmarshal(out, v); jerr != nil {
		return fmt.Errorf("rlsolve %s: %v (%v)", strings.Join(args, " "), jerr, err)
	}
	return nil
}

type realDiag struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Summary  string `json:"summary"`
}

// realVerdict is what check says of memory: fits (no memory warning or
// error), runs (no error and no warning beyond thin headroom, RLS-W1002),
// can-oom (any memory warning or error).
func realVerdict(ds []realDiag) (string, []string) {
	verdict := "fits"
	var said []string
	for _, d := range ds {
		if !isMemoryCode(d.Code) || d.Severity == "note" {
			continue
		}
		said = append(said, d.Code+" "+d.Summary)
		switch {
		case d.Severity == "error" || d.Code != "RLS-W1002":
			verdict = "can-oom"
		case verdict == "fits":
			verdict = "runs"
		}
	}
	return verdict, said
}

// verdictMatches: a run that fits also runs.
func verdictMatches(want, got string) bool {
	return want == got || want == "runs" && got == "fits"
}

type realPlan struct {
	Memory *struct {
		GPUs []struct {
			Phases []struct {
				Phase string `json:"phase"`
				Bytes int64  `json:"bytes"`
			} `json:"phases"`
			Engines []struct {
				Component string `json:"component"`
				Tokens    int64  `json:"kv_tokens"`
			} `json:"engines"`
		} `json:"gpus"`
	} `json:"memory"`
}

// predicted reads a reported quantity from the plan's memory section.
func (p realPlan) predicted(key string) (float64, bool) {
	if p.Memory == nil {
		return 0, false
	}
	best, found := 0.0, false
	for _, g := range p.Memory.GPUs {
		switch key {
		case "kv_tokens":
			for _, e := range g.Engines {
				if e.Component == "rollout" && !found {
					best, found = float64(e.Tokens), true
				}
			}
		case "train_peak_gib":
			for _, ph := range g.Phases {
				if ph.Phase == "train" && float64(ph.Bytes)/(1<<30) > best {
					best, found = float64(ph.Bytes)/(1<<30), true
				}
			}
		}
	}
	return best, found
}

// runRealCase returns why the case fails ("" when it passes) and a line of
// what was predicted.
func runRealCase(bin, dir string, c realCase) (string, string) {
	var chk struct {
		Diagnostics []realDiag `json:"diagnostics"`
	}
	if err := runJSON(bin, dir, append([]string{"check"}, c.args()...), &chk); err != nil {
		return err.Error(), ""
	}
	var errs []string
	verdict, said := realVerdict(chk.Diagnostics)
	if !verdictMatches(c.Verdict, verdict) {
		errs = append(errs, fmt.Sprintf("verdict %s, want %s (%s)", verdict, c.Verdict, strings.Join(said, "; ")))
	}
	line := "verdict " + verdict
	for _, w := range said {
		line += " [" + w + "]"
	}
	if len(c.Reported) > 0 || c.SameTrainPhaseAs != "" {
		var plan realPlan
		if err := runJSON(bin, dir, append([]string{"plan"}, c.args()...), &plan); err != nil {
			return err.Error(), line
		}
		keys := make([]string, 0, len(c.Reported))
		for k := range c.Reported {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			want := c.Reported[k]
			got, ok := plan.predicted(k)
			if !ok {
				errs = append(errs, fmt.Sprintf("%s: the plan's memory section has none", k))
				continue
			}
			rel := math.Abs(got-want) / math.Abs(want)
			line += fmt.Sprintf(", %s %.6g (reported %.6g, %+.1f%%)", k, got, want, 100*(got-want)/want)
			if tol := c.Tolerance[k]; !(rel <= tol) {
				errs = append(errs, fmt.Sprintf("%s %.6g, reported %.6g: off by %.1f%%, tolerance %.0f%%", k, got, want, 100*rel, 100*tol))
			}
		}
	}
	return strings.Join(errs, "; "), line
}

// TestMemoryReal judges every case of memory-real/cases.json and prints
// `memory-real: N passed, M failed`.
func TestMemoryReal(t *testing.T) {
	dir := filepath.Join(corpusDir(), "memory-real")
	data, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatalf("memory-real corpus: %v", err)
	}
	var file struct {
		Cases []realCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatalf("memory-real corpus: %v", err)
	}
	if len(file.Cases) == 0 {
		t.Fatal("the memory-real corpus has no cases")
	}
	bin := rlsolveBinary(t)
	byName := map[string]realCase{}
	for _, c := range file.Cases {
		byName[c.Name] = c
	}
	passed, failed := 0, 0
	for _, c := range file.Cases {
		why, line := runRealCase(bin, dir, c)
		if o, ok := byName[c.SameTrainPhaseAs]; ok && why == "" {
			why = sameTrainPhase(bin, dir, c, o)
		}
		t.Logf("%s: %s", c.Name, line)
		if why == "" {
			passed++
			continue
		}
		failed++
		t.Logf("FAIL memory-real %s: %s", c.Name, why)
		fmt.Printf("FAIL memory-real %s: %s\n", c.Name, why)
	}
	fmt.Printf("memory-real: %d passed, %d failed\n", passed, failed)
	if failed > 0 {
		t.Fail()
	}
}

// sameTrainPhase compares two cases' train phases on their most loaded GPU.
func sameTrainPhase(bin, dir string, a, b realCase) string {
	var pa, pb realPlan
	for _, x := range []struct {
		c realCase
		p *realPlan
	}{{a, &pa}, {b, &pb}} {
		if err := runJSON(bin, dir, append([]string{"plan"}, x.c.args()...), x.p); err != nil {
			return err.Error()
		}
	}
	ta, oka := pa.predicted("train_peak_gib")
	tb, okb := pb.predicted("train_peak_gib")
	if !oka || !okb || ta != tb {
		return fmt.Sprintf("train phase %.4g GiB, %s's %.4g GiB: the same run", ta, b.Name, tb)
	}
	return ""
}
