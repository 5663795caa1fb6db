package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// WriteTable prints the plan for people: one table per component (for a
// slime plan, the layout first, and its bundles, engines and ports).
func WriteTable(w io.Writer, in *Input) error {
	if err := in.check(); err != nil {
		return err
	}
	if in.Slime != nil {
		return writeSlimeTable(w, in)
	}
	fmt.Fprintf(w, "placement mode: %s\n", orNone(string(in.Plan.Mode)))
	for ci := range in.Plan.Components {
		cp := &in.Plan.Components[ci]
		printLine(w, "\n%s: %d worker(s), %s placement on node group(s) %s", cp.Name, cp.Placements.Len(), cp.Strategy.Kind, strings.Join(cp.NodeGroups, ","))
		if cp.RankMapWorldSize != cp.Placements.Len() {
			fmt.Fprintf(w, "  (RLinf's get_world_size reports %d)\n", cp.RankMapWorldSize)
		}
		header := []string{"  RANK", "NODE", "HOST", "GROUP", "DEVICES", "VISIBLE", "LOCAL", "ACCEL"}
		err := writeAligned(w, header, cp.Placements.Len(), func(j int, cells []string) ([]string, error) {
			p, node, err := in.worker(ci, j)
			if err != nil {
				return nil, err
			}
			return append(cells, "  "+strconv.Itoa(p.Rank), strconv.Itoa(p.ClusterNodeRank), orDash(hostOrIP(node)), p.NodeGroupLabel,
				devices(p), orDash(strings.Join(p.VisibleAccelerators, ",")), strconv.Itoa(p.LocalRank)+"/"+strconv.Itoa(p.LocalWorldSize), p.AcceleratorType), nil
		})
		if err != nil {
			return err
		}
	}
	return writeMemoryTable(w, in.Memory)
}

// hostOrIP names a node: its host name, else its address.
func hostOrIP(n *model.Node) string {
	if n.Hostname != "" {
		return n.Hostname
	}
	return n.IP
}

func devices(p *model.Placement) string {
	if len(p.LocalHardwareRanks) == 0 {
		return "node"
	}
	kind := "gpu"
	if p.HardwareType != model.HardwareAccelerator {
		kind = strings.ToLower(p.HardwareType)
	}
	return kind + ":" + joinInts(p.LocalHardwareRanks, ",")
}

func joinInts(xs []int, sep string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, sep)
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

// writeSlimeTable prints a slime plan: the layout, then one table per
// component.
func writeSlimeTable(w io.Writer, in *Input) error {
	l, s := in.Slime.Layout, in.Slime.Settings
	if l == nil {
		return fmt.Errorf("render: a slime plan without its layout")
	}
	fmt.Fprintf(w, "placement mode: %s (slime %s): %d bundles {GPU: 1, CPU: 1}, rollout offset %d\n", in.Plan.Mode, l.Mode, l.NumBundles, l.RolloutOffset)
	host := func(node int) string {
		if node < 0 || node >= len(in.Nodes) {
			return "-"
		}
		return orDash(hostOrIP(&in.Nodes[node]))
	}
	for ci := range in.Plan.Components {
		cp := &in.Plan.Components[ci]
		if cp.Name == "actor" {
			fmt.Fprintf(w, "\nactor: %d worker(s), %g GPU of one bundle each\n", cp.Placements.Len(), model.SlimeActorGPUFraction)
			var rows [][]string
			for j, p := range cp.Placements.All() {
				rows = append(rows, []string{"  " + strconv.Itoa(p.Rank), strconv.Itoa(p.ClusterNodeRank), host(p.ClusterNodeRank), strconv.Itoa(cp.HardwareRanks[j]),
					strconv.Itoa(p.LocalAcceleratorRank), strconv.Itoa(p.LocalRank) + "/" + strconv.Itoa(p.LocalWorldSize)})
			}
			if err := writeTable(w, []string{"  RANK", "NODE", "HOST", "BUNDLE", "GPU", "LOCAL"}, rows); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(w, "\nrollout: %d engine(s) x %d GPUs (%d worker(s)), %g GPU of each bundle; dp size %d\n", len(l.Engines), s.GPUsPerEngine, cp.Placements.Len(), model.SlimeRolloutGPUFraction, s.DPSize)
		if err := writeTable(w, engineHeader(s.PrefillSet), engineRows(l, s.PrefillSet, host)); err != nil {
			return err
		}
	}
	return writeMemoryTable(w, in.Memory)
}

// engineHeader and engineRows are the rollout table of a slime plan: one
// row per engine part; with prefill/decode (pd), each engine's type and
// bootstrap port.
func engineHeader(pd bool) []string {
	if pd {
		return []string{"  RANK", "ENGINE", "TYPE", "NODE", "HOST", "BUNDLES", "GPUS", "PORT", "NCCL", "BOOTSTRAP", "DIST_INIT"}
	}
	return []string{"  RANK", "ENGINE", "NODE", "HOST", "BUNDLES", "GPUS", "PORT", "NCCL", "DIST_INIT"}
}

func engineRows(l *model.SlimeLayout, pd bool, host func(int) string) [][]string {
	var rows [][]string
	for _, e := range l.Engines {
		for _, p := range e.Parts {
			dist := e.DistInitAddr
			if dist == "" {
				dist = fmt.Sprintf("node %d:%d", e.Parts[0].Node, e.DistFirst)
			}
			dist = fmt.Sprintf("%s (%d-%d)", dist, e.DistFirst, e.DistLast)
			row := []string{"  " + strconv.Itoa(p.Rank), strconv.Itoa(e.Index)}
			if pd {
				row = append(row, e.WorkerType)
			}
			row = append(row, strconv.Itoa(p.Node), host(p.Node), intsText(p.Bundles), intsText(p.GPUs), strconv.Itoa(p.HTTPPort), strconv.Itoa(p.NCCLPort))
			if pd {
				boot := "-"
				if p.BootstrapPort != 0 {
					boot = strconv.Itoa(p.BootstrapPort)
				}
				row = append(row, boot)
			}
			rows = append(rows, append(row, dist))
		}
	}
	return rows
}

// intsText is a run as first-last, else the list.
func intsText(xs []int) string {
	if len(xs) > 1 && xs[len(xs)-1]-xs[0] == len(xs)-1 {
		return fmt.Sprintf("%d-%d", xs[0], xs[len(xs)-1])
	}
	return joinInts(xs, ",")
}
