package topology

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/internal/hostlist"
	"github.com/rlsolve/rlsolve/internal/slurmcli"
	"github.com/rlsolve/rlsolve/model"
)

// Runner runs a Slurm command (slurmcli.Runner: tests pass recorded
// outputs).
type Runner = slurmcli.Runner

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

// ParseScontrolNodes parses `scontrol show node -o` (one record per line),
// or the multi-line form without -o; source names the output in errors
// (*slurmcli.Error, with a position).
func ParseScontrolNodes(source string, data []byte) ([]SlurmNode, error) {
	recs, err := slurmcli.ParseRecords(source, data, "NodeName", slurmcli.MaxNodes)
	if err != nil {
		return nil, err
	}
	return decodeNodes(source, recs)
}

func decodeNodes(source string, recs []slurmcli.Record) ([]SlurmNode, error) {
	out := make([]SlurmNode, len(recs))
	for i, r := range recs {
		out[i] = SlurmNode{Fields: r.Fields, Line: r.Line}
		if err := out[i].decode(source); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// decode fills the typed fields from Fields.
func (n *SlurmNode) decode(source string) error {
	n.Name = n.Fields["NodeName"]
	if n.Name == "" {
		return &slurmcli.Error{Source: source, Line: n.Line, Col: 1, Msg: "a node record has an empty NodeName"}
	}
	n.Addr = n.Fields["NodeAddr"]
	n.HostName = n.Fields["NodeHostName"]
	n.State = n.Fields["State"]
	if c, ok := n.Fields["CPUTot"]; ok {
		v, err := strconv.Atoi(c)
		if err != nil || v < 0 || v > 1<<20 {
			return &slurmcli.Error{Source: source, Line: n.Line, Col: 1, Msg: fmt.Sprintf("node %s: CPUTot=%q is not a CPU count", n.Name, clip(c))}
		}
		n.CPUs = v
	}
	if g, ok := n.Fields["Gres"]; ok {
		count, typ, err := ParseGres(g)
		if err != nil {
			return &slurmcli.Error{Source: source, Line: n.Line, Col: 1, Msg: fmt.Sprintf("node %s: Gres=%s: %v", n.Name, clip(g), err)}
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
	for _, item := range hostlist.SplitOutside(s, '(', ')') { // gpu:2(S:0,1),shard:4
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
		if kind != "" && !slices.Contains(types, kind) {
			types = append(types, kind)
		}
	}
	return count, strings.Join(types, "+"), nil
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
	// Run runs scontrol and sinfo (nil: on this machine).
	Run Runner
}

// slurmNames lists the node names to describe: a partition's (sinfo) or
// an allocation's (its host list), each once; source says which.
func slurmNames(ctx context.Context, cli *slurmcli.Client, opt SlurmOptions) (names []string, source string, warnings []string, err error) {
	switch {
	case opt.Partition != "":
		if names, err = cli.PartitionNodes(ctx, opt.Partition); err != nil {
			return nil, "", nil, err
		}
		if len(names) == 0 {
			return nil, "", nil, fmt.Errorf("sinfo lists no nodes in partition %q (does it exist? `sinfo -s` lists the partitions)", opt.Partition)
		}
		source = fmt.Sprintf("Slurm partition %s", opt.Partition)
	case strings.TrimSpace(opt.NodeList) != "":
		var dups []string
		if names, dups, err = cli.Hostnames(ctx, opt.NodeList); err != nil {
			return nil, "", nil, err
		}
		for _, d := range dups {
			warnings = append(warnings, fmt.Sprintf("the host list names %s more than once; it is described once", d))
		}
		if len(names) == 0 {
			return nil, "", nil, fmt.Errorf("`scontrol show hostnames %s` named no nodes", opt.NodeList)
		}
		source = fmt.Sprintf("Slurm allocation %s", opt.NodeList)
	default:
		return nil, "", nil, errors.New("not inside a Slurm allocation (SLURM_JOB_NODELIST is not set): run inside salloc/sbatch, or pass --partition NAME")
	}
	return names, source, warnings, nil
}

// DiscoverSlurm builds an inventory of a Slurm allocation or partition:
// nodes in host-list order (ranks 0..n-1), each with its Slurm node name as
// host name, NodeAddr as IP when it is an address, CPUTot, and the GPU
// count and type of its Gres. warnings are for the user (left-out or
// unusable nodes, missing fields).
func DiscoverSlurm(ctx context.Context, opt SlurmOptions) (inv *model.Inventory, warnings []string, err error) {
	cli := &slurmcli.Client{Run: opt.Run}
	names, source, warnings, err := slurmNames(ctx, cli, opt)
	if err != nil {
		return nil, nil, err
	}
	raw, err := cli.Nodes(ctx)
	if err != nil {
		return nil, nil, err
	}
	recs, err := decodeNodes("scontrol show node -o", raw)
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
			return nil, warnings, &slurmcli.Error{Source: "scontrol show node -o", Line: r.Line, Col: 1, Msg: fmt.Sprintf("node name %q is not a host name", clip(r.Name))}
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
