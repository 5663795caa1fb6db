package topology

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
)

// The discoveries of `rlsolve topology`: each gives an inventory and the
// comments that head its file, or an error that says why the source could
// not be read (the command's exit 2).

// Discovered is an inventory a discovery found.
type Discovered struct {
	Inventory *model.Inventory
	// Comments head the inventory file: where it came from.
	Comments []string
	// Ranked: the file states each node's rank.
	Ranked bool
}

// SlurmTimeout bounds each Slurm discovery (scontrol on a busy controller).
const SlurmTimeout = 60 * time.Second

// NVMLRequest is what `topology --nvml` knows of this node besides NVML.
type NVMLRequest struct {
	Rank         int // -1: $RLINF_NODE_RANK, else none
	Hostname, IP string
	LookupEnv    func(string) (string, bool)
}

// DiscoverThisNode describes this node through lib as one node of an
// inventory, ranked when r or RLINF_NODE_RANK gives its rank.
func DiscoverThisNode(lib NVMLLibrary, r NVMLRequest) (*Discovered, error) {
	rank := r.Rank
	if rank < 0 {
		n, err := EnvNodeRank(r.LookupEnv, grammar.DefaultLimits.MaxClusterNodes)
		if err != nil {
			return nil, err
		}
		rank = n
	}
	host := r.Hostname
	if host == "" {
		host, _ = os.Hostname()
	}
	ip := r.IP
	if ip == "" {
		ip = LocalIPv4()
	}
	node, err := DiscoverNVML(lib, NVMLOptions{Hostname: host, IP: ip})
	if err != nil {
		if errors.Is(err, ErrNoNVML) {
			return nil, fmt.Errorf("%v\n%s", err, NoDriverHelp)
		}
		return nil, fmt.Errorf("reading the GPUs through NVML: %v", err)
	}
	node.Rank = max(rank, 0)
	where := host
	if where == "" {
		where = "this node"
	}
	d := &Discovered{Inventory: &model.Inventory{Nodes: []model.Node{*node}, Source: "NVML"}, Ranked: rank >= 0,
		Comments: []string{fmt.Sprintf("rlsolve topology --nvml: %d GPU(s) on %s", node.AccelCount, where)}}
	if rank < 0 {
		d.Comments = append(d.Comments, "No rank: give one with --rank N (or RLINF_NODE_RANK), or let 'rlsolve topology merge' order the nodes by IP.")
	}
	return d, nil
}

// DiscoverAllocation describes the Slurm allocation ($SLURM_JOB_NODELIST,
// else $SLURM_NODELIST, where opt names none) or opt's partition, within
// SlurmTimeout. The warnings come with an error too.
func DiscoverAllocation(ctx context.Context, opt SlurmOptions, getenv func(string) string) (*Discovered, []string, error) {
	if opt.NodeList == "" {
		if opt.NodeList = getenv("SLURM_JOB_NODELIST"); opt.NodeList == "" {
			opt.NodeList = getenv("SLURM_NODELIST")
		}
	}
	ctx, cancel := context.WithTimeout(ctx, SlurmTimeout)
	defer cancel()
	inv, warnings, err := DiscoverSlurm(ctx, opt)
	if err != nil {
		return nil, warnings, err
	}
	return &Discovered{Inventory: inv, Ranked: true, Comments: []string{
		fmt.Sprintf("rlsolve topology --slurm: %d node(s) of %s, ranks in host-list order", len(inv.Nodes), inv.Source),
		"Host names are Slurm node names (what srun --nodelist takes)."}}, warnings, nil
}

// ReadRayDump imports the Ray node-list dump in file. It returns the
// diagnostics to show (an unusable dump's own error among them) and the
// file's text for their code frames, with or without an error.
func ReadRayDump(file string, opt RayOptions) (*Discovered, model.Diagnostics, []byte, error) {
	data, d := grammar.ReadFile(file, grammar.DefaultLimits)
	if d != nil {
		return nil, nil, nil, fmt.Errorf("topology --ray: %s", d.Summary)
	}
	inv, ds, err := ImportRayWith(file, data, opt)
	if err != nil {
		var re *RayError
		if errors.As(err, &re) {
			ds = append(ds, model.Diagnostic{Severity: model.SeverityError, Summary: re.Msg, Primary: re.Span})
			return nil, ds, data, fmt.Errorf("%s is not a usable Ray node list", file)
		}
		return nil, ds, data, fmt.Errorf("topology --ray: %v", err)
	}
	if inv == nil || ds.HasErrors() {
		return nil, ds, data, fmt.Errorf("%s: rlsolve cannot number these nodes (the errors above say why); fix them and dump again", file)
	}
	return &Discovered{Inventory: inv, Ranked: true,
		Comments: []string{fmt.Sprintf("rlsolve topology --ray %s: %d alive node(s)", file, len(inv.Nodes))}}, ds, data, nil
}

// MergeFiles reads and merges inventory files (Merge). read is the
// diagnostic of a file that cannot be read (nothing is merged then);
// texts are the files', for code frames.
func MergeFiles(files []string) (d *Discovered, ds model.Diagnostics, texts map[string][]byte, read *model.Diagnostic) {
	var inputs []MergeInput
	texts = map[string][]byte{}
	for _, file := range files {
		data, d := grammar.ReadFile(file, grammar.DefaultLimits)
		if d != nil {
			return nil, nil, nil, d
		}
		inputs = append(inputs, MergeInput{File: file, Data: data})
		texts[file] = data
	}
	inv, ds := Merge(inputs, grammar.DefaultLimits)
	if inv == nil || ds.HasErrors() {
		return nil, ds, texts, nil
	}
	return &Discovered{Inventory: inv, Ranked: true,
		Comments: []string{fmt.Sprintf("rlsolve topology merge: %d node(s) from %s", len(inv.Nodes), strings.Join(files, ", "))}}, ds, texts, nil
}
