package exec

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/internal/raycli"
	"github.com/rlsolve/rlsolve/internal/raytest"
)

// The live tests launch on a real Ray cluster (internal/raytest: the one
// scripts/ray-test-cluster.sh starts). Without one they skip, unless
// RLSOLVE_REQUIRE_RAY is set (CI), when they fail.

type liveRay struct {
	addr, python string
	bin, dir     string
	inv          string   // the live inventory, written by topology --ray
	ips          []string // node rank -> IP
	gpus         int      // GPUs in all
	client       RayAPI
}

func rayLive(t *testing.T) *liveRay {
	t.Helper()
	rc := raytest.Require(t)
	addr := rc.Address
	l := &liveRay{addr: addr, python: rc.Python, bin: buildRlsolve(t), dir: t.TempDir()}
	c, err := raycli.New(addr, raycli.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l.client = NewRayAPI(c)
	out, err := osexec.Command(l.bin, "topology", "--ray", addr).Output()
	if err != nil {
		t.Fatalf("topology --ray %s: %v", addr, err)
	}
	l.inv = filepath.Join(l.dir, "inventory.yaml")
	if err := os.WriteFile(l.inv, out, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`ip: "?([0-9.]+)"?`).FindAllStringSubmatch(string(out), -1) {
		l.ips = append(l.ips, m[1])
	}
	for _, m := range regexp.MustCompile(`count: ([0-9]+)`).FindAllStringSubmatch(string(out), -1) {
		n, _ := strconv.Atoi(m[1])
		l.gpus += n
	}
	if len(l.ips) == 0 || l.gpus < 2 {
		t.Fatalf("the live inventory has %d nodes and %d GPUs:\n%s", len(l.ips), l.gpus, out)
	}
	return l
}

// config is a plan over every GPU of the cluster: actor on the first half,
// rollout on the rest.
func (l *liveRay) config(t *testing.T) string {
	half := l.gpus / 2
	cfg := fmt.Sprintf("cluster:\n  num_nodes: %d\n  component_placement:\n    actor: 0-%d\n    rollout: %d-%d\n", len(l.ips), half-1, half, l.gpus-1)
	file := filepath.Join(l.dir, "train.yaml")
	if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func (l *liveRay) launchArgs(cfg string, extra ...string) []string {
	args := []string{"launch", cfg, "--inventory", l.inv, "--backend", "ray", "--ray-address", l.addr, "--log-dir", filepath.Join(l.dir, "logs"), "--grace", "5s"}
	if l.python != "" {
		args = append(args, "--ray-python", l.python)
	}
	return append(args, extra...)
}

// shown is what each worker printed: the variables the plan sets.
const showVars = "RANK WORKER_NAME CUDA_VISIBLE_DEVICES CLUSTER_NODE_RANK LOCAL_RANK WORLD_SIZE MASTER_ADDR"

func show() string {
	var b strings.Builder
	for _, v := range strings.Fields(showVars) {
		fmt.Fprintf(&b, "%s=${%s-unset} ", v, v)
	}
	return b.String()
}

// TestRayLiveEnv: every worker, on the node the plan says, gets what
// `rlsolve plan --output env` prints, and its component's MASTER_PORT.
func TestRayLiveEnv(t *testing.T) {
	l := rayLive(t)
	cfg := l.config(t)
	report := filepath.Join(l.dir, "report.json")
	run := `*=sh -c 'echo "` + strings.ReplaceAll(show(), `"`, `\"`) + `MASTER_PORT=$MASTER_PORT"'`
	out, err := osexec.Command(l.bin, l.launchArgs(cfg, "--report", report, "--run", run)...).CombinedOutput()
	if err != nil {
		t.Fatalf("launch: %v\n%s", err, out)
	}
	got := map[string]string{}
	ports := map[string]map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		who, vars, ok := strings.Cut(line, ": ")
		if !ok || !strings.Contains(vars, "WORKER_NAME=") {
			continue
		}
		before, port, _ := strings.Cut(vars, "MASTER_PORT=")
		got[who] = strings.TrimSpace(before)
		comp, _, _ := strings.Cut(who, "/")
		if ports[comp] == nil {
			ports[comp] = map[string]bool{}
		}
		ports[comp][port] = true
	}
	if len(got) != l.gpus {
		t.Fatalf("%d workers printed, want %d:\n%s", len(got), l.gpus, out)
	}
	for comp, ps := range ports {
		if len(ps) != 1 || ps[""] {
			t.Errorf("%s: MASTER_PORT %v, want one port for the component", comp, ps)
		}
	}
	hosts := reportHosts(t, report)
	for who, vars := range got {
		comp, rank, _ := strings.Cut(who, "/")
		lines, err := osexec.Command(l.bin, "plan", cfg, "--inventory", l.inv, "--output", "env", "--component", comp, "--rank", rank).Output()
		if err != nil {
			t.Fatalf("plan --output env %s: %v", who, err)
		}
		want, err := osexec.Command("sh", "-c", `eval "$1"; echo "`+strings.ReplaceAll(show(), `"`, `\"`)+`"`, "sh", string(lines)).Output()
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(string(want)) != vars {
			t.Errorf("%s got\n  %s\nplan says\n  %s", who, vars, want)
		}
		node, _ := strconv.Atoi(regexp.MustCompile(`CLUSTER_NODE_RANK=(\d+)`).FindStringSubmatch(vars)[1])
		if hosts[who] != l.ips[node] {
			t.Errorf("%s ran on %s, the plan's node %d is %s", who, hosts[who], node, l.ips[node])
		}
	}
}

func reportHosts(t *testing.T, file string) map[string]string {
	t.Helper()
	var rep struct {
		Workers []struct {
			Component string `json:"component"`
			Rank      int    `json:"rank"`
			Host      string `json:"host"`
		} `json:"workers"`
	}
	b, err := os.ReadFile(file)
	if err != nil || json.Unmarshal(b, &rep) != nil {
		t.Fatalf("report %s: %v %s", file, err, b)
	}
	out := map[string]string{}
	for _, w := range rep.Workers {
		out[fmt.Sprintf("%s/%d", w.Component, w.Rank)] = w.Host
	}
	return out
}

// TestRayLiveFailure: one worker exiting 3 stops the others, and the
// launch exits 3.
func TestRayLiveFailure(t *testing.T) {
	l := rayLive(t)
	cmd := osexec.Command(l.bin, l.launchArgs(l.config(t), "--run", `actor=sh -c 'if [ "$RANK" = 0 ]; then sleep 2; exit 3; fi; exec sleep 120'`, "--run", "rollout=sleep 120")...)
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 3 {
		t.Fatalf("exit %v, want 3:\n%s", err, out)
	}
	for _, want := range []string{"launch: actor/0 on ", "failed first", fmt.Sprintf("stopped the %d other worker(s)", l.gpus-1), "cleanup: no live actor"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

// TestRayLiveSignals: SIGINT or SIGTERM after the first worker line, and
// SIGKILL followed by --stop, leave no actor, no placement group and no
// worker process within 30s.
func TestRayLiveSignals(t *testing.T) {
	l := rayLive(t)
	cfg := l.config(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := osexec.Command(l.bin, l.launchArgs(cfg, "--run", `*=sh -c 'echo up; exec sleep 120'`)...)
			stdout, _ := cmd.StdoutPipe()
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(stdout)
			if !sc.Scan() {
				t.Fatalf("no worker line; stderr:\n%s", stderr.String())
			}
			_ = cmd.Process.Signal(sig)
			go func() {
				for sc.Scan() {
				}
			}()
			err := cmd.Wait()
			id := regexp.MustCompile(`--stop (\S+)\)`).FindStringSubmatch(stderr.String())
			if id == nil {
				t.Fatalf("no launch id in:\n%s", stderr.String())
			}
			if sig == syscall.SIGKILL {
				out, err := osexec.Command(l.bin, "launch", "--backend", "ray", "--ray-address", l.addr, "--stop", id[1]).CombinedOutput()
				if err != nil {
					t.Fatalf("--stop: %v\n%s", err, out)
				}
			} else if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) {
				t.Errorf("exit %v (%d), want %d:\n%s", err, code, 128+int(sig), stderr.String())
			}
			l.nothingLeft(t, id[1])
		})
	}
}

// nothingLeft: no live actor in the launch's namespace, no placement
// group of its, no process carrying its id (the cluster's nodes are this
// machine's processes), within 30s.
func (l *liveRay) nothingLeft(t *testing.T, id string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		left, err := l.client.Leftovers(context.Background(), RayNamespace(id), rayPGName(id))
		procs := marked(procTable(), id)
		if err == nil && len(left) == 0 && len(procs) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30s: %v %v, processes %v", left, err, procs)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// TestRayLiveExample runs examples/ray-launch's command on the 4-node test
// cluster it is written for: every worker prints its line, the launch ends
// 0 and leaves nothing.
func TestRayLiveExample(t *testing.T) {
	l := rayLive(t)
	if len(l.ips) != 4 || l.gpus != 8 {
		t.Skipf("the example is written for the 4-node, 8-GPU test cluster; this one has %d nodes, %d GPUs", len(l.ips), l.gpus)
	}
	worker, err := filepath.Abs(filepath.Join("..", "examples", "ray-launch", "worker.py"))
	if err != nil {
		t.Fatal(err)
	}
	args := l.launchArgs(filepath.Join("..", "examples", "ray-launch", "train.yaml"), "--run", "*=python3 "+worker)
	out, err := osexec.Command(l.bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if n := strings.Count(string(out), "CLUSTER_NODE_RANK="); n != 8 {
		t.Errorf("%d worker lines, want 8:\n%s", n, out)
	}
	if !strings.Contains(string(out), "cleanup: no live actor") {
		t.Errorf("no cleanup note:\n%s", out)
	}
}

// TestRayLiveSlime: in slime mode every training rank and rollout engine
// worker lands on the (node, GPU) of the bundle the plan gives it: the
// placement group's bundles sorted as slime sorts them.
func TestRayLiveSlime(t *testing.T) {
	l := rayLive(t)
	g := l.gpus / len(l.ips)
	flags := fmt.Sprintf("--actor-num-nodes 1 --actor-num-gpus-per-node %d --rollout-num-gpus %d --rollout-num-gpus-per-engine %d --num-gpus-per-node %d",
		g, l.gpus-g, g, g)
	if len(l.ips) == 1 {
		flags = fmt.Sprintf("--actor-num-gpus-per-node 1 --rollout-num-gpus 1 --num-gpus-per-node %d", g)
	}
	table, err := osexec.Command(l.bin, "plan", "--slime", flags, "--inventory", l.inv).Output()
	if err != nil {
		t.Fatalf("plan --slime %s: %v", flags, err)
	}
	want := slimeTable(string(table))
	args := l.launchArgs("", "--slime", flags, "--run", `*=sh -c 'echo "$RLSOLVE_RAY_BUNDLE_IP/$RLSOLVE_RAY_BUNDLE_GPU"'`)
	args = append(args[:1], args[2:]...) // no config FILE: the layout is --slime's
	out, err := osexec.Command(l.bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("launch --slime: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^((?:actor|rollout)/\d+): (\S+)$`).FindAllStringSubmatch(string(out), -1) {
		got[m[1]] = m[2]
	}
	if len(want) == 0 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("workers on %v, the plan says %v\nplan:\n%s", got, want, table)
	}
}

// slimeTable reads plan's slime table: each worker's host and (first) GPU.
func slimeTable(s string) map[string]string {
	out := map[string]string{}
	comp := ""
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "actor:"), strings.HasPrefix(line, "rollout:"):
			comp = strings.TrimSuffix(f[0], ":")
		case len(f) >= 6 && f[0] != "RANK" && comp == "actor":
			out["actor/"+f[0]] = f[2] + "/" + f[4]
		case len(f) >= 6 && f[0] != "RANK" && comp == "rollout":
			out["rollout/"+f[0]] = f[3] + "/" + strings.FieldsFunc(f[5], func(r rune) bool { return r == '-' || r == ',' })[0]
		}
	}
	return out
}

// TestRayLiveSecondSignal: after the first SIGINT launch says it waits
// the grace and that a second Ctrl-C ends it now; the second ends it at
// once, the summary says the grace was cut short, and nothing is left.
func TestRayLiveSecondSignal(t *testing.T) {
	l := rayLive(t)
	args := l.launchArgs(l.config(t), "--run", `*=sh -c 'trap "" INT TERM; echo up; while :; do sleep 1; done'`)
	args[slices.Index(args, "--grace")+1] = "600s" // only the second signal can end it soon
	cmd := osexec.Command(l.bin, args...)
	stdout, _ := cmd.StdoutPipe()
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() {
		t.Fatalf("no worker line; stderr:\n%s", stderr.String())
	}
	go func() {
		for sc.Scan() {
		}
	}()
	_ = cmd.Process.Signal(syscall.SIGINT)
	note := "got SIGINT: waiting up to 10m0s (--grace) for the workers to stop; press Ctrl-C again to kill them now"
	waitFor(t, time.Minute, "the grace note", func() bool { return strings.Contains(stderr.String(), note) })
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	out := stderr.String()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %v (%d), want 130:\n%s", err, code, out)
	}
	want := fmt.Sprintf("%d got SIGKILL at once: a second signal cut the grace period short", l.gpus)
	if !strings.Contains(out, want) || strings.Contains(out, "after the grace period") || strings.Count(out, "press Ctrl-C again") != 1 {
		t.Errorf("want %q once in the summary, and one note:\n%s", want, out)
	}
	id := regexp.MustCompile(`--stop (\S+)\)`).FindStringSubmatch(out)
	if id == nil {
		t.Fatalf("no launch id in:\n%s", out)
	}
	l.nothingLeft(t, id[1])
}

// syncBuffer is a command's stderr read while it runs.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
