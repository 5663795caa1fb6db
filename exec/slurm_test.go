package exec

import (
	"context"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlsolve/rlsolve/internal/slurmcli"
	"github.com/rlsolve/rlsolve/internal/slurmtest"
	"github.com/rlsolve/rlsolve/render"
)

// allocate gets an allocation on the test cluster (n1-n4, 8 fake GPUs
// each) and cancels it when the test ends.
func allocate(t *testing.T) string {
	t.Helper()
	slurmtest.Require(t)
	// --immediate: salloc withdraws its request itself when the cluster is
	// busy for a minute (a killed salloc would leave it pending).
	name := fmt.Sprintf("rlsolve-exec-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := osexec.CommandContext(ctx, "salloc", "--no-shell", "--immediate=60", "--nodes=4", "--ntasks-per-node=8", "--gres=gpu:8",
		"--time=10", "--job-name="+name)
	out, err := cmd.CombinedOutput()
	m := regexp.MustCompile(`allocation (\d+)`).FindSubmatch(out)
	if err != nil || m == nil {
		_ = osexec.Command("scancel", "--name="+name).Run()
		t.Fatalf("salloc: %v: %s", err, out)
	}
	id := string(m[1])
	t.Cleanup(func() {
		_ = osexec.Command("scancel", id).Run()
	})
	return id
}

// ourSteps lists the steps of a launch that Slurm still knows.
func ourSteps(jobID, launchID string) []string {
	all, _ := (&slurmcli.Client{}).Steps(context.Background(), jobID)
	var steps []string
	for _, st := range all {
		if strings.Contains(st.Name, launchID) {
			steps = append(steps, st.ID+"|"+st.Name)
		}
	}
	return steps
}

// noSteps waits (briefly: slurmctld records a step's end just after srun
// returns) until none of the launch's steps is left.
func noSteps(t *testing.T, jobID, launchID string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		steps := ourSteps(jobID, launchID)
		if len(steps) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("steps left: %v", steps)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func slurmLauncher(t *testing.T, jobID string) *Slurm {
	return &Slurm{JobID: jobID, ShimArgv: []string{testBin(t), "__shim__"}}
}

// TestSlurmEnvContract launches slurm.yaml on the test cluster: every
// worker lands on its planned node, as the planned task, with the planned
// CUDA_VISIBLE_DEVICES (set inside the task: Slurm's own is replaced or
// removed) and the whole plan environment.
func TestSlurmEnvContract(t *testing.T) {
	jobID := allocate(t)
	bin := testBin(t)
	o := loadPlan(t, "slurm.yaml", bin)
	runs := allRun(o.Result, workerArgv(t, "env"))
	runs["env"] = []string{"python3", "__worker__", "env"}
	job := newTestJob(t, o.Result, runs)
	out := &output{}
	logDir := t.TempDir()
	rep, err := slurmLauncher(t, jobID).Launch(context.Background(), job, Options{Stdout: out, Stderr: out, LogDir: logDir, Grace: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ExitCode() != 0 {
		t.Fatalf("%s\n%s", rep.Summary(), out)
	}
	envs := workerEnvs(out.String())
	doc, err := render.NewDocument(o.RenderInput())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range doc.Order {
		port := ""
		for r, p := range doc.Components[name].Placements {
			who := fmt.Sprintf("%s/%d", name, r)
			got := envs[who]
			if got == nil {
				t.Fatalf("%s reported nothing:\n%s", who, out)
			}
			if got["SLURMD_NODENAME"] != p.Hostname || got["SLURM_PROCID"] != strconv.Itoa(r) {
				t.Errorf("%s ran on %s as task %s, planned %s task %d", who, got["SLURMD_NODENAME"], got["SLURM_PROCID"], p.Hostname, r)
			}
			for k, v := range p.Env {
				if g, ok := got[k]; !ok || g != v {
					t.Errorf("%s: %s=%q (set: %v), planned %q", who, k, g, ok, v)
				}
			}
			if p.Env["CUDA_VISIBLE_DEVICES"] == "" {
				if v, ok := got["CUDA_VISIBLE_DEVICES"]; ok {
					t.Errorf("CPU-only %s sees CUDA_VISIBLE_DEVICES=%q", who, v)
				}
			}
			if got[LaunchIDVar] != job.ID {
				t.Errorf("%s: %s=%q", who, LaunchIDVar, got[LaunchIDVar])
			}
			if port == "" {
				port = got["MASTER_PORT"]
			}
			if n, err := strconv.Atoi(got["MASTER_PORT"]); err != nil || n <= 0 || got["MASTER_PORT"] != port {
				t.Errorf("%s: MASTER_PORT %q, rank 0 has %q", who, got["MASTER_PORT"], port)
			}
		}
	}
	// Spelled out: shared GPUs across two nodes, two GPUs per worker, CPU-only.
	expect := map[string]map[string]string{
		"actor/1":     {"SLURMD_NODENAME": "n1", "CUDA_VISIBLE_DEVICES": "7", "RANK": "1", "WORLD_SIZE": "4", "NODE_RANK": "0", "MASTER_ADDR": "n1"},
		"rollout/2":   {"SLURMD_NODENAME": "n2", "CUDA_VISIBLE_DEVICES": "0", "RANK": "2", "NODE_RANK": "1", "LOCAL_RANK": "0", "MASTER_ADDR": "n1"},
		"inference/1": {"SLURMD_NODENAME": "n3", "CUDA_VISIBLE_DEVICES": "2,3", "RANK": "1", "WORLD_SIZE": "2", "MASTER_ADDR": "n3"},
		"env/2":       {"SLURMD_NODENAME": "n4", "RANK": "2", "WORLD_SIZE": "3", "ACCELERATOR_TYPE": "NO_ACCEL", "ROS_DOMAIN_ID": "7", "MASTER_ADDR": "n4"},
	}
	for who, kv := range expect {
		for k, v := range kv {
			if envs[who][k] != v {
				t.Errorf("%s: %s=%q, want %q", who, k, envs[who][k], v)
			}
		}
	}
	if !strings.Contains(out.String(), "env/1: ARGV0 "+bin+"\n") {
		t.Error("python3 was not replaced by the group's interpreter on n4")
	}
	if data, err := os.ReadFile(filepath.Join(rep.LogDir, "rollout-3.log")); err != nil || !strings.Contains(string(data), "\nENV SLURMD_NODENAME=n2\n") {
		t.Errorf("rollout-3.log: %v\n%s", err, data)
	}
	noSteps(t, jobID, job.ID)
}

// TestSlurmFailure: a failing task's exit code comes back, first, and the
// other steps' tasks get SIGTERM.
func TestSlurmFailure(t *testing.T) {
	jobID := allocate(t)
	o := loadPlan(t, "slurm.yaml", "")
	runs := allRun(o.Result, workerArgv(t, "wait"))
	runs["actor"] = workerArgv(t, "failrank", "1", "3", "1s")
	job := newTestJob(t, o.Result, runs)
	out := &output{}
	// As if launched on n1 (a batch script on the first node): the ports of
	// the components whose rank 0 is there are chosen without a probe step.
	env := append(os.Environ(), "SLURMD_NODENAME=n1")
	rep, err := slurmLauncher(t, jobID).Launch(context.Background(), job, Options{Stdout: out, Stderr: out, Grace: 10 * time.Second, LogDir: t.TempDir(), Environ: env})
	if err != nil {
		t.Fatal(err)
	}
	if rep.First == nil || rep.First.Name() != "actor/1" || rep.First.Host != "n1" || rep.ExitCode() != 3 {
		t.Fatalf("first %+v, exit %d\n%s\n%s", rep.First, rep.ExitCode(), rep.Summary(), out)
	}
	if n := out.count("got SIGTERM"); n != 12 {
		t.Errorf("%d workers got SIGTERM, want 12:\n%s", n, out)
	}
	if rep.Elapsed > 8*time.Second {
		t.Errorf("took %v", rep.Elapsed)
	}
	noSteps(t, jobID, job.ID)
	noSurvivors(t, job.ID)
}

// TestSlurmCancel: a signal to launch reaches every task; tasks that
// ignore it are killed after the grace period; nothing is left running.
func TestSlurmCancel(t *testing.T) {
	jobID := allocate(t)
	o := loadPlan(t, "slurm.yaml", "")
	for _, mode := range []string{"wait", "ignore"} {
		t.Run(mode, func(t *testing.T) {
			job := newTestJob(t, o.Result, allRun(o.Result, workerArgv(t, mode)))
			out := &output{}
			sigs := make(chan os.Signal, 1)
			done := make(chan *Report, 1)
			go func() {
				rep, err := slurmLauncher(t, jobID).Launch(context.Background(), job, Options{Stdout: out, Stderr: out,
					Grace: 500 * time.Millisecond, Signals: sigs, LogDir: t.TempDir()})
				if err != nil {
					t.Error(err)
				}
				done <- rep
			}()
			waitFor(t, 30*time.Second, "13 ready workers", func() bool { return out.count("ready") == 13 })
			sigs <- syscall.SIGTERM
			var rep *Report
			select {
			case rep = <-done:
			case <-time.After(30 * time.Second):
				t.Errorf("launch did not end:\n%s", out)
				sigs <- syscall.SIGKILL // a second signal cancels the steps
				rep = <-done
			}
			if rep == nil {
				return
			}
			if rep.ExitCode() != 143 {
				t.Errorf("exit %d\n%s", rep.ExitCode(), rep.Summary())
			}
			if mode == "wait" {
				if n := out.count("got SIGTERM"); n != 13 {
					t.Errorf("%d workers got SIGTERM:\n%s", n, out)
				}
			}
			noSteps(t, jobID, job.ID)
			// Every task ran on this machine (the test cluster's nodes are
			// one host): none may survive.
			waitFor(t, 5*time.Second, "no surviving tasks", func() bool { return len(Survivors(job.ID, nil)) == 0 })
		})
	}
}

// TestSlurmCLI runs `rlsolve launch --backend slurm` end to end: the shim
// is the real `rlsolve shim`, the workers check in from the nodes, and a
// failing worker's status is rlsolve's exit status.
func TestSlurmCLI(t *testing.T) {
	jobID := allocate(t)
	rlsolve := buildRlsolve(t)
	bin := testBin(t)
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", "slurm.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "slurm.yaml")
	if err := os.WriteFile(cfg, []byte(strings.ReplaceAll(string(data), "@INTERPRETER@", bin)), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, int) {
		cmd := osexec.Command(rlsolve, append([]string{"launch", cfg, "--backend", "slurm", "--jobid", jobID, "--log-dir", filepath.Join(dir, "logs"), "--grace", "5s"}, args...)...)
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*osexec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	out, code := run("--run", "*="+bin+" __worker__ env", "--run", "env=python3 __worker__ env")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	envs := workerEnvs(out)
	for who, kv := range map[string]map[string]string{
		"actor/3":     {"SLURMD_NODENAME": "n2", "CUDA_VISIBLE_DEVICES": "1", "RANK": "3", "WORLD_SIZE": "4", "LOCAL_WORLD_SIZE": "1", "NODE_RANK": "1", "MASTER_ADDR": "n1"},
		"inference/0": {"SLURMD_NODENAME": "n3", "CUDA_VISIBLE_DEVICES": "0,1", "RANK": "0"},
		"env/0":       {"SLURMD_NODENAME": "n4", "ROS_DOMAIN_ID": "7", "ACCELERATOR_TYPE": "NO_ACCEL"},
	} {
		for k, v := range kv {
			if envs[who][k] != v {
				t.Errorf("%s: %s=%q, want %q", who, k, envs[who][k], v)
			}
		}
	}
	if !strings.Contains(out, "env/2: ARGV0 "+bin+"\n") || !strings.Contains(out, "launch: all 13 worker(s) exited with status 0") {
		t.Errorf("summary:\n%s", out)
	}
	out, code = run("--run", "actor="+bin+" __worker__ failrank 2 7 0s", "--run", "rollout="+bin+" __worker__ wait")
	if code != 7 || !strings.Contains(out, "actor/2 on n2 failed first") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// TestSlurmOverhead measures the Slurm backend against a bare srun of the
// same tasks (32 tasks on 4 nodes, each printing one line). Set
// RLSOLVE_MEASURE=1 to run it.
func TestSlurmOverhead(t *testing.T) {
	if os.Getenv("RLSOLVE_MEASURE") == "" {
		t.Skip("set RLSOLVE_MEASURE=1 to measure")
	}
	jobID := allocate(t)
	o := loadPlan(t, "slurm32.yaml", "")
	dir := t.TempDir()
	var hosts []string
	for _, p := range o.Result.Plan.Components[0].Placements.All() {
		hosts = append(hosts, o.Result.Cluster.Nodes[p.ClusterNodeRank].Hostname)
	}
	hf := filepath.Join(dir, "hosts")
	if err := os.WriteFile(hf, []byte(strings.Join(hosts, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const runs = 7
	var bare, launch []time.Duration
	for i := 0; i < runs; i++ {
		start := time.Now()
		cmd := osexec.Command("srun", "--jobid="+jobID, "--overlap", "--distribution=arbitrary", "--ntasks="+strconv.Itoa(len(hosts)),
			"--input=none", "--label", "--gres=gpu:8", testBin(t), "__worker__", "start")
		cmd.Env = append(os.Environ(), "SLURM_HOSTFILE="+hf)
		if out, err := cmd.CombinedOutput(); err != nil || strings.Count(string(out), "START") != len(hosts) {
			t.Fatalf("bare srun: %v\n%s", err, out)
		}
		bare = append(bare, time.Since(start))

		job := newTestJob(t, o.Result, allRun(o.Result, workerArgv(t, "start")))
		out := &output{}
		start = time.Now()
		rep, err := slurmLauncher(t, jobID).Launch(context.Background(), job, Options{Stdout: out, Stderr: out, LogDir: filepath.Join(dir, strconv.Itoa(i))})
		if err != nil || rep.ExitCode() != 0 || out.count("START") != len(hosts) {
			t.Fatalf("launch: %v\n%s", err, out)
		}
		launch = append(launch, time.Since(start))
	}
	median := func(d []time.Duration) time.Duration {
		s := append([]time.Duration(nil), d...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		return s[len(s)/2]
	}
	t.Logf("%d tasks, median of %d: bare srun %v, Slurm backend %v, overhead %v (bare %v; launch %v)", len(hosts), runs,
		median(bare).Round(time.Millisecond), median(launch).Round(time.Millisecond), (median(launch) - median(bare)).Round(time.Millisecond), bare, launch)
}

// TestSlurmKilled: when launch itself is killed (SIGKILL) the guardian
// stops the steps (SIGTERM to srun, which cancels its step; then the steps
// are cancelled by name), and when the guardian is killed launch cancels
// them: nothing of the job's steps is left, no task survives.
func TestSlurmKilled(t *testing.T) {
	jobID := allocate(t)
	rlsolve := buildRlsolve(t)
	o := loadPlan(t, "slurm.yaml", "")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "slurm.yaml")
	data, err := os.ReadFile(filepath.Join("testdata", "slurm.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("launch", func(t *testing.T) {
		logs := filepath.Join(dir, "logs")
		out := &output{}
		cmd := osexec.Command(rlsolve, "launch", cfg, "--backend", "slurm", "--jobid", jobID, "--log-dir", logs, "--grace", "2s",
			"--run", "*="+testBin(t)+" __worker__ wait")
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 30*time.Second, "13 ready workers", func() bool { return out.count("ready") == 13 })
		id, err := os.Readlink(filepath.Join(logs, LatestLink))
		if err != nil {
			t.Fatal(err)
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		waitFor(t, 20*time.Second, "no steps and no tasks", func() bool {
			return len(ourSteps(jobID, id)) == 0 && len(Survivors(id, nil)) == 0
		})
		// The tasks got SIGTERM (their handlers ran) and said so in their logs.
		for _, w := range []string{"actor-0", "rollout-3", "inference-1", "env-2"} {
			data, _ := os.ReadFile(filepath.Join(logs, id, w+".log"))
			if !strings.Contains(string(data), "got SIGTERM") {
				t.Errorf("%s.log: %q", w, data)
			}
		}
	})
	t.Run("guardian", func(t *testing.T) {
		job := newTestJob(t, o.Result, allRun(o.Result, workerArgv(t, "wait")))
		out := &output{}
		done := make(chan *Report, 1)
		go func() {
			rep, err := slurmLauncher(t, jobID).Launch(context.Background(), job, Options{Stdout: out, Stderr: out, Grace: 2 * time.Second, LogDir: t.TempDir()})
			if err != nil {
				t.Error(err)
			}
			done <- rep
		}()
		waitFor(t, 30*time.Second, "13 ready workers", func() bool { return out.count("ready") == 13 })
		guard := guardianOf(os.Getpid())
		if guard == 0 {
			t.Fatal("no guardian")
		}
		_ = syscall.Kill(guard, syscall.SIGKILL)
		rep := <-done
		if rep == nil {
			return
		}
		if rep.ExitCode() != ExitLost {
			t.Errorf("exit %d\n%s", rep.ExitCode(), rep.Summary())
		}
		noSteps(t, jobID, job.ID)
		waitFor(t, 10*time.Second, "no surviving tasks", func() bool { return len(Survivors(job.ID, nil)) == 0 })
	})
}
