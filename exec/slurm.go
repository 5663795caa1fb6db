package exec

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rlsolve/rlsolve/internal/hostlist"
)

// Slurm runs each component as one srun step inside an existing allocation
// (salloc or sbatch): --distribution=arbitrary with a host file listing
// the planned node of every task, --ntasks = the world size, --overlap so
// that components sharing GPUs run side by side. Each task runs the shim
// (`rlsolve shim`), which finds its worker by SLURM_PROCID in the launch's
// plan file, sets the worker's environment (CUDA_VISIBLE_DEVICES
// included: Slurm overwrites it otherwise) and execs the program.
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
	// Srun, Scontrol, Scancel, Squeue name the Slurm commands (defaults:
	// found in PATH).
	Srun, Scontrol, Scancel, Squeue string
	// ExpandHostlist expands a Slurm host list (n[1-4]); nil asks
	// `scontrol show hostnames`.
	ExpandHostlist func(string) ([]string, error)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// jobInfo is what launch needs to know about the allocation.
type jobInfo struct {
	State       string
	Nodes       []string
	GresPerNode string // "gpu:8", or ""
}

// job reads the allocation with `scontrol show job -o`.
func (s *Slurm) job(ctx context.Context, env []string) (*jobInfo, error) {
	cmd := osexec.CommandContext(ctx, orDefault(s.Scontrol, "scontrol"), "show", "job", "-o", s.JobID)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("scontrol show job %s: %v: %s", s.JobID, err, strings.TrimSpace(stderr.String()))
	}
	info := &jobInfo{}
	nodeList := ""
	for _, f := range strings.Fields(string(out)) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "JobState":
			info.State = v
		case "NodeList":
			nodeList = v
		case "TresPerNode":
			for _, t := range strings.Split(v, ",") {
				for _, p := range []string{"gres:", "gres/"} {
					if g, ok := strings.CutPrefix(t, p); ok && strings.HasPrefix(g, "gpu") {
						info.GresPerNode = g
					}
				}
			}
		}
	}
	if nodeList != "" && nodeList != "(null)" {
		if s.ExpandHostlist != nil {
			info.Nodes, err = s.ExpandHostlist(nodeList)
		} else {
			c := osexec.CommandContext(ctx, orDefault(s.Scontrol, "scontrol"), "show", "hostnames", nodeList)
			c.Env = env
			var o []byte
			o, err = c.Output()
			info.Nodes = strings.Fields(string(o))
		}
		if err != nil {
			return nil, fmt.Errorf("expanding the allocation's node list %q: %v", nodeList, err)
		}
	}
	return info, nil
}

// stepName is the srun step name of a component (how scancel finds it).
func stepName(id, component string) string { return "rlsolve-" + id + "-" + component }

type slurmStep struct {
	c       *Component
	cmd     *osexec.Cmd
	name    string
	done    bool
	readers sync.WaitGroup
	files   []*os.File
}

type slurmEventKind int

const (
	taskEnded slurmEventKind = iota
	srunExited
)

type slurmEvent struct {
	kind   slurmEventKind
	step   int
	result WorkerResult // taskEnded
	err    error        // srunExited
	state  *os.ProcessState
	last   string // srunExited: srun's last error line
	at     time.Time
}

// Launch runs the job's components as srun steps and waits for them.
func (s *Slurm) Launch(ctx context.Context, job *Job, opt Options) (*Report, error) {
	start := time.Now()
	rep := &Report{ID: job.ID, Backend: "slurm", LogDir: opt.LogDir, Stopped: -1}
	notef := func(format string, args ...any) {
		rep.Notes = append(rep.Notes, fmt.Sprintf(format, args...))
		opt.notef(format, args...)
	}
	if s.JobID == "" {
		return nil, fmt.Errorf("the Slurm backend runs inside an allocation: start it under salloc or sbatch, or pass the job id (--jobid)")
	}
	if len(s.ShimArgv) == 0 {
		return nil, fmt.Errorf("no shim program")
	}
	base := opt.environ()

	// Signals are relayed; one that comes while the launch is still
	// preparing (scontrol, the port probe) cancels the preparation.
	sigs := make(chan os.Signal, 8)
	setupCtx, cancelSetup := context.WithCancel(ctx)
	defer cancelSetup()
	var setupDone atomic.Bool
	stopRelay := make(chan struct{})
	defer close(stopRelay)
	go func() {
		for {
			select {
			case sg := <-opt.Signals:
				select {
				case sigs <- sg:
				default:
				}
				if !setupDone.Load() {
					cancelSetup()
				}
			case <-stopRelay:
				return
			}
		}
	}()
	interrupted := func(err error) (*Report, error) {
		select {
		case sg := <-sigs:
			rep.Interrupted = sg
			rep.Total = len(job.workers())
			rep.Elapsed = time.Since(start)
			return rep, nil
		default:
			return nil, err
		}
	}

	info, err := s.job(setupCtx, base)
	if err != nil {
		return interrupted(err)
	}
	if info.State != "RUNNING" {
		return nil, fmt.Errorf("Slurm job %s is %s, not RUNNING", s.JobID, strings.ToLower(orDefault(info.State, "unknown")))
	}
	inAlloc := map[string]bool{}
	for _, n := range info.Nodes {
		inAlloc[n] = true
	}
	ws := job.workers()
	rep.Total = len(ws)
	for _, w := range ws {
		if w.Host == "" {
			return nil, fmt.Errorf("%s: node %d has no host name in the inventory; the Slurm backend needs each node's Slurm node name", w.Name(), w.Node)
		}
		if len(inAlloc) > 0 && !inAlloc[w.Host] {
			return nil, fmt.Errorf("%s: host %s (node %d) is not in job %s's allocation (%s)", w.Name(), w.Host, w.Node, s.JobID, strings.Join(info.Nodes, ","))
		}
	}

	dir := opt.LogDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "rlsolve-launch-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		notef("the launch plan is in %s, which every node must see", dir)
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("launch directory: %w", err)
	}
	for _, c := range job.Components {
		if c.MasterAddr == "" {
			c.MasterAddr = c.Workers[0].Host
		}
	}
	if err := s.probePorts(setupCtx, job, dir, base); err != nil {
		return interrupted(err)
	}
	for _, c := range job.Components {
		c.setMaster(c.MasterAddr, c.MasterPort)
	}
	planPath := filepath.Join(dir, "launch-"+job.ID+".json")
	data, err := json.MarshalIndent(newPlanFile(job), "", " ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(planPath, data, 0o644); err != nil {
		return nil, fmt.Errorf("writing the launch plan: %w", err)
	}
	logs, err := openLogs(opt.LogDir, ws)
	if err != nil {
		return nil, err
	}
	setupDone.Store(true)
	sink := &lineSink{out: opt.Stdout, err: opt.Stderr}
	events := make(chan slurmEvent, 4*len(ws)+4*len(job.Components)+16)

	steps := make([]*slurmStep, 0, len(job.Components))
	li := 0
	var startErr error
	for si, c := range job.Components {
		st, err := s.startStep(si, c, job.ID, dir, planPath, info, base, sink, logs[li:li+len(c.Workers)], events)
		li += len(c.Workers)
		if err != nil {
			startErr = fmt.Errorf("%s: starting srun: %w", c.Name, err)
			break
		}
		steps = append(steps, st)
	}

	grace := opt.grace()
	var graceC, killC <-chan time.Time
	stopping, killing := false, false
	running := len(steps)
	stop := func(sig syscall.Signal) {
		stopping = true
		s.signalSteps(steps, job.ID, sig, base)
		graceC = time.After(grace)
	}
	if startErr != nil {
		if running == 0 {
			for _, l := range logs {
				_ = l.close()
			}
			return nil, startErr
		}
		sink.linef("launch: %v", startErr)
		rep.First = &WorkerResult{Component: job.Components[len(steps)].Name, Rank: -1, ExitCode: 1, Started: true, Err: startErr.Error()}
		stop(syscall.SIGTERM)
	}
	done := ctx.Done()
	failedSteps := map[int]bool{}
	for running > 0 {
		select {
		case ev := <-events:
			switch ev.kind {
			case taskEnded:
				r := ev.result
				r.At = ev.at.Sub(start)
				r.Stopped = stopping
				if killing {
					rep.Killed++
				}
				rep.Workers = append(rep.Workers, r)
				failedSteps[ev.step] = true
				if !stopping && r.Failed() {
					rep.First = &r
					stop(syscall.SIGTERM)
				}
			case srunExited:
				running--
				steps[ev.step].done = true
				code := 0
				if ev.state != nil {
					code = ev.state.ExitCode()
				} else if ev.err != nil {
					code = 1
				}
				if code != 0 && !stopping && !failedSteps[ev.step] {
					// srun itself failed (no task reported): say what it said.
					msg := fmt.Sprintf("srun exited with status %d", code)
					if ev.last != "" {
						msg += ": " + ev.last
					}
					r := WorkerResult{Component: steps[ev.step].c.Name, Rank: -1, Started: true, ExitCode: code, Err: msg, At: ev.at.Sub(start)}
					rep.Workers = append(rep.Workers, r)
					rep.First = &r
					stop(syscall.SIGTERM)
				}
			}
		case sg := <-sigs:
			sig, ok := sg.(syscall.Signal)
			if !ok {
				sig = syscall.SIGTERM
			}
			if stopping {
				killing = true
				s.signalSteps(steps, job.ID, 0, base)
				killC = time.After(5 * time.Second)
				continue
			}
			rep.Interrupted = sig
			stop(sig)
		case <-done:
			done = nil
			if !stopping {
				rep.Interrupted = syscall.SIGTERM
				stop(syscall.SIGTERM)
			}
		case <-graceC:
			graceC = nil
			killing = true
			s.signalSteps(steps, job.ID, 0, base)
			killC = time.After(5 * time.Second)
		case <-killC:
			killC = nil
			for _, st := range steps {
				if !st.done {
					_ = syscall.Kill(-st.cmd.Process.Pid, syscall.SIGKILL)
				}
			}
		}
	}
	for i, l := range logs {
		if err := l.close(); err != nil {
			notef("%s: log file %s: %v", ws[i].Name(), l.path, err)
		}
	}
	sort.SliceStable(rep.Workers, func(i, j int) bool { return rep.Workers[i].At < rep.Workers[j].At })
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// srunBase is the srun options every step of a launch shares.
func (s *Slurm) srunBase(ntasks int, name string) []string {
	return []string{"--jobid=" + s.JobID, "--overlap", "--distribution=arbitrary", "--ntasks=" + strconv.Itoa(ntasks),
		"--input=none", "--job-name=" + name, "--export=ALL"}
}

// writeHostFile writes one host per task, in task order.
func writeHostFile(path string, hosts []string) error {
	return os.WriteFile(path, []byte(strings.Join(hosts, "\n")+"\n"), 0o644)
}

// probePorts chooses MASTER_PORT for every component that has none: one
// short srun step with a task on each distinct rank-0 node, binding there
// as many free ports as components have their rank 0 on it.
func (s *Slurm) probePorts(ctx context.Context, job *Job, dir string, base []string) error {
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
	if self, _ := envValue(base, "SLURMD_NODENAME"); self != "" {
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
	hf := filepath.Join(dir, "ports-"+job.ID+".hosts")
	if err := writeHostFile(hf, hosts); err != nil {
		return err
	}
	spec := make([]string, len(hosts))
	for t := range hosts {
		spec[t] = strconv.Itoa(counts[t])
	}
	args := append(s.srunBase(len(hosts), stepName(job.ID, "ports")), s.ShimArgv...)
	args = append(args, "--ports", strings.Join(spec, ","))
	cmd := osexec.CommandContext(ctx, orDefault(s.Srun, "srun"), args...)
	cmd.Env = MergeEnv(base, map[string]string{"SLURM_HOSTFILE": hf})
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("choosing MASTER_PORT on the nodes (srun): %v: %s", err, strings.TrimSpace(stderr.String()))
	}
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

// startStep starts one component's srun.
func (s *Slurm) startStep(si int, c *Component, id, dir, planPath string, info *jobInfo, base []string,
	sink *lineSink, logs []*workerLog, events chan<- slurmEvent) (*slurmStep, error) {
	hosts := make([]string, len(c.Workers))
	gpus := false
	for i := range c.Workers {
		hosts[i] = c.Workers[i].Host
		for _, k := range []string{"CUDA_VISIBLE_DEVICES", "VISIBLE_DEVICES"} {
			if c.Workers[i].Env[k] != "" {
				gpus = true
			}
		}
	}
	hf := filepath.Join(dir, strings.TrimSuffix(logName(c.Name, 0), "-0.log")+"-"+id+".hosts")
	if err := writeHostFile(hf, hosts); err != nil {
		return nil, err
	}
	name := stepName(id, c.Name)
	args := s.srunBase(len(c.Workers), name)
	args = append(args, "--label")
	switch g := orDefault(s.Gres, "auto"); {
	case g == "none":
	case g == "auto":
		if gpus && info.GresPerNode != "" {
			args = append(args, "--gres="+info.GresPerNode)
		}
	default:
		args = append(args, "--gres="+g)
	}
	args = append(args, s.ShimArgv...)
	args = append(args, "--plan", planPath, "--component", c.Name)
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd := osexec.Command(orDefault(s.Srun, "srun"), args...)
	cmd.Env = MergeEnv(base, map[string]string{"SLURM_HOSTFILE": hf})
	cmd.Stdout, cmd.Stderr = outW, errW
	// Own process group: a terminal's Ctrl-C reaches launch, which decides.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, err
	}
	st := &slurmStep{c: c, cmd: cmd, name: name, files: []*os.File{outR, errR}}
	outWs := make([]*lineWriter, len(c.Workers))
	errWs := make([]*lineWriter, len(c.Workers))
	for i := range c.Workers {
		p := c.Workers[i].Name() + ": "
		outWs[i] = newLineWriter(p, sink, false, logs[i])
		errWs[i] = newLineWriter(p, sink, true, logs[i])
	}
	var last lastLine
	st.readers.Add(2)
	go func() {
		defer st.readers.Done()
		readSrun(outR, &srunParser{step: si, c: c, writers: outWs, sink: sink, events: events})
	}()
	go func() {
		defer st.readers.Done()
		readSrun(errR, &srunParser{step: si, c: c, writers: errWs, sink: sink, stderr: true, events: events, last: &last})
	}()
	go func() {
		err := cmd.Wait()
		st.readers.Wait() // every task report is in before the exit
		events <- slurmEvent{kind: srunExited, step: si, err: err, state: cmd.ProcessState, last: last.get(), at: time.Now()}
	}()
	return st, nil
}

// signalSteps sends sig to the tasks of every running step (scancel
// --signal), or cancels the steps when sig is 0. A step Slurm does not
// list yet gets the signal through its srun.
func (s *Slurm) signalSteps(steps []*slurmStep, id string, sig syscall.Signal, env []string) {
	names := map[string]*slurmStep{}
	for _, st := range steps {
		if !st.done {
			names[st.name] = st
		}
	}
	if len(names) == 0 {
		return
	}
	var ids []string
	for try := 0; try < 5 && len(names) > 0; try++ {
		if try > 0 {
			time.Sleep(100 * time.Millisecond)
		}
		cmd := osexec.Command(orDefault(s.Squeue, "squeue"), "--steps", "--jobs="+s.JobID, "--noheader", "--format=%i|%j")
		cmd.Env = env
		out, _ := cmd.Output()
		for _, line := range strings.Split(string(out), "\n") {
			stepID, name, ok := strings.Cut(strings.TrimSpace(line), "|")
			if ok && names[name] != nil {
				ids = append(ids, stepID)
				delete(names, name)
			}
		}
	}
	if len(ids) > 0 {
		args := []string{}
		if sig != 0 {
			args = append(args, "--signal="+strings.TrimPrefix(signalName(sig), "SIG"))
		}
		cmd := osexec.Command(orDefault(s.Scancel, "scancel"), append(args, ids...)...)
		cmd.Env = env
		_ = cmd.Run() // 22.05 prints spurious errors when signalling steps
	}
	for _, st := range names {
		_ = syscall.Kill(-st.cmd.Process.Pid, syscall.SIGTERM) // srun cancels its step
	}
}

// lastLine keeps srun's last line of its own.
type lastLine struct {
	mu sync.Mutex
	s  string
}

func (l *lastLine) set(s string) {
	l.mu.Lock()
	l.s = s
	l.mu.Unlock()
}

func (l *lastLine) get() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.s
}

// srunParser splits srun's labelled output back into the tasks' streams.
// srun --label writes "N: " before each piece a task sends; slurmstepd
// sends a line of up to 1023 bytes plus its newline as one piece, and a
// longer line in pieces of 1024 bytes without one, each of which srun
// ends with a newline. So a piece of exactly 1024 bytes continues on the
// task's next piece, and the task's lines come back whole.
type srunParser struct {
	step    int
	c       *Component
	writers []*lineWriter
	sink    *lineSink
	stderr  bool
	events  chan<- slurmEvent
	last    *lastLine
}

// srunPiece is slurmstepd's message size (MAX_MSG_LEN).
const srunPiece = 1024

var srunTaskRE = regexp.MustCompile(`^srun: error: ([^:\s]+): tasks? ([0-9,\-]+): (.*)$`)

func readSrun(r *os.File, p *srunParser) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, line...)
			continue
		}
		if len(long) > 0 {
			line = append(long, line...)
			long = long[:0]
		}
		if len(line) > 0 {
			p.line(bytes.TrimSuffix(line, []byte("\n")))
		}
		if err != nil {
			break
		}
	}
	for _, w := range p.writers {
		w.Close()
	}
}

func (p *srunParser) line(l []byte) {
	if task, payload, ok := parseLabel(l); ok && task < len(p.writers) {
		w := p.writers[task]
		if len(payload) == srunPiece {
			_, _ = w.Write(payload)
			return
		}
		_, _ = w.Write(append(payload, '\n'))
		return
	}
	// srun's own line.
	p.sink.write(p.stderr, append([]byte(p.c.Name+": "), append(l, '\n')...))
	if !p.stderr {
		return
	}
	s := string(l)
	if p.last != nil && strings.HasPrefix(s, "srun: error:") {
		p.last.set(s)
	}
	m := srunTaskRE.FindStringSubmatch(s)
	if m == nil {
		return
	}
	code, sig, errText := parseTaskEnd(m[3])
	tasks, err := hostlist.Ranges(m[2], len(p.c.Workers))
	if err != nil {
		return
	}
	for _, t := range tasks {
		if t < 0 || t >= len(p.c.Workers) {
			continue
		}
		w := &p.c.Workers[t]
		p.events <- slurmEvent{kind: taskEnded, step: p.step, at: time.Now(), result: WorkerResult{
			Component: w.Component, Rank: w.Rank, Host: m[1], Started: true, ExitCode: code, Signal: sig, Err: errText}}
	}
}

// parseLabel splits "  12: text" into 12 and "text".
func parseLabel(l []byte) (int, []byte, bool) {
	i := 0
	for i < len(l) && l[i] == ' ' {
		i++
	}
	j := i
	for j < len(l) && l[j] >= '0' && l[j] <= '9' {
		j++
	}
	if j == i || j-i > 9 || j >= len(l) || l[j] != ':' {
		return 0, nil, false
	}
	n, _ := strconv.Atoi(string(l[i:j]))
	rest := l[j+1:]
	if len(rest) == 0 {
		return n, rest, true
	}
	if rest[0] != ' ' {
		return 0, nil, false
	}
	return n, rest[1:], true
}

// srunSignals maps strsignal() texts, which srun prints for a task a
// signal ended, back to signals.
var srunSignals = map[string]syscall.Signal{
	"Hangup": syscall.SIGHUP, "Interrupt": syscall.SIGINT, "Quit": syscall.SIGQUIT, "Illegal instruction": syscall.SIGILL,
	"Trace/breakpoint trap": syscall.SIGTRAP, "Aborted": syscall.SIGABRT, "Bus error": syscall.SIGBUS,
	"Floating point exception": syscall.SIGFPE, "Killed": syscall.SIGKILL, "User defined signal 1": syscall.SIGUSR1,
	"Segmentation fault": syscall.SIGSEGV, "User defined signal 2": syscall.SIGUSR2, "Broken pipe": syscall.SIGPIPE,
	"Alarm clock": syscall.SIGALRM, "Terminated": syscall.SIGTERM,
}

// parseTaskEnd reads "Exited with exit code 3" or a signal's description.
func parseTaskEnd(s string) (code int, sig syscall.Signal, text string) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "Exited with exit code "); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil {
			return n, 0, ""
		}
	}
	desc, _, _ := strings.Cut(s, " (core dumped)")
	if sg, ok := srunSignals[desc]; ok {
		return -1, sg, ""
	}
	return 1, 0, s
}
