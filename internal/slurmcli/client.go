// Package slurmcli is rlsolve's one client of the Slurm commands: the argv
// of scontrol, sinfo, squeue, scancel and srun, and the parsing of what
// they print (key=value records, host lists, step lists). topology
// describes a cluster with it; exec launches steps and cancels them.
package slurmcli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/internal/hostlist"
)

// Runner runs a command and returns its standard output. An error says
// what failed, with the command's standard error when it has one.
type Runner func(ctx context.Context, name string, args ...string) ([]byte, error)

// ExecRunner runs the command on this machine, in this process's
// environment.
func ExecRunner(ctx context.Context, name string, args ...string) ([]byte, error) {
	return execRun(ctx, nil, name, args...)
}

func execRun(ctx context.Context, env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		line := strings.Join(append([]string{name}, args...), " ")
		var ee *exec.ExitError
		if msg := strings.TrimSpace(stderr.String()); msg != "" && errors.As(err, &ee) {
			return nil, fmt.Errorf("`%s` failed (%w): %s", line, err, msg)
		}
		if errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("`%s`: %s is not installed or not on PATH (is this a Slurm login or compute node?): %w", line, name, err)
		}
		return nil, fmt.Errorf("`%s` failed: %w", line, err)
	}
	return out, nil
}

// MaxNodes bounds one listing of nodes (and a host list's expansion).
const MaxNodes = 65_536

// Client runs the Slurm commands.
type Client struct {
	// Scontrol, Sinfo, Squeue, Scancel and Srun name the commands
	// (default: found in PATH).
	Scontrol, Sinfo, Squeue, Scancel, Srun string
	// Env is the commands' environment (nil: this process's).
	Env []string
	// Run runs them (nil: on this machine, in Env).
	Run Runner
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (c *Client) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	if c.Run != nil {
		return c.Run(ctx, name, args...)
	}
	return execRun(ctx, c.Env, name, args...)
}

// SrunPath is the srun program.
func (c *Client) SrunPath() string { return orDefault(c.Srun, "srun") }

// Hostnames expands a Slurm host list as Slurm does (`scontrol show
// hostnames`), each name once, in order; dups lists the names the list
// gave more than once.
func (c *Client) Hostnames(ctx context.Context, list string) (names, dups []string, err error) {
	out, err := c.run(ctx, orDefault(c.Scontrol, "scontrol"), "show", "hostnames", list)
	if err != nil {
		return nil, nil, err
	}
	names, dups = unique(strings.Fields(string(out)))
	if len(names) > MaxNodes {
		return nil, nil, fmt.Errorf("host list %s names more than %d nodes", clip(list), MaxNodes)
	}
	return names, dups, nil
}

// PartitionNodes lists a partition's node names (`sinfo -h -N -p P -o %N`).
func (c *Client) PartitionNodes(ctx context.Context, partition string) ([]string, error) {
	out, err := c.run(ctx, orDefault(c.Sinfo, "sinfo"), "-h", "-N", "-p", partition, "-o", "%N")
	if err != nil {
		return nil, err
	}
	names, _ := unique(strings.Fields(string(out)))
	if len(names) > MaxNodes {
		return nil, fmt.Errorf("partition %s has more than %d nodes", partition, MaxNodes)
	}
	return names, nil
}

// Nodes reads every node's record (`scontrol show node -o`).
func (c *Client) Nodes(ctx context.Context) ([]Record, error) {
	out, err := c.run(ctx, orDefault(c.Scontrol, "scontrol"), "show", "node", "-o")
	if err != nil {
		return nil, err
	}
	return ParseRecords("scontrol show node -o", out, "NodeName", MaxNodes)
}

// Job is what launch needs to know about an allocation.
type Job struct {
	State string
	// Nodes are the allocation's node names, in host-list order.
	Nodes []string
	// GresPerNode is the GPU gres each node holds ("gpu:8"), or "".
	GresPerNode string
}

// Job reads an allocation (`scontrol show job -o ID`); its node list is
// expanded by the same parser as every host list, or by scontrol when
// that parser does not read it.
func (c *Client) Job(ctx context.Context, id string) (*Job, error) {
	out, err := c.run(ctx, orDefault(c.Scontrol, "scontrol"), "show", "job", "-o", id)
	if err != nil {
		return nil, err
	}
	recs, err := ParseRecords("scontrol show job -o "+id, out, "JobId", 1)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("scontrol show job -o %s printed no job", id)
	}
	f := recs[0].Fields
	job := &Job{State: f["JobState"], GresPerNode: gpuGres(f["TresPerNode"])}
	if list := f["NodeList"]; list != "" && list != "(null)" {
		if job.Nodes, err = hostlist.Expand(list, MaxNodes); err != nil {
			if job.Nodes, _, err = c.Hostnames(ctx, list); err != nil {
				return nil, fmt.Errorf("expanding the allocation's node list %q: %w", list, err)
			}
		}
	}
	return job, nil
}

// gpuGres picks the GPU gres of a TresPerNode value ("gres:gpu:8" or
// "gres/gpu:8" among others).
func gpuGres(tres string) string {
	g := ""
	for _, t := range strings.Split(tres, ",") {
		for _, p := range []string{"gres:", "gres/"} {
			if v, ok := strings.CutPrefix(t, p); ok && strings.HasPrefix(v, "gpu") {
				g = v
			}
		}
	}
	return g
}

func unique(xs []string) (out, dups []string) {
	seen := map[string]bool{}
	for _, x := range xs {
		if seen[x] {
			dups = append(dups, x)
			continue
		}
		seen[x] = true
		out = append(out, x)
	}
	return out, dups
}

// Step is a running job step as squeue lists it.
type Step struct {
	ID   string // "1234.5"
	Name string
}

// Steps lists a job's steps (`squeue --steps --jobs=J`).
func (c *Client) Steps(ctx context.Context, jobID string) ([]Step, error) {
	out, err := c.run(ctx, orDefault(c.Squeue, "squeue"), "--steps", "--jobs="+jobID, "--noheader", "--format=%i|%j")
	if err != nil {
		return nil, err
	}
	var steps []Step
	for _, line := range strings.Split(string(out), "\n") {
		if id, name, ok := strings.Cut(strings.TrimSpace(line), "|"); ok {
			steps = append(steps, Step{ID: id, Name: name})
		}
	}
	return steps, nil
}

// Cancel cancels steps or jobs (`scancel IDS`), or sends them a signal
// when sig ("TERM", "KILL") is not empty (`scancel --signal=SIG IDS`).
func (c *Client) Cancel(ctx context.Context, sig string, ids ...string) error {
	var args []string
	if sig != "" {
		args = append(args, "--signal="+sig)
	}
	_, err := c.run(ctx, orDefault(c.Scancel, "scancel"), append(args, ids...)...)
	return err
}

// StepSpec is one srun step inside an allocation, its tasks placed by a
// host file (SLURM_HOSTFILE, one node per task).
type StepSpec struct {
	JobID  string
	NTasks int
	Name   string
	// Label prefixes each output line with its task ("3: ").
	Label bool
	// Gres is srun's --gres, "" for none.
	Gres string
}

// RunStep runs a short step to its end (srun with its tasks placed by the
// host file) and returns its standard output.
func (c *Client) RunStep(ctx context.Context, s StepSpec, hostFile string, argv ...string) ([]byte, error) {
	args := append(SrunArgs(s), argv...)
	if c.Run != nil {
		return c.Run(ctx, c.SrunPath(), args...)
	}
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	return execRun(ctx, append(slices.Clip(env), "SLURM_HOSTFILE="+hostFile), c.SrunPath(), args...)
}

// SrunArgs is srun's argv (without the program) for a step: it overlaps
// the allocation's other steps and reads no input.
func SrunArgs(s StepSpec) []string {
	args := []string{"--jobid=" + s.JobID, "--overlap", "--distribution=arbitrary", "--ntasks=" + strconv.Itoa(s.NTasks),
		"--input=none", "--job-name=" + s.Name, "--export=ALL"}
	if s.Label {
		args = append(args, "--label")
	}
	if s.Gres != "" {
		args = append(args, "--gres="+s.Gres)
	}
	return args
}
