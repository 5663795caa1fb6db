package topology

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// ImportRayLive orders a live cluster's nodes: rows is the State API's
// list of nodes (raycli's Nodes, the shape of a dump), facts what the probe
// saw per node id (nil: no probe). The probe's RLINF_NODE_RANK, read from
// each raylet's environment as RLinf reads it, takes the place of a
// label's; then the dump's rules order the nodes (one ordering for both).
// Where NVML and Ray's GPU resource disagree it warns (RLS-W0603): RLinf
// counts NVML, Ray's scheduler and slime count the resource, and the
// inventory keeps the resource.
func ImportRayLive(source string, rows []byte, facts map[string]RayFacts, opt RayOptions) (*model.Inventory, model.Diagnostics, error) {
	r, nodes, err := readRayNodes(source, rows, opt)
	if err != nil {
		return nil, nil, err
	}
	var ds model.Diagnostics
	at := model.Span{File: source}
	var noNVML []string // nodes with Ray GPUs where NVML could not be read
	noNVMLWhy := ""
	for i := range nodes {
		n := &nodes[i]
		if !n.Alive || facts == nil {
			continue
		}
		f, ok := facts[n.NodeID]
		if !ok || f.Error != "" && f.NVML == "" {
			why := "it did not answer"
			if f.Error != "" {
				why = f.Error
			}
			ds = append(ds, model.Diagnostic{Severity: model.SeverityWarning, Primary: at,
				Summary: fmt.Sprintf("the probe learnt nothing from node %s (%s): its RLINF_NODE_RANK and NVML GPUs are unknown", n.IP, why)})
			continue
		}
		if f.Rank != nil && !r.nodeSet {
			n.RankText = *f.Rank
			if !n.setRank(*f.Rank) {
				return nil, ds, &RayError{at, fmt.Sprintf("node %s: its raylet's RLINF_NODE_RANK is %q. Invalid NODE_RANK value: %s. Must be an integer. (RLinf rejects it too)", n.IP, clip(*f.Rank), clip(*f.Rank))}
			}
		}
		if n.Model == "" && f.Model != "" {
			n.Model = f.Model
			if n.GPUs > 0 && n.AccelType == "" {
				n.AccelType = accelTypeOf(n.Model)
			}
		}
		if d := nvmlDiagnostic(n, f, at); d != nil {
			ds = append(ds, *d)
		} else if !f.NVMLAvailable() && n.GPUs > 0 {
			noNVML = append(noNVML, n.IP)
			noNVMLWhy = cmp.Or(noNVMLWhy, f.Error)
		}
	}
	if len(noNVML) > 0 {
		if noNVMLWhy != "" {
			noNVMLWhy = " (" + noNVMLWhy + ")"
		}
		ds = append(ds, model.Diagnostic{Severity: model.SeverityNote, Primary: at,
			Summary: fmt.Sprintf("NVML is unavailable on %s%s, so their GPUs are only Ray's resource (fake GPUs?); RLinf, which counts NVML, would see none there", strings.Join(noNVML, ", "), noNVMLWhy)})
	}
	inv, ods, err := r.order(nodes)
	// Positions in the State API's rows mean nothing to the reader: the
	// cluster's address is the place.
	for i := range ods {
		ods[i].Primary = at
		for j := range ods[i].Labels {
			ods[i].Labels[j].Span = at
		}
	}
	return inv, append(ds, ods...), err
}

// nvmlDiagnostic compares the node's Ray GPU resource with NVML's count:
// a warning where both are known and differ.
func nvmlDiagnostic(n *RayNode, f RayFacts, at model.Span) *model.Diagnostic {
	if f.NVMLAvailable() && f.GPUs != n.GPUs {
		return &model.Diagnostic{Code: model.WarnRayGPUsNVML, Severity: model.SeverityWarning, Primary: at,
			Summary: fmt.Sprintf("node %s: Ray's GPU resource is %d but NVML counts %d GPU(s); RLinf counts NVML", n.IP, n.GPUs, f.GPUs),
			Why:     "RLinf sizes each node by the GPUs NVML reports (its node probe), while Ray's scheduler and slime use the GPU resource given to `ray start --num-gpus`; the inventory keeps Ray's count.",
			Help:    []model.Fix{{Message: fmt.Sprintf("start the node's raylet with --num-gpus %d (or leave --num-gpus out so Ray counts the GPUs itself)", f.GPUs)}}}
	}
	return nil
}
