package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
	"github.com/rlsolve/rlsolve/topology"
	"github.com/spf13/cobra"
)

func init() { register(newTopology) }

type topologyFlags struct {
	nvml, slurm, allStates bool
	rlinfOrder             bool
	ray, partition         string
	output                 string
	rank                   int
	hostname, ip           string
	live                   rayLiveFlags
}

func newTopology() *cobra.Command {
	var f topologyFlags
	c := &cobra.Command{
		Use:   "topology (--nvml | --slurm | --ray URL|FILE)",
		Short: "Discover an inventory: this node's GPUs (NVML), a Slurm allocation, or a Ray cluster (live or a dump)",
		Long: `topology writes the inventory that check and plan read (--inventory FILE), so
that nobody types their hardware by hand. Exactly one source:

  --nvml        this node, through the NVIDIA driver: GPU count, model, memory,
                and per GPU its UUID, PCI bus id, NUMA node and NVLink peers.
                Run it on every node and combine the files with 'topology merge'.
  --slurm       the nodes of the current allocation (SLURM_JOB_NODELIST) or of
                --partition P: Slurm node names, addresses, CPUs and GPU gres, in
                host-list order.
  --ray URL     a live Ray cluster, by its dashboard (http://HEAD:8265, or
                ray://HEAD:8265 for the same port): the alive nodes from the
                State API, and from a short probe job on every node each
                raylet's RLINF_NODE_RANK, NVML's GPU count and model, and its
                Python (--no-probe: HTTP only). --wait-nodes N waits, polling
                once a second as RLinf does, until N nodes are alive (at most
                --timeout, then exit 2 naming who joined). A warning where
                Ray's GPU resource differs from NVML's count: RLinf counts NVML.
                The token: RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH, ~/.ray/auth_token.
  --ray FILE    a dump of Ray's node list ('ray list nodes --detail --format
                json', or json.dumps(ray.nodes())): alive nodes, IPs, GPUs, and
                RLINF_NODE_RANK where the dump carries it.

Nodes without an explicit rank are ordered by IPv4 address, numerically
(decision D13), with a warning where RLinf would order them differently;
with --ray, --rlinf-order numbers them as RLinf will instead (the head node
first, then by accelerator type, IPs compared as strings).
The inventory goes to stdout (YAML, or JSON with --output json); warnings
to stderr. Exit 2 when the source cannot be read (no driver, a failing
scontrol, a bad dump, an unreachable dashboard or a refused token).`,
		Example: `  rlsolve topology --nvml --rank 0 > node0.yaml
  rlsolve topology merge node*.yaml > cluster.yaml
  rlsolve topology --slurm > cluster.yaml        # inside salloc/sbatch
  rlsolve topology --slurm --partition gpu --output json
  rlsolve topology --ray http://head:8265 --wait-nodes 4 --timeout 5m > cluster.yaml
  rlsolve check train.yaml --inventory ray://head:8265     # the live cluster, read the same way
  ray list nodes --detail --format json > nodes.json && rlsolve topology --ray nodes.json
  rlsolve check train.yaml --inventory cluster.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(f.output, topologyOutputs, ""); err != nil {
				return err
			}
			n := 0
			for _, on := range []bool{f.nvml, f.slurm, f.ray != ""} {
				if on {
					n++
				}
			}
			if n != 1 {
				return usageErrorf("give exactly one of --nvml, --slurm or --ray URL|FILE (or use 'rlsolve topology merge FILE...')")
			}
			if f.partition != "" && !f.slurm {
				return usageErrorf("--partition goes with --slurm")
			}
			if f.allStates && !f.slurm {
				return usageErrorf("--all-states goes with --slurm")
			}
			if (f.rank >= 0 || f.hostname != "" || f.ip != "") && !f.nvml {
				return usageErrorf("--rank, --hostname and --ip go with --nvml")
			}
			if err := f.live.check(cmd, isRayURL(f.ray)); err != nil {
				return err
			}
			if f.rlinfOrder && f.ray == "" {
				return usageErrorf("--rlinf-order goes with --ray (a Ray dump knows the head node RLinf puts first)")
			}
			switch {
			case f.nvml:
				return topologyNVML(cmd, &f, topology.OpenNVML())
			case f.slurm:
				return topologySlurm(cmd, &f, nil)
			case isRayURL(f.ray):
				return topologyRayLive(cmd, &f)
			default:
				return topologyRay(cmd, &f)
			}
		},
	}
	fl := c.Flags()
	fl.BoolVar(&f.nvml, "nvml", false, "describe this node through NVML (needs the NVIDIA driver)")
	fl.BoolVar(&f.slurm, "slurm", false, "describe the Slurm allocation (SLURM_JOB_NODELIST) or --partition")
	fl.StringVar(&f.ray, "ray", "", "read a live Ray cluster (`URL`: http://HEAD:8265 or ray://HEAD:8265) or import a node-list dump (a FILE, JSON)")
	fl.BoolVar(&f.rlinfOrder, "rlinf-order", false, "with --ray: number nodes without RLINF_NODE_RANK as RLinf does, not by numeric IP")
	fl.StringVar(&f.partition, "partition", "", "with --slurm: describe the nodes of partition `P` instead of the allocation")
	fl.BoolVar(&f.allStates, "all-states", false, "with --slurm --partition: keep nodes that are down or drained")
	f.rank = -1
	fl.Var((*optionalRank)(&f.rank), "rank", "with --nvml: this node's rank `N` (default: $RLINF_NODE_RANK, else none)")
	fl.StringVar(&f.hostname, "hostname", "", "with --nvml: the node's host name (default: this machine's)")
	fl.StringVar(&f.ip, "ip", "", "with --nvml: the node's IP address (default: the first non-loopback IPv4 address)")
	f.live.register(c)
	fl.StringVarP(&f.output, "output", "o", topologyOutputs[0], outputHelp(topologyOutputs))
	c.AddCommand(newTopologyMerge())
	return c
}

// optionalRank is a node rank flag whose unset value is -1.
type optionalRank int

func (o *optionalRank) String() string {
	if *o < 0 {
		return ""
	}
	return strconv.Itoa(int(*o))
}

func (o *optionalRank) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n >= grammar.DefaultLimits.MaxClusterNodes {
		return fmt.Errorf("must be a node rank from 0 to %d", grammar.DefaultLimits.MaxClusterNodes-1)
	}
	*o = optionalRank(n)
	return nil
}

func (o *optionalRank) Type() string { return "int" }

// writeInventory prints inv to stdout.
func writeInventory(cmd *cobra.Command, inv *model.Inventory, output string, ranks bool, comments ...string) error {
	out, err := topology.Encode(inv, topology.EncodeOptions{Format: output, Ranks: ranks, Comments: comments})
	if err != nil {
		return &exitError{code: exitInternal, msg: err.Error()}
	}
	if _, err := cmd.OutOrStdout().Write(out); err != nil {
		return &exitError{code: exitUsage, msg: "writing the inventory: " + err.Error()}
	}
	return nil
}

// writeDiscovered prints what a discovery found to stdout.
func writeDiscovered(cmd *cobra.Command, d *topology.Discovered, output string) error {
	return writeInventory(cmd, d.Inventory, output, d.Ranked, d.Comments...)
}

func topologyNVML(cmd *cobra.Command, f *topologyFlags, lib topology.NVMLLibrary) error {
	d, err := topology.DiscoverThisNode(lib, topology.NVMLRequest{Rank: f.rank, Hostname: f.hostname, IP: f.ip, LookupEnv: os.LookupEnv})
	if err != nil {
		return usageErrorf("%v", err)
	}
	return writeDiscovered(cmd, d, f.output)
}

func topologySlurm(cmd *cobra.Command, f *topologyFlags, run topology.Runner) error {
	opt := topology.SlurmOptions{Partition: f.partition, AllStates: f.allStates, Run: run}
	d, warnings, err := topology.DiscoverAllocation(cmd.Context(), opt, os.Getenv)
	for _, w := range warnings {
		fmt.Fprintf(cmd.ErrOrStderr(), "rlsolve: warning: %s\n", w)
	}
	if err != nil {
		return usageErrorf("topology --slurm: %v", err)
	}
	return writeDiscovered(cmd, d, f.output)
}

func topologyRay(cmd *cobra.Command, f *topologyFlags) error {
	d, ds, data, err := topology.ReadRayDump(f.ray, topology.RayOptions{RLinfOrder: f.rlinfOrder})
	diag.Text(cmd.ErrOrStderr(), ds, diag.MapSources(map[string][]byte{f.ray: data}), useColor())
	if err != nil {
		return usageErrorf("%v", err)
	}
	return writeDiscovered(cmd, d, f.output)
}

func newTopologyMerge() *cobra.Command {
	var output string
	c := &cobra.Command{
		Use:   "merge FILE...",
		Short: "Combine per-node inventory files (from topology --nvml on each node) into one",
		Long: `merge reads inventory files (typically one 'rlsolve topology --nvml' file per
node) and writes one inventory with ranks 0..n-1. When every node carries a
rank, those are used and must be unique and without gaps; when none does,
nodes are ordered by IPv4 address (D13), with a warning where RLinf would
order them differently; a mix is an error, as in RLinf. Two entries with one
rank, host name or GPU UUID are errors that point at both files (exit 1).`,
		Example: `  rlsolve topology merge node0.yaml node1.yaml > cluster.yaml
  rlsolve topology merge nodes/*.yaml --output json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output, topologyOutputs, ""); err != nil {
				return err
			}
			d, ds, texts, bad := topology.MergeFiles(args)
			if bad != nil {
				diag.Text(cmd.ErrOrStderr(), model.Diagnostics{*bad}, diag.MapSources(nil), useColor())
				return &exitError{code: exitUsage}
			}
			if d == nil {
				return report(ds, diag.MapSources(texts), strings.Join(args, ", "), nil, exitInvalid)
			}
			diag.Text(cmd.ErrOrStderr(), ds, diag.MapSources(texts), useColor())
			return writeDiscovered(cmd, d, output)
		},
	}
	c.Flags().StringVarP(&output, "output", "o", topologyOutputs[0], outputHelp(topologyOutputs))
	return c
}
