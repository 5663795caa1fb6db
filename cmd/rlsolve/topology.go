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
		Use:     "topology (--nvml | --slurm | --ray URL|FILE)",
		Short:   "Discover an inventory: this node's GPUs (NVML), a Slurm allocation, or a Ray cluster (live or a dump)",
		Long:    help("topology"),
		Example: help("topology.example"),
		Args:    cobra.NoArgs,
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
		Use:     "merge FILE...",
		Short:   "Combine per-node inventory files (from topology --nvml on each node) into one",
		Long:    help("topology-merge"),
		Example: help("topology-merge.example"),
		Args:    cobra.MinimumNArgs(1),
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
