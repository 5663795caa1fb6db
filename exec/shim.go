package exec

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// PlanFile is the file the Slurm backend writes for the shim: every
// launched worker with its program and variables. It travels as a file
// (on a file system the nodes share), never through the environment.
type PlanFile struct {
	FormatVersion string          `json:"format_version"`
	LaunchID      string          `json:"launch_id"`
	Components    []PlanComponent `json:"components"`
}

// PlanComponent is one srun step: task i is Workers[i].
type PlanComponent struct {
	Name       string       `json:"name"`
	MasterAddr string       `json:"master_addr"`
	MasterPort int          `json:"master_port"`
	Workers    []PlanWorker `json:"workers"`
}

// PlanWorker is one task.
type PlanWorker struct {
	Rank int               `json:"rank"`
	Host string            `json:"host"`
	Argv []string          `json:"argv"`
	Env  map[string]string `json:"env"`
}

func newPlanFile(job *Job) *PlanFile {
	pf := &PlanFile{FormatVersion: "1", LaunchID: job.ID}
	for _, c := range job.Components {
		pc := PlanComponent{Name: c.Name, MasterAddr: c.MasterAddr, MasterPort: c.MasterPort}
		for _, w := range c.Workers {
			pc.Workers = append(pc.Workers, PlanWorker{Rank: w.Rank, Host: w.Host, Argv: w.Argv, Env: w.Env})
		}
		pf.Components = append(pf.Components, pc)
	}
	return pf
}

// gpuVars are what Slurm's GPU plugin sets in a task; a worker the plan
// gives none of them must not see Slurm's.
var gpuVars = []string{"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"}

// Shim exit statuses when it cannot exec the worker.
const (
	ShimUsage       = 2
	ShimMismatch    = 3
	ShimCannotExec  = 126
	ShimNotFound    = 127
	shimPortsMarker = "rlsolve-ports"
)

// Shim is what each Slurm task runs (`rlsolve shim`):
//
//	shim --plan FILE --component NAME   find this task's worker by
//	                                    SLURM_PROCID, set its environment,
//	                                    exec its program
//	shim --ports N,N,...                task i binds N free ports and prints
//	                                    them (MASTER_PORT probing)
//
// On success the first form never returns; otherwise Shim returns the exit
// status, having said why on stderr.
func Shim(args []string, environ []string, stdout, stderr io.Writer) int {
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "rlsolve shim: "+format+"\n", a...)
		return code
	}
	var planPath, component, ports string
	for i := 0; i < len(args); i++ {
		val := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch a := args[i]; {
		case a == "--plan":
			planPath = val()
		case a == "--component":
			component = val()
		case a == "--ports":
			ports = val()
		case strings.HasPrefix(a, "--plan="):
			planPath = a[len("--plan="):]
		case strings.HasPrefix(a, "--component="):
			component = a[len("--component="):]
		case strings.HasPrefix(a, "--ports="):
			ports = a[len("--ports="):]
		default:
			return fail(ShimUsage, "unexpected argument %q (the shim runs inside Slurm tasks started by `rlsolve launch --backend slurm`)", a)
		}
	}
	procStr, _ := envValue(environ, "SLURM_PROCID")
	proc, err := strconv.Atoi(procStr)
	if err != nil || proc < 0 {
		return fail(ShimUsage, "SLURM_PROCID is %q: the shim runs inside a Slurm task", procStr)
	}
	if ports != "" {
		return shimPorts(ports, proc, stdout, fail)
	}
	if planPath == "" || component == "" {
		return fail(ShimUsage, "usage: shim --plan FILE --component NAME")
	}
	data, err := os.ReadFile(planPath)
	if err != nil {
		return fail(ShimMismatch, "reading the launch plan: %v (it must be on a file system every node sees)", err)
	}
	var pf PlanFile
	if err := json.Unmarshal(data, &pf); err != nil {
		return fail(ShimMismatch, "reading the launch plan %s: %v", planPath, err)
	}
	var pc *PlanComponent
	for i := range pf.Components {
		if pf.Components[i].Name == component {
			pc = &pf.Components[i]
		}
	}
	if pc == nil {
		return fail(ShimMismatch, "component %q is not in %s", component, planPath)
	}
	if proc >= len(pc.Workers) {
		return fail(ShimMismatch, "task %d, but %s has %d worker(s)", proc, component, len(pc.Workers))
	}
	w := &pc.Workers[proc]
	name := fmt.Sprintf("%s/%d", component, w.Rank)
	if node, _ := envValue(environ, "SLURMD_NODENAME"); node != "" && w.Host != "" && node != w.Host {
		return fail(ShimMismatch, "%s runs on %s, but the plan puts it on %s", name, node, w.Host)
	}
	if len(w.Argv) == 0 {
		return fail(ShimMismatch, "%s has no program", name)
	}
	env := MergeEnv(environ, w.Env, gpuVars...)
	path, err := LookPath(w.Argv[0], env)
	if err != nil {
		code := ShimNotFound
		if errors.Is(err, fs.ErrPermission) {
			code = ShimCannotExec
		}
		return fail(code, "%s: cannot run %v", name, err)
	}
	err = syscall.Exec(path, w.Argv, env)
	return fail(ShimCannotExec, "%s: exec %s: %v", name, path, err)
}

// shimPorts binds the ports task proc was asked for and prints them.
func shimPorts(spec string, proc int, stdout io.Writer, fail func(int, string, ...any) int) int {
	counts := strings.Split(spec, ",")
	if proc >= len(counts) {
		return fail(ShimUsage, "--ports has no count for task %d", proc)
	}
	n, err := strconv.Atoi(counts[proc])
	if err != nil || n < 0 || n > 1024 {
		return fail(ShimUsage, "--ports: bad count %q", counts[proc])
	}
	ports, err := freePorts(n)
	if err != nil {
		return fail(ShimMismatch, "choosing ports: %v", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d", shimPortsMarker, proc)
	for _, p := range ports {
		fmt.Fprintf(&b, " %d", p)
	}
	b.WriteString("\n")
	_, _ = io.WriteString(stdout, b.String())
	return 0
}
