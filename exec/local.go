package exec

import (
	"context"
	"slices"
	"strings"
	"syscall"
)

// Local runs every worker as a process on this machine, each in its own
// process group, all owned by the guardian (see GuardCommand) and, where
// cgroup v2 is delegated, in the run's own cgroup.
type Local struct {
	// Oversubscribe runs every worker of a plan that spans several nodes
	// on this machine. Without it such a plan is refused, unless the job is
	// one node's share (Job.OnNode).
	Oversubscribe bool
}

// Launch starts every worker, streams their output, and waits. See the
// package documentation for the contract.
func (l Local) Launch(ctx context.Context, job *Job, opt Options) (*Report, error) {
	r := newRun(job, &opt, "local")
	ws := job.workers()
	if n := job.nodes(); n > 1 && job.Node < 0 && !l.Oversubscribe {
		return nil, Errorf(ExitUsage, "the plan puts its %d workers on %d nodes, and the local backend would run them all on this machine: "+
			"use --backend slurm inside an allocation, --node N on each node to run that node's share, or --oversubscribe to run them all here", len(ws), n)
	}
	if err := setLocalMasters(job, r.notef); err != nil {
		return nil, err
	}
	units, err := localUnits(ws, opt.environ())
	if err != nil {
		return nil, err
	}
	if err := r.openDir(); err != nil {
		return nil, err
	}
	names := logNames(ws)
	r.rep.Workers = make([]WorkerResult, len(ws))
	for i, w := range ws {
		r.rep.Workers[i] = WorkerResult{Component: w.Component, Rank: w.Rank, Host: w.Host, ExitCode: -1, Err: "not started"}
		if r.dir != nil {
			units[i].Logs = []string{names[i]}
			r.rep.Workers[i].Log = r.dir.path + "/" + names[i]
		}
	}
	r.contain()
	h := &localHooks{r: r, results: slices.Clone(r.rep.Workers)}
	if err := r.startGuard(units, nil, h.translate); err != nil {
		r.finish()
		return nil, err
	}
	r.supervise(ctx, h)
	r.finish()
	return r.rep, nil
}

// setLocalMasters gives every component its MASTER_ADDR and MASTER_PORT:
// for the whole plan, this machine (the plan's address when it is one of
// this machine's, else 127.0.0.1) and a port free here; for one node's
// share, the plan's, which every node's agent agrees on.
func setLocalMasters(job *Job, notef func(string, ...any)) error {
	if job.Node >= 0 {
		for _, c := range job.Components {
			c.setMaster(c.MasterAddr, c.MasterPort)
		}
		return nil
	}
	need := 0
	for _, c := range job.Components {
		if c.MasterPort == 0 {
			need++
		}
	}
	ports, err := freePorts(need)
	if err != nil {
		return Errorf(ExitStart, "choosing MASTER_PORT: %w", err)
	}
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
	}
	for _, addr := range remoteOrder {
		notef("MASTER_ADDR %s (the inventory's address of rank 0's node of %s) is not an address of this machine; the local workers use 127.0.0.1",
			addr, strings.Join(remote[addr], ", "))
	}
	if n := job.nodes(); n > 1 {
		notef("the plan spans %d nodes; the local backend runs all their workers on this machine", n)
	}
	return nil
}

// localUnits resolves every worker's program before anything starts.
func localUnits(ws []*Worker, base []string) ([]guardUnit, error) {
	units := make([]guardUnit, len(ws))
	for i, w := range ws {
		env := MergeEnv(base, w.Env)
		path, err := LookPath(w.Argv[0], env)
		if err != nil {
			return nil, Errorf(ExitStart, "%s: cannot run %w", w.Name(), err)
		}
		units[i] = guardUnit{Path: path, Argv: w.Argv, Env: env, Names: []string{w.Name()}}
	}
	return units, nil
}

// localHooks carry out the supervisor's orders through the guardian.
type localHooks struct {
	r *run
	// results are the workers' results as they start (the translator's
	// own: the supervisor owns the report's).
	results []WorkerResult
}

func (h *localHooks) signal(sig syscall.Signal) { h.r.guard.op(guardOp{Op: "signal", Sig: int(sig)}) }
func (h *localHooks) kill()                     { h.r.guard.op(guardOp{Op: "kill"}) }
func (h *localHooks) forceKill()                {}
func (h *localHooks) lost()                     { h.r.sweepLost() }

// translate: a unit is a worker, its slot in the report is its index.
func (h *localHooks) translate(ev guardEvent) []unitEvent {
	if ev.Unit < 0 || ev.Unit >= len(h.results) {
		return nil
	}
	r := h.results[ev.Unit]
	switch ev.Kind {
	case "started":
		return []unitEvent{{unit: ev.Unit, slot: ev.Unit, started: true}}
	case "failed":
		r.Err = ev.Msg
		return []unitEvent{{unit: ev.Unit, slot: ev.Unit, result: &r}}
	case "exit":
		ws := syscall.WaitStatus(ev.Status)
		r.Started, r.Err = true, ""
		if ws.Signaled() {
			r.ExitCode, r.Signal = -1, ws.Signal()
		} else {
			r.ExitCode = ws.ExitStatus()
		}
		return []unitEvent{{unit: ev.Unit, slot: ev.Unit, result: &r, done: true}}
	}
	return nil
}
