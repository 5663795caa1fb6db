package exec

import (
	"context"
	"fmt"
	"os"
	osexec "os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Local runs every worker as a process on this machine, each in its own
// process group, whatever node the plan puts it on (so a multi-node plan
// can be tried out on one machine).
type Local struct{}

// stream buffers: 32 KiB per read.
const readChunk = 32 << 10

type localProc struct {
	w       *Worker
	cmd     *osexec.Cmd
	pgid    int
	done    bool
	readers sync.WaitGroup
	files   []*os.File // read ends, closed by the pumps
	log     *workerLog
}

type exitEvent struct {
	idx   int
	state *os.ProcessState
	err   error
	at    time.Time
}

// Launch starts every worker, streams their output, and waits. See the
// package documentation for the contract.
func (Local) Launch(ctx context.Context, job *Job, opt Options) (*Report, error) {
	start := time.Now()
	rep := &Report{ID: job.ID, Backend: "local", LogDir: opt.LogDir}
	notef := func(format string, args ...any) {
		rep.Notes = append(rep.Notes, fmt.Sprintf(format, args...))
		opt.notef(format, args...)
	}
	base := opt.environ()

	// MASTER_ADDR must be this machine; MASTER_PORT a port free here.
	need := 0
	for _, c := range job.Components {
		if c.MasterPort == 0 {
			need++
		}
	}
	ports, err := freePorts(need)
	if err != nil {
		return nil, fmt.Errorf("choosing MASTER_PORT: %w", err)
	}
	nodes := map[int]bool{}
	remote := map[string][]string{} // MASTER_ADDR not of this machine → components
	var remoteOrder []string
	for _, c := range job.Components {
		addr := c.MasterAddr
		if addr == "" || !isLocalAddr(addr) {
			if addr != "" {
				if remote[addr] == nil {
					remoteOrder = append(remoteOrder, addr)
				}
				remote[addr] = append(remote[addr], c.Name)
			}
			addr = "127.0.0.1"
		}
		port := c.MasterPort
		if port == 0 {
			port, ports = ports[0], ports[1:]
		}
		c.setMaster(addr, port)
		for i := range c.Workers {
			nodes[c.Workers[i].Node] = true
		}
	}
	for _, addr := range remoteOrder {
		notef("MASTER_ADDR %s (the inventory's address of rank 0's node of %s) is not an address of this machine; the local workers use 127.0.0.1",
			addr, strings.Join(remote[addr], ", "))
	}
	if len(nodes) > 1 {
		notef("the plan spans %d nodes; the local backend runs all their workers on this machine", len(nodes))
	}

	// Resolve every program before starting anything.
	ws := job.workers()
	rep.Total = len(ws)
	envs := make([][]string, len(ws))
	paths := make([]string, len(ws))
	for i, w := range ws {
		envs[i] = MergeEnv(base, w.Env)
		p, err := LookPath(w.Argv[0], envs[i])
		if err != nil {
			return nil, fmt.Errorf("%s: cannot run %v", w.Name(), err)
		}
		paths[i] = p
	}
	logs, err := openLogs(opt.LogDir, ws)
	if err != nil {
		return nil, err
	}
	sink := &lineSink{out: opt.Stdout, err: opt.Stderr}

	procs := make([]*localProc, len(ws))
	results := make([]WorkerResult, len(ws))
	exits := make(chan exitEvent, len(ws))
	pgids := map[int]bool{}
	running := 0
	var startErr *WorkerResult
	for i, w := range ws {
		results[i] = WorkerResult{Component: w.Component, Rank: w.Rank, Host: w.Host, ExitCode: -1}
		pr, err := startLocal(w, paths[i], envs[i], sink, logs[i])
		if err != nil {
			results[i].Err = err.Error()
			results[i].At = time.Since(start)
			startErr = &results[i]
			break
		}
		procs[i] = pr
		pgids[pr.pgid] = true
		results[i].Started = true
		running++
		go func(i int, pr *localProc) {
			err := pr.cmd.Wait()
			exits <- exitEvent{idx: i, state: pr.cmd.ProcessState, err: err, at: time.Now()}
		}(i, pr)
	}
	rep.AllStarted = time.Since(start)

	grace := opt.grace()
	var graceC <-chan time.Time
	stopping := false
	signalAll := func(sig syscall.Signal) {
		for _, pr := range procs {
			if pr != nil && !pr.done {
				_ = syscall.Kill(-pr.pgid, sig)
			}
		}
	}
	stop := func(sig syscall.Signal) {
		stopping = true
		signalAll(sig)
		graceC = time.After(grace)
	}
	if startErr != nil {
		rep.First = startErr
		stop(syscall.SIGTERM)
	}
	killed := map[int]bool{}
	done := ctx.Done()
	for running > 0 {
		select {
		case ev := <-exits:
			running--
			pr := procs[ev.idx]
			pr.done = true
			r := &results[ev.idx]
			r.At = ev.at.Sub(start)
			r.Stopped = stopping
			if ev.state != nil {
				ws, _ := ev.state.Sys().(syscall.WaitStatus)
				switch {
				case ws.Signaled():
					r.ExitCode, r.Signal = -1, ws.Signal()
				default:
					r.ExitCode = ev.state.ExitCode()
				}
			} else if ev.err != nil {
				r.Err = ev.err.Error()
				r.ExitCode = 1
			}
			if r.Failed() && !stopping {
				rep.First = r
				stop(syscall.SIGTERM)
			}
		case s := <-opt.Signals:
			sig, ok := s.(syscall.Signal)
			if !ok {
				sig = syscall.SIGTERM
			}
			if stopping {
				signalAll(syscall.SIGKILL)
				markKilled(procs, killed)
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
			markKilled(procs, killed)
			signalAll(syscall.SIGKILL)
		}
	}
	rep.Killed = len(killed)
	for i := range results {
		if results[i].Stopped && &results[i] != rep.First {
			rep.Stopped++
		}
	}

	// Whatever the workers left behind (a daemon, a background child)
	// goes too, then their output is drained.
	rep.Leftovers = sweep(job.ID, pgids, min(grace, 2*time.Second))
	drained := make(chan struct{})
	go func() {
		for _, pr := range procs {
			if pr != nil {
				pr.readers.Wait()
			}
		}
		close(drained)
	}()
	select {
	case <-drained:
	case <-time.After(2 * time.Second):
		// Something outside the launch still holds a pipe: stop reading.
		for _, pr := range procs {
			if pr != nil {
				for _, f := range pr.files {
					_ = f.Close()
				}
			}
		}
		<-drained
		notef("some worker output was still open 2s after every worker had ended; stopped reading it")
	}
	for i, l := range logs {
		if err := l.close(); err != nil {
			notef("%s: log file %s: %v", ws[i].Name(), l.path, err)
		}
	}
	rep.Workers = results
	rep.Elapsed = time.Since(start)
	return rep, nil
}

func markKilled(procs []*localProc, killed map[int]bool) {
	for i, pr := range procs {
		if pr != nil && !pr.done {
			killed[i] = true
		}
	}
}

// startLocal starts one worker in its own process group, its stdout and
// stderr on pipes that pumps read line by line.
func startLocal(w *Worker, path string, env []string, sink *lineSink, log *workerLog) (*localProc, error) {
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
	cmd := &osexec.Cmd{Path: path, Args: w.Argv, Env: env, Stdout: outW, Stderr: errW,
		// Pdeathsig: should launch itself be killed outright, the worker
		// does not outlive it.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}}
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, err
	}
	pr := &localProc{w: w, cmd: cmd, pgid: cmd.Process.Pid, files: []*os.File{outR, errR}, log: log}
	prefix := w.Name() + ": "
	pr.readers.Add(2)
	go pump(outR, newLineWriter(prefix, sink, false, log), &pr.readers)
	go pump(errR, newLineWriter(prefix, sink, true, log), &pr.readers)
	return pr, nil
}

// pump copies a pipe into a lineWriter until EOF.
func pump(r *os.File, w *lineWriter, wg *sync.WaitGroup) {
	defer wg.Done()
	buf := make([]byte, readChunk)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			_, _ = w.Write(buf[:n])
		}
		if err != nil {
			break
		}
	}
	w.Close()
	_ = r.Close()
}
