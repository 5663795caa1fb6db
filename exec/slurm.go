package exec

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rlsolve/rlsolve/internal/slurmcli"
)

// Slurm runs each component as one srun step inside an existing allocation
// (salloc or sbatch): --distribution=arbitrary with a host file listing
// the planned node of every task, --ntasks = the world size, --overlap so
// that components sharing GPUs run side by side. Each task runs the shim
// (`rlsolve shim`), which finds its worker by SLURM_PROCID in the launch's
// plan file, sets the worker's environment (CUDA_VISIBLE_DEVICES
// included: Slurm overwrites it otherwise) and execs the program. The
// srun processes are the guardian's units: should launch die, the
// guardian stops them and cancels the steps.
type Slurm struct {
	// JobID is the allocation (SLURM_JOB_ID).
	JobID string
	// ShimArgv runs the shim on the nodes: the rlsolve binary (a path every
	// node can run) and "shim".
	ShimArgv []string
	// Gres is what each step asks for: "auto" (default: the allocation's
	// per-node GPUs, for components whose workers see GPUs), "none", or a
	// --gres value.
	Gres string
	// CLI runs the Slurm commands (its Env is set to the launch's).
	CLI slurmcli.Client
}

// stepName is the srun step name of a component (how scancel finds it).
func stepName(id, component string) string { return "rlsolve-" + id + "-" + component }

// Launch runs the job's components as srun steps and waits for them.
func (s *Slurm) Launch(ctx context.Context, job *Job, opt Options) (*Report, error) {
	if s.JobID == "" {
		return nil, Errorf(ExitUsage, "the Slurm backend runs inside an allocation: start it under salloc or sbatch, or pass the job id (--jobid)")
	}
	if len(s.ShimArgv) == 0 {
		return nil, Errorf(ExitUsage, "no shim program")
	}
	if job.Node >= 0 {
		return nil, Errorf(ExitUsage, "the Slurm backend places every node's share itself: --node is for the local backend")
	}
	own := *s // this launch's: the commands run in its environment
	s = &own
	s.CLI.Env = opt.environ()
	// Signals are relayed; one that comes while the launch is still
	// preparing (scontrol, the port probe) cancels the preparation.
	sigs := make(chan os.Signal, 8)
	setupCtx, cancelSetup := context.WithCancel(ctx)
	defer cancelSetup()
	var setupDone atomic.Bool
	stopRelay := make(chan struct{})
	defer close(stopRelay)
	go relaySignals(opt.Signals, sigs, stopRelay, func() {
		if !setupDone.Load() {
			cancelSetup()
		}
	})
	opt.Signals = sigs
	r := newRun(job, &opt, "slurm")
	r.rep.Stopped = -1
	units, cleanup, err := s.prepare(setupCtx, r)
	defer cleanup()
	if err != nil {
		select {
		case sg := <-sigs: // the preparation was cut short by a signal
			r.rep.Interrupted = sg
			r.rep.Elapsed = time.Since(r.start)
			return r.rep, nil
		default:
			return nil, err
		}
	}
	setupDone.Store(true)
	r.contain()
	h := &slurmHooks{s: s, r: r, done: map[int]bool{}, failed: map[int]bool{}}
	steps := make([]string, len(job.Components))
	for i, c := range job.Components {
		steps[i] = stepName(job.ID, c.Name)
	}
	h.steps = steps
	gs := &guardSlurm{JobID: s.JobID, Steps: steps, Squeue: s.CLI.Squeue, Scancel: s.CLI.Scancel}
	if err := r.startGuard(units, gs, h.translate); err != nil {
		r.finish()
		return nil, err
	}
	r.supervise(ctx, h)
	r.finish()
	slices.SortStableFunc(r.rep.Workers, func(a, b WorkerResult) int { return cmp.Compare(a.At, b.At) })
	return r.rep, nil
}

// relaySignals passes signals on until stop, calling each on every one.
func relaySignals(in <-chan os.Signal, out chan<- os.Signal, stop <-chan struct{}, each func()) {
	for {
		select {
		case sg := <-in:
			select {
			case out <- sg:
			default:
			}
			each()
		case <-stop:
			return
		}
	}
}

// prepare checks the allocation, makes the run's directory, chooses the
// ports, and writes the plan and host files: it returns the srun units.
// cleanup removes a temporary directory (without --log-dir).
func (s *Slurm) prepare(ctx context.Context, r *run) (units []guardUnit, cleanup func(), err error) {
	cleanup = func() {}
	info, err := s.CLI.Job(ctx, s.JobID)
	if err != nil {
		return nil, cleanup, Errorf(ExitStart, "reading Slurm job %s: %w", s.JobID, err)
	}
	if info.State != "RUNNING" {
		return nil, cleanup, Errorf(ExitStart, "Slurm job %s is %s, not RUNNING", s.JobID, strings.ToLower(orDefault(info.State, "unknown")))
	}
	if err := s.checkHosts(r.job, info); err != nil {
		return nil, cleanup, err
	}
	if r.opt.LogDir == "" {
		// No logs, but the plan must be somewhere every node sees.
		tmp, err := os.MkdirTemp("", "rlsolve-launch-")
		if err != nil {
			return nil, cleanup, &Error{Code: ExitStart, Err: err}
		}
		cleanup = func() { _ = os.RemoveAll(tmp) }
		r.opt.LogDir, r.noLogs = tmp, true
		r.notef("the launch plan is in %s, which every node must see", tmp)
	}
	if err := r.openDir(); err != nil {
		return nil, cleanup, err
	}
	for _, c := range r.job.Components {
		if c.MasterAddr == "" {
			c.MasterAddr = c.Workers[0].Host
		}
	}
	if err := s.probePorts(ctx, r.job, r.dir); err != nil {
		return nil, cleanup, Errorf(ExitStart, "%w", err)
	}
	for _, c := range r.job.Components {
		c.setMaster(c.MasterAddr, c.MasterPort)
	}
	data, err := json.MarshalIndent(newPlanFile(r.job), "", " ")
	if err != nil {
		return nil, cleanup, &Error{Code: ExitInternal, Err: err}
	}
	planPath, err := writeIn(r.dir.f, "launch-"+r.job.ID+".json", data)
	if err != nil {
		return nil, cleanup, Errorf(ExitStart, "writing the launch plan: %w", err)
	}
	units, err = s.units(r, info, planPath)
	return units, cleanup, err
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// checkHosts: every worker's node has a Slurm node name in the allocation.
func (s *Slurm) checkHosts(job *Job, info *slurmcli.Job) error {
	for _, w := range job.workers() {
		if w.Host == "" {
			return Errorf(ExitUsage, "%s: node %d has no host name in the inventory; the Slurm backend needs each node's Slurm node name", w.Name(), w.Node)
		}
		if len(info.Nodes) > 0 && !slices.Contains(info.Nodes, w.Host) {
			return Errorf(ExitStart, "%s: host %s (node %d) is not in job %s's allocation (%s)", w.Name(), w.Host, w.Node, s.JobID, strings.Join(info.Nodes, ","))
		}
	}
	return nil
}

// units makes each component's srun: its host file, its argv (the shim),
// its workers' names and logs.
func (s *Slurm) units(r *run, info *slurmcli.Job, planPath string) ([]guardUnit, error) {
	base := r.opt.environ()
	srun, err := LookPath(s.CLI.SrunPath(), base)
	if err != nil {
		return nil, Errorf(ExitStart, "srun: %w", err)
	}
	names := logNames(r.job.workers())
	units := make([]guardUnit, 0, len(r.job.Components))
	for _, c := range r.job.Components {
		hosts := make([]string, len(c.Workers))
		u := guardUnit{Path: srun, Srun: c.Name}
		gpus := false
		for i := range c.Workers {
			w := &c.Workers[i]
			hosts[i] = w.Host
			gpus = gpus || w.Env["CUDA_VISIBLE_DEVICES"] != "" || w.Env["VISIBLE_DEVICES"] != ""
			u.Names = append(u.Names, w.Name())
			if !r.noLogs {
				u.Logs = append(u.Logs, names[0])
				r.logs[w.Name()] = r.dir.path + "/" + names[0]
			}
			names = names[1:]
		}
		hf, err := writeIn(r.dir.f, safeName(c.Name)+"-"+r.job.ID+".hosts", []byte(strings.Join(hosts, "\n")+"\n"))
		if err != nil {
			return nil, Errorf(ExitStart, "writing %s's host file: %w", c.Name, err)
		}
		spec := slurmcli.StepSpec{JobID: s.JobID, NTasks: len(c.Workers), Name: stepName(r.job.ID, c.Name), Label: true}
		switch g := orDefault(s.Gres, "auto"); {
		case g == "none":
		case g == "auto":
			if gpus {
				spec.Gres = info.GresPerNode
			}
		default:
			spec.Gres = g
		}
		u.Argv = append([]string{"srun"}, slurmcli.SrunArgs(spec)...)
		u.Argv = append(u.Argv, s.ShimArgv...)
		u.Argv = append(u.Argv, "--plan", planPath, "--component", c.Name)
		u.Env = MergeEnv(base, map[string]string{"SLURM_HOSTFILE": hf})
		units = append(units, u)
	}
	return units, nil
}

// probePorts chooses MASTER_PORT for every component that has none: one
// short srun step with a task on each distinct rank-0 node, binding there
// as many free ports as components have their rank 0 on it.
func (s *Slurm) probePorts(ctx context.Context, job *Job, dir *runDir) error {
	var hosts []string
	index := map[string]int{}
	type want struct {
		c    *Component
		task int
		nth  int
	}
	var wants []want
	counts := map[int]int{}
	for _, c := range job.Components {
		if c.MasterPort != 0 {
			continue
		}
		h := c.Workers[0].Host
		t, ok := index[h]
		if !ok {
			t = len(hosts)
			index[h] = t
			hosts = append(hosts, h)
		}
		wants = append(wants, want{c, t, counts[t]})
		counts[t]++
	}
	if len(hosts) == 0 {
		return nil
	}
	// Launched on rank 0's node itself (a batch script on the first node):
	// no probe step needed there.
	if self, _ := envValue(s.CLI.Env, "SLURMD_NODENAME"); self != "" {
		if t, ok := index[self]; ok {
			ports, err := freePorts(counts[t])
			if err != nil {
				return err
			}
			for _, w := range wants {
				if w.task == t {
					w.c.MasterPort = ports[w.nth]
				}
			}
			if len(hosts) == 1 {
				return nil
			}
			counts[t] = 0
		}
	}
	hf, err := writeIn(dir.f, "ports-"+job.ID+".hosts", []byte(strings.Join(hosts, "\n")+"\n"))
	if err != nil {
		return err
	}
	spec := make([]string, len(hosts))
	for t := range hosts {
		spec[t] = strconv.Itoa(counts[t])
	}
	argv := append(slices.Clone(s.ShimArgv), "--ports", strings.Join(spec, ","))
	out, err := s.CLI.RunStep(ctx, slurmcli.StepSpec{JobID: s.JobID, NTasks: len(hosts), Name: stepName(job.ID, "ports")}, hf, argv...)
	if err != nil {
		return fmt.Errorf("choosing MASTER_PORT on the nodes: %w", err)
	}
	got := parsePorts(out)
	for _, w := range wants {
		if w.c.MasterPort != 0 {
			continue
		}
		if w.nth >= len(got[w.task]) {
			return fmt.Errorf("choosing MASTER_PORT on %s: the probe printed %v", hosts[w.task], got[w.task])
		}
		w.c.MasterPort = got[w.task][w.nth]
	}
	return nil
}

// parsePorts reads the shim's "rlsolve-ports TASK PORT..." lines.
func parsePorts(out []byte) map[int][]int {
	got := map[int][]int{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != shimPortsMarker {
			continue
		}
		t, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		for _, p := range f[2:] {
			if n, err := strconv.Atoi(p); err == nil {
				got[t] = append(got[t], n)
			}
		}
	}
	return got
}

// slurmHooks carry out the supervisor's orders: the steps' tasks are
// signalled and cancelled through Slurm, srun itself through the guardian.
type slurmHooks struct {
	s     *Slurm
	r     *run
	steps []string // step names, by unit
	mu    sync.Mutex
	done  map[int]bool // units (sruns) that ended
	// failed: units that reported a task's failure.
	failed map[int]bool
}

func (h *slurmHooks) running() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []int
	for i := range h.steps {
		if !h.done[i] {
			out = append(out, i)
		}
	}
	return out
}

// signal sends sig to the tasks of every running step (scancel
// --signal), or cancels the steps when sig is 0. A step Slurm does not
// list yet gets SIGTERM through its srun, which then cancels it.
func (h *slurmHooks) signal(sig syscall.Signal) {
	var names []string
	for _, u := range h.running() {
		names = append(names, h.steps[u])
	}
	if len(names) == 0 {
		return
	}
	var units []int
	for _, name := range signalSteps(&h.s.CLI, h.s.JobID, names, sig, 5) {
		units = append(units, slices.Index(h.steps, name))
	}
	if len(units) > 0 {
		h.r.guard.op(guardOp{Op: "signal", Sig: int(syscall.SIGTERM), Units: units})
	}
}

func (h *slurmHooks) kill()      { h.signal(0) }
func (h *slurmHooks) forceKill() { h.r.guard.op(guardOp{Op: "kill"}) }
func (h *slurmHooks) lost() {
	h.signal(0)
	h.r.sweepLost()
}

// translate: a unit is a component's srun; its tasks' failures come as
// they happen, srun's own failure only when no task reported one.
func (h *slurmHooks) translate(ev guardEvent) []unitEvent {
	if ev.Unit < 0 || ev.Unit >= len(h.r.job.Components) {
		return nil
	}
	c := h.r.job.Components[ev.Unit]
	srunResult := func(code int, msg string) *WorkerResult {
		return &WorkerResult{Component: c.Name, Rank: -1, Started: true, ExitCode: code, Err: msg}
	}
	switch ev.Kind {
	case "started":
		return []unitEvent{{unit: ev.Unit, slot: -1, started: true}}
	case "failed":
		r := srunResult(1, "starting srun: "+ev.Msg)
		r.Started = false
		return []unitEvent{{unit: ev.Unit, slot: -1, result: r}}
	case "task":
		t := ev.Task
		if t == nil || t.Task < 0 || t.Task >= len(c.Workers) {
			return nil
		}
		h.mu.Lock()
		h.failed[ev.Unit] = true
		h.mu.Unlock()
		w := &c.Workers[t.Task]
		r := &WorkerResult{Component: w.Component, Rank: w.Rank, Host: t.Host, Started: true, ExitCode: t.Code, Signal: t.Signal, Err: t.Text}
		r.Log = h.r.logs[w.Name()]
		return []unitEvent{{unit: ev.Unit, slot: -1, result: r}}
	case "exit":
		h.mu.Lock()
		h.done[ev.Unit] = true
		failed := h.failed[ev.Unit]
		h.mu.Unlock()
		ue := unitEvent{unit: ev.Unit, slot: -1, done: true}
		ws := syscall.WaitStatus(ev.Status)
		if code := ws.ExitStatus(); (code != 0 || ws.Signaled()) && !failed {
			// srun itself failed (no task reported): say what it said.
			msg := fmt.Sprintf("srun exited with status %d", code)
			if ws.Signaled() {
				msg, code = "srun was killed by "+signalName(ws.Signal()), 128+int(ws.Signal())
			}
			if ev.Msg != "" {
				msg += ": " + ev.Msg
			}
			ue.result, ue.onlyIfRunning = srunResult(code, msg), true
		}
		return []unitEvent{ue}
	}
	return nil
}

// signalSteps sends sig to the tasks of the named steps (scancel
// --signal=SIG), or cancels them when sig is 0, and returns the names
// Slurm does not list (tries times, 100ms apart: a step just started may
// not be listed yet).
func signalSteps(cli *slurmcli.Client, jobID string, names []string, sig syscall.Signal, tries int) (unlisted []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var ids []string
	for try := 0; try < tries && len(want) > 0; try++ {
		if try > 0 {
			time.Sleep(100 * time.Millisecond)
		}
		steps, _ := cli.Steps(ctx, jobID)
		for _, st := range steps {
			if want[st.Name] {
				ids = append(ids, st.ID)
				delete(want, st.Name)
			}
		}
	}
	if len(ids) > 0 {
		slices.Sort(ids)
		name := ""
		if sig != 0 {
			name = strings.TrimPrefix(signalName(sig), "SIG")
		}
		_ = cli.Cancel(ctx, name, ids...) // 22.05 prints spurious errors when signalling steps
	}
	for _, n := range names {
		if want[n] {
			unlisted = append(unlisted, n)
		}
	}
	return unlisted
}
