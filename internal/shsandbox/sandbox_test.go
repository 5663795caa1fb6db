package shsandbox

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
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
		got = append(got, f.Text+"@"+strconv.Itoa(f.Span.Line)+":"+strconv.Itoa(f.Span.Col))
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

func TestNothingRuns(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "must-not-exist")
	keep := filepath.Join(dir, "keep.txt")
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "touch " + victim + "\nrm -rf /\necho hi > " + victim + "\nmkdir -p " + victim + "d\n" +
		"echo gone > " + keep + "\nrm -f " + keep + "\ncat " + keep + " > " + victim + "\n"
	r, err := run(t, src, Options{Dir: dir, Roots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(keep); err != nil || string(data) != "mine" {
		t.Fatalf("%s changed: %q, %v", keep, data, err)
	}
	if string(r.Files[victim]) != "gone\n" {
		t.Errorf("the script's own view: %q", r.Files[victim])
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
		{"doubling a variable", "X=x; while true; do X=$X$X; done", "variables hold more than"},
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

// The stand-ins answer deterministically; the answers reach the traced
// command's arguments.
func TestStandIns(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"python3 x.py $(nproc)", "64"},
		{"python3 x.py $(nvidia-smi -L | wc -l)", "8"},
		{"python3 x.py $(hostname) $(hostname -I)", "node0 10.0.0.1"},
		{"python3 x.py $(date +%Y%m%d_%H%M%S)", "20000101_000000"},
		{"F=$(mktemp /tmp/a_XXXXXX.yaml); echo hi > $F; python3 x.py $F $(cat $F)", "/tmp/a_000001.yaml hi"},
		{"D=$(mktemp -d); python3 x.py $D", TempDir + "/tmp.0000000001"},
		{"python3 x.py $(basename /a/b.sh .sh) $(dirname /a/b.sh) $(echo AbC | tr '[:upper:]' '[:lower:]')", "b /a abc"},
		{"python3 x.py $(seq 2 2 6)", "2 4 6"},
		{"N=${N:-4}; python3 x.py $((N * 2)) ${M:-$N}", "8 4"},
	} {
		r, err := run(t, c.src, Options{})
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		j := judged(r)
		if j == nil {
			t.Fatalf("%q: no command", c.src)
		}
		if got := strings.Join(j.Argv[2:], " "); got != c.want {
			t.Errorf("%q: %q, want %q", c.src, got, c.want)
		}
	}
}

// A value computed from a variable nobody set is unknown, through
// assignments; one with a default is not.
func TestUnknownThroughAssignments(t *testing.T) {
	r, err := run(t, "TOTAL=$((NODES * 8))\nG=${GPUS:-8}\npython3 x.py $TOTAL $G\n", Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := judged(r).Fields
	if len(f) != 4 || len(f[2].Unknown) != 1 || f[2].Unknown[0].Name != "NODES" || f[2].Span.Line != 1 || len(f[3].Unknown) != 0 || f[3].Span.Line != 2 {
		t.Fatalf("fields %+v", f)
	}
}
