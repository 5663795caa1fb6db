package topology

import (
	"strings"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
)

// MergeInput is one inventory file to merge (typically the output of
// `rlsolve topology --nvml` on one node).
type MergeInput = grammar.InventoryFile

// Merge combines inventory files into one inventory with ranks 0..n-1.
// When every node carries a rank (rank:/ranks:), those ranks are used and
// must be unique and without gaps; when none does, nodes are ordered by
// address (decision D13, with RLS-W0602 where RLinf would order them
// differently); a mix is an error (RLS-E0604), as in RLinf. Two nodes with
// one rank, host name or GPU UUID are errors (RLS-E0603) that point at both
// files. The inventory is nil when there is any error.
func Merge(inputs []MergeInput, lim grammar.Limits) (*model.Inventory, model.Diagnostics) {
	if lim.MaxFileBytes == 0 {
		lim = grammar.DefaultLimits
	}
	entries, ds := grammar.LoadInventoryEntries(inputs, lim)
	if entries == nil {
		return nil, ds
	}
	var files []string
	for _, in := range inputs {
		files = append(files, in.File)
	}
	var ranked, unranked []int
	for i, e := range entries {
		if e.RankGiven {
			ranked = append(ranked, i)
		} else {
			unranked = append(unranked, i)
		}
	}
	n := len(entries)
	switch {
	case len(ranked) > 0 && len(unranked) > 0:
		u, r := entries[unranked[0]], entries[ranked[0]]
		d := ds.Errorf(model.CodeInventoryRankMix, u.Node.Span, "no rank", "%d of %d nodes carry a rank and %d do not (%s does not): give every node a rank, or none",
			len(ranked), n, len(unranked), u.Label())
		d.Labels = []model.Label{{Span: r.Node.Span, Message: "this node has one"}}
		d.Why = "RLinf requires RLINF_NODE_RANK on all nodes or on none; rlsolve cannot place unranked nodes among ranked ones."
		d.Help = []model.Fix{{Message: "run `rlsolve topology --nvml --rank N` on every node (or set RLINF_NODE_RANK there), or remove the rank: lines"}}
		return nil, ds
	case len(ranked) > 0:
		if !grammar.CheckRanks(&ds, grammar.EntryRanks(entries)) {
			return nil, ds
		}
	default:
		nodes := make([]model.Node, n)
		for i := range entries {
			nodes[i] = entries[i].Node
		}
		ordered, warn := Order(nodes)
		for k := range ordered {
			for i := range entries {
				if entries[i].Node.Span == ordered[k].Span {
					entries[i].Node.Rank = k
				}
			}
		}
		if warn != "" {
			ds = append(ds, model.Diagnostic{Code: model.WarnNodeOrderRLinf, Severity: model.SeverityWarning, Primary: entries[0].Node.Span,
				Summary: warn,
				Why:     "The files give no ranks, so rlsolve orders the nodes by IPv4 address, numerically (decision D13); without RLINF_NODE_RANK, RLinf sorts IPs as strings, by accelerator type."})
		}
	}
	if !grammar.CheckInventoryDuplicates(&ds, entries) {
		return nil, ds
	}
	inv := &model.Inventory{Source: "merge of " + strings.Join(files, ", "), Nodes: make([]model.Node, n)}
	for _, e := range entries {
		inv.Nodes[e.Node.Rank] = e.Node
	}
	return inv, ds
}
