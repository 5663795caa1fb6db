package shsandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func entry(argv []string) bool {
	for _, a := range argv {
		if strings.HasSuffix(a, ".py") {
			return true
		}
	}
	return false
}

func run(t *testing.T, src string, opt Options) (*Result, error) {
	t.Helper()
	if opt.Name == "" {
		opt.Name = "run.sh"
	}
	if opt.Entry == nil {
		opt.Entry = entry
	}
	opt.GPUs, opt.CPUs, opt.Hostname, opt.IP = 8, 64, "node0", "10.0.0.1"
	return Run(context.Background(), []byte(src), opt)
}

func judged(r *Result) *Call {
	for i := range r.Calls {
		if r.Calls[i].Fields != nil {
			return &r.Calls[i]
		}
	}
	return nil
}

func TestOriginsOfArrayElements(t *testing.T) {
	src := `#!/bin/bash
pkill -9 python
NUM=$(nvidia-smi -L | wc -l)
ROLLOUT_ARGS=(
   --rollout-num-gpus-per-engine 2
   --rollout-num-gpus ${NUM}
)
ROLLOUT_ARGS+=(--colocate)
ENGINE=${ENGINE_SIZE:-4}
ray job submit --address x -- python3 train.py --actor-num-nodes $NODES "${ROLLOUT_ARGS[@]}" --x $ENGINE
`
	r, err := run(t, src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := judged(r)
	if c == nil {
		t.Fatalf("no judged call in %+v", r.Calls)
	}
	got := []string{}
	for _, f := range c.Fields {
		got = append(got, f.Text+"@"+itoa(f.Span.Line)+":"+itoa(f.Span.Col))
		if f.Hole {
			got = append(got, "hole:"+f.Unknown[0].Name)
		}
	}
	t.Log(strings.Join(got, " "))
	want := "--rollout-num-gpus-per-engine@5:4 2@5:34 --rollout-num-gpus@6:4 8@3:5"
	if !strings.Contains(strings.Join(got, " "), want) {
		t.Errorf("got %s, want it to contain %s", strings.Join(got, " "), want)
	}
}

func itoa(n int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + fmtInt(n)) }

func fmtInt(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return fmtInt(n/10) + string(rune('0'+n%10))
}

func TestNothingRuns(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "must-not-exist")
	src := "touch " + victim + "\nrm -rf /\necho hi > " + victim + "\nmkdir -p " + victim + "d\n"
	if _, err := run(t, src, Options{Dir: dir, Roots: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(victim); !os.IsNotExist(err) {
		t.Fatalf("%s exists after the script: %v", victim, err)
	}
	if _, err := os.Stat(victim + "d"); !os.IsNotExist(err) {
		t.Fatalf("%sd exists", victim)
	}
}

// Hostile scripts end with a clear error, bounded in the sandbox's own
// terms (steps, call depth, bytes), not by the clock.
func TestHostileScripts(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"endless loop", "while true; do :; done", "more than 100000 steps"},
		{"endless assignments", "while true; do X=$((X+1)); done", "more than 100000 steps"},
		{"recursion", "f(){ f; }; f", "more than 64 deep"},
		// Background jobs die with the script's context: bounded, no error needed.
		{"fork bomb", "bomb(){ bomb|bomb& }; bomb", ""},
		{"nested substitutions", strings.Repeat("$(", 300) + strings.Repeat(")", 300), "nest more than 200 deep"},
		{"a large script", strings.Repeat("# padding\n", 60000), "at most"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := run(t, c.src, Options{})
			if c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
			if r != nil && r.Steps > DefaultLimits.MaxSteps+1000 {
				t.Errorf("%d steps", r.Steps)
			}
		})
	}
}

func TestReadsConfined(t *testing.T) {
	dir := t.TempDir()
	r, _ := run(t, "cat /etc/shadow\nX=$(cat /etc/hostname)\nsource /etc/passwd\n", Options{Dir: dir, Roots: []string{dir}})
	if r == nil || len(r.Refused) != 3 || r.Refused[0].Path != "/etc/shadow" || !strings.Contains(r.Refused[0].Why, "outside the folders") {
		t.Fatalf("refused %+v", r.Refused)
	}
}
