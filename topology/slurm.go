package topology

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os/exec"
	"regexp"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// Runner runs a command and returns its standard output. An error says
// what failed, with the command's standard error when it has one.
type Runner func(ctx context.Context, name string, args ...string) ([]byte, error)

// ExecRunner runs the command on this machine.
func ExecRunner(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		line := strings.Join(append([]string{name}, args...), " ")
		var ee *exec.ExitError
		if msg := strings.TrimSpace(stderr.String()); msg != "" && errors.As(err, &ee) {
			return nil, fmt.Errorf("`%s` failed (%v): %s", line, err, msg)
		}
		if errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("`%s`: %s is not installed or not on PATH (is this a Slurm login or compute node?)", line, name)
		}
		return nil, fmt.Errorf("`%s` failed: %v", line, err)
	}
	return out, nil
}

// SlurmNode is one record of `scontrol show node -o`.
type SlurmNode struct {
	Name     string // NodeName
	Addr     string // NodeAddr
	HostName string // NodeHostName
	State    string
	CPUs     int // CPUTot
	GPUs     int // from Gres
	GPUType  string
	// Fields holds every key=value of the record (the first value of a
	// key that appears twice).
	Fields map[string]string
	// Line is the record's first line in the output.
	Line int
}

// SlurmError is a problem in scontrol output at a position.
type SlurmError struct {
	Source    string
	Line, Col int
	Msg       string
}

func (e *SlurmError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Source, e.Line, e.Col, e.Msg)
}

// slurmKey is how scontrol's keys look (CamelCase), so that "fail=yes"
// inside a Reason stays text.
var slurmKey = regexp.MustCompile(`^[A-Z][A-Za-z0-9_]*=`)

// maxSlurmNodes bounds one scontrol listing.
const maxSlurmNodes = 65_536

// ParseScontrolNodes parses `scontrol show node -o` (one record per line),
// or the multi-line form without -o (records separated by blank lines,
// continuation lines indented). Values may contain spaces (OS=Linux 6.1
// #1 SMP ...): a word without `key=` continues the previous value. source
// names the output in errors.
func ParseScontrolNodes(source string, data []byte) ([]SlurmNode, error) {
	var out []SlurmNode
	var cur *SlurmNode
	lastKey := ""
	flush := func() error {
		if cur == nil {
			return nil
		}
		n := cur
		cur = nil
		if err := n.decode(source); err != nil {
			return err
		}
		out = append(out, *n)
		if len(out) > maxSlurmNodes {
			return &SlurmError{source, n.Line, 1, fmt.Sprintf("more than %d nodes", maxSlurmNodes)}
		}
		return nil
	}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	for i, line := range lines {
		ln := i + 1
		if strings.TrimSpace(line) == "" {
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		continued := line[0] == ' ' || line[0] == '\t'
		if !continued {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		col := 0
		for col < len(line) {
			for col < len(line) && (line[col] == ' ' || line[col] == '\t') {
				col++
			}
			if col >= len(line) {
				break
			}
			end := col
			for end < len(line) && line[end] != ' ' && line[end] != '\t' {
				end++
			}
			word := line[col:end]
			if slurmKey.MatchString(word) {
				k, v, _ := strings.Cut(word, "=")
				if cur == nil {
					if k != "NodeName" {
						return nil, &SlurmError{source, ln, col + 1, fmt.Sprintf("expected a record starting with NodeName=, found %q", clip(word))}
					}
					cur = &SlurmNode{Fields: map[string]string{}, Line: ln}
				}
				if _, dup := cur.Fields[k]; dup {
					// A repeated key (inside a Reason, say) is text of the
					// value before it; the first value stands.
					if lastKey != "" {
						cur.Fields[lastKey] += " " + word
					}
				} else {
					cur.Fields[k] = v
					lastKey = k
				}
			} else {
				if cur == nil {
					return nil, &SlurmError{source, ln, col + 1, fmt.Sprintf("expected key=value, found %q (is this `scontrol show node -o` output?)", clip(word))}
				}
				if lastKey != "" {
					cur.Fields[lastKey] += " " + word
				}
			}
			col = end
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// decode fills the typed fields from Fields.
func (n *SlurmNode) decode(source string) error {
	n.Name = n.Fields["NodeName"]
	if n.Name == "" {
		return &SlurmError{source, n.Line, 1, "a node record has an empty NodeName"}
	}
	n.Addr = n.Fields["NodeAddr"]
	n.HostName = n.Fields["NodeHostName"]
	n.State = n.Fields["State"]
	if c, ok := n.Fields["CPUTot"]; ok {
		v, err := strconv.Atoi(c)
		if err != nil || v < 0 || v > 1<<20 {
			return &SlurmError{source, n.Line, 1, fmt.Sprintf("node %s: CPUTot=%q is not a CPU count", n.Name, clip(c))}
		}
		n.CPUs = v
	}
	if g, ok := n.Fields["Gres"]; ok {
		count, typ, err := ParseGres(g)
		if err != nil {
			return &SlurmError{source, n.Line, 1, fmt.Sprintf("node %s: Gres=%s: %v", n.Name, clip(g), err)}
		}
		n.GPUs, n.GPUType = count, typ
	}
	return nil
}

// ParseGres counts the GPUs of a node's Gres: "gpu:8", "gpu:a100:8",
// "gpu:a100:4(S:0-1),gpu:v100:2", "gpu:8,shard:16", "(null)". typ is the
// GPU type when there is one kind ("a100"), the kinds joined by "+" when
// there are several.
func ParseGres(s string) (count int, typ string, err error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "(null)" {
		return 0, "", nil
	}
	var types []string
	for _, item := range splitGres(s) {
		if i := strings.IndexByte(item, '('); i >= 0 {
			if !strings.HasSuffix(item, ")") {
				return 0, "", fmt.Errorf("unbalanced parenthesis in %q", item)
			}
			item = item[:i]
		}
		parts := strings.Split(item, ":")
		if parts[0] != "gpu" {
			continue
		}
		n := 1
		kind := ""
		switch len(parts) {
		case 1:
		case 2:
			if v, err := strconv.Atoi(parts[1]); err == nil {
				n = v
			} else {
				kind = parts[1]
			}
		case 3:
			kind = parts[1]
			v, err := strconv.Atoi(parts[2])
			if err != nil {
				return 0, "", fmt.Errorf("GPU count %q is not a number", parts[2])
			}
			n = v
		default:
			return 0, "", fmt.Errorf("cannot read %q (expected gpu[:type]:count)", item)
		}
		if n < 0 || n > 1024 {
			return 0, "", fmt.Errorf("GPU count %d is out of range", n)
		}
		count += n
		if count > 1024 {
			return 0, "", fmt.Errorf("more than 1024 GPUs")
		}
		if kind != "" && !contains(types, kind) {
			types = append(types, kind)
		}
	}
	return count, strings.Join(types, "+"), nil
}

// splitGres splits on commas outside parentheses ("gpu:2(S:0,1),shard:4").
func splitGres(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Usable says whether a node in this state can run a new job: not down,
// drained or draining, failing, powered down, or not responding.
func (n *SlurmNode) Usable() bool {
	st := strings.ToUpper(n.State)
	if st == "" {
		return true
	}
	if strings.HasSuffix(st, "*") || strings.HasSuffix(st, "~") || strings.HasSuffix(st, "#") || strings.HasSuffix(st, "!") || strings.HasSuffix(st, "%") {
		return false
	}
	for _, f := range strings.Split(st, "+") {
		switch f {
		case "DOWN", "DRAIN", "DRAINED", "DRAINING", "FAIL", "FAILING", "FUTURE", "NOT_RESPONDING", "POWERED_DOWN", "POWER_DOWN", "POWERING_DOWN", "UNKNOWN", "MAINTENANCE", "MAINT", "REBOOT_REQUESTED", "REBOOT_ISSUED", "INVALID_REG":
			return false
		}
	}
	return true
}

// SlurmOptions select the nodes DiscoverSlurm describes.
type SlurmOptions struct {
	// Partition lists the partition's nodes (sinfo); without it, NodeList
	// (SLURM_JOB_NODELIST) names the allocation's.
	Partition string
	NodeList  string
	// AllStates keeps a partition's nodes that cannot run jobs (down,
	// drained, ...); by default they are left out with a warning.
	AllStates bool
	// Run runs scontrol and sinfo (nil: ExecRunner).
	Run Runner
}

// DiscoverSlurm builds an inventory of a Slurm allocation or partition:
// nodes in host-list order (ranks 0..n-1), each with its Slurm node name as
// host name, NodeAddr as IP when it is an address, CPUTot, and the GPU
// count and type of its Gres. warnings are for the user (left-out or
// unusable nodes, missing fields).
func DiscoverSlurm(ctx context.Context, opt SlurmOptions) (inv *model.Inventory, warnings []string, err error) {
	run := opt.Run
	if run == nil {
		run = ExecRunner
	}
	var names []string
	source := ""
	switch {
	case opt.Partition != "":
		out, err := run(ctx, "sinfo", "-h", "-N", "-p", opt.Partition, "-o", "%N")
		if err != nil {
			return nil, nil, err
		}
		seen := map[string]bool{}
		for _, f := range strings.Fields(string(out)) {
			if !seen[f] {
				seen[f] = true
				names = append(names, f)
			}
		}
		if len(names) == 0 {
			return nil, nil, fmt.Errorf("sinfo lists no nodes in partition %q (does it exist? `sinfo -s` lists the partitions)", opt.Partition)
		}
		source = fmt.Sprintf("Slurm partition %s", opt.Partition)
	case strings.TrimSpace(opt.NodeList) != "":
		out, err := run(ctx, "scontrol", "show", "hostnames", opt.NodeList)
		if err != nil {
			return nil, nil, err
		}
		seen := map[string]bool{}
		for _, f := range strings.Fields(string(out)) {
			if seen[f] {
				warnings = append(warnings, fmt.Sprintf("the host list names %s more than once; it is described once", f))
				continue
			}
			seen[f] = true
			names = append(names, f)
		}
		if len(names) == 0 {
			return nil, nil, fmt.Errorf("`scontrol show hostnames %s` named no nodes", opt.NodeList)
		}
		source = fmt.Sprintf("Slurm allocation %s", opt.NodeList)
	default:
		return nil, nil, errors.New("not inside a Slurm allocation (SLURM_JOB_NODELIST is not set): run inside salloc/sbatch, or pass --partition NAME")
	}
	if len(names) > maxSlurmNodes {
		return nil, nil, fmt.Errorf("%d nodes is more than rlsolve describes (%d)", len(names), maxSlurmNodes)
	}
	out, err := run(ctx, "scontrol", "show", "node", "-o")
	if err != nil {
		return nil, nil, err
	}
	recs, err := ParseScontrolNodes("scontrol show node -o", out)
	if err != nil {
		return nil, nil, err
	}
	byName := map[string]int{}
	for i, r := range recs {
		if _, dup := byName[r.Name]; !dup {
			byName[r.Name] = i
		}
	}
	// A partition's nodes come in Slurm's node-table order (the order of
	// its host lists); an allocation's in the order its host list names.
	var picked []*SlurmNode
	var missing []string
	if opt.Partition != "" {
		want := map[string]bool{}
		for _, n := range names {
			want[n] = true
		}
		for i := range recs {
			if want[recs[i].Name] {
				picked = append(picked, &recs[i])
				delete(want, recs[i].Name)
			}
		}
		for _, n := range names {
			if want[n] {
				missing = append(missing, n)
			}
		}
	} else {
		for _, n := range names {
			i, ok := byName[n]
			if !ok {
				missing = append(missing, n)
				continue
			}
			picked = append(picked, &recs[i])
		}
	}
	if len(missing) > 0 {
		return nil, nil, fmt.Errorf("scontrol show node -o does not describe %s", strings.Join(missing, ", "))
	}
	inv = &model.Inventory{Source: source}
	for _, r := range picked {
		if !r.Usable() {
			if opt.Partition != "" && !opt.AllStates {
				warnings = append(warnings, fmt.Sprintf("left out node %s: its state is %s (pass --all-states to keep it)%s", r.Name, r.State, reason(r)))
				continue
			}
			warnings = append(warnings, fmt.Sprintf("node %s is in state %s: jobs may not run there%s", r.Name, r.State, reason(r)))
		}
		if _, ok := r.Fields["Gres"]; !ok {
			warnings = append(warnings, fmt.Sprintf("node %s reports no Gres: described without GPUs", r.Name))
		}
		if _, ok := r.Fields["CPUTot"]; !ok {
			warnings = append(warnings, fmt.Sprintf("node %s reports no CPUTot", r.Name))
		}
		if !hostName.MatchString(r.Name) {
			return nil, warnings, &SlurmError{"scontrol show node -o", r.Line, 1, fmt.Sprintf("node name %q is not a host name", clip(r.Name))}
		}
		nd := model.Node{Rank: len(inv.Nodes), Hostname: r.Name, CPUs: r.CPUs, AccelCount: r.GPUs}
		if modelName.MatchString(r.GPUType) {
			nd.AccelModel = r.GPUType
		}
		if r.GPUs > 0 {
			nd.AccelType = model.AccelNVGPU
		}
		if a, err := netip.ParseAddr(r.Addr); err == nil {
			nd.IP = a.String()
		} else if r.Addr != "" && r.Addr != r.Name {
			warnings = append(warnings, fmt.Sprintf("node %s: NodeAddr %s is not an IP address; the inventory leaves ip out (MASTER_ADDR falls back to the host name)", r.Name, r.Addr))
		}
		inv.Nodes = append(inv.Nodes, nd)
	}
	if len(inv.Nodes) == 0 {
		return nil, warnings, fmt.Errorf("no usable nodes in %s", source)
	}
	return inv, warnings, nil
}

func reason(r *SlurmNode) string {
	if s := strings.TrimSpace(r.Fields["Reason"]); s != "" {
		return "; reason: " + s
	}
	return ""
}
