package strategies

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/rlsolve/rlsolve/model"
)

// WriteTable prints the plan as one table per component, for people.
func (r *Result) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "placement mode: %s\n", orNone(string(r.Plan.Mode)))
	for i := range r.Plan.Components {
		cp := &r.Plan.Components[i]
		fmt.Fprintf(w, "\n%s: %d worker(s), %s placement on node group(s) %s\n", cp.Name, len(cp.Placements), cp.Strategy.Kind, strings.Join(cp.NodeGroups, ","))
		if cp.RankMapWorldSize != len(cp.Placements) {
			fmt.Fprintf(w, "  (RLinf's get_world_size reports %d)\n", cp.RankMapWorldSize)
		}
		tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  RANK\tNODE\tHOST\tGROUP\tDEVICES\tVISIBLE\tLOCAL\tACCEL")
		for _, p := range cp.Placements {
			node := &r.Cluster.Nodes[p.ClusterNodeRank]
			host := node.Hostname
			if host == "" {
				host = node.IP
			}
			fmt.Fprintf(tw, "  %d\t%d\t%s\t%s\t%s\t%s\t%d/%d\t%s\n", p.Rank, p.ClusterNodeRank, orDash(host), p.NodeGroupLabel,
				devices(p), orDash(strings.Join(p.VisibleAccelerators, ",")), p.LocalRank, p.LocalWorldSize, p.AcceleratorType)
		}
		tw.Flush()
	}
}

func devices(p model.Placement) string {
	if len(p.LocalHardwareRanks) == 0 {
		return "node"
	}
	parts := make([]string, len(p.LocalHardwareRanks))
	for i, h := range p.LocalHardwareRanks {
		parts[i] = fmt.Sprint(h)
	}
	kind := "gpu"
	if p.HardwareType != model.HardwareAccelerator {
		kind = strings.ToLower(p.HardwareType)
	}
	return kind + ":" + strings.Join(parts, ",")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "none (plain component placement)"
	}
	return s
}
