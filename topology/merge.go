package topology

import (
	"fmt"
	"strings"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/model"
)

// MergeInput is one inventory file to merge (typically the output of
// `rlsolve topology --nvml` on one node).
type MergeInput struct {
	File string
	Data []byte
}

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
	var ds model.Diagnostics
	var entries []grammar.InventoryEntry
	var files []string
	for _, in := range inputs {
		es, d := grammar.LoadInventoryEntries(in.File, in.Data, lim)
		ds = append(ds, d...)
		entries = append(entries, es...)
		files = append(files, in.File)
		if len(entries) > lim.MaxClusterNodes {
			ds = append(ds, model.Diagnostic{Code: model.CodeLimit, Severity: model.SeverityError, Primary: model.Span{File: in.File},
				Summary: fmt.Sprintf("the merged inventory has more than %d nodes", lim.MaxClusterNodes)})
			return nil, ds
		}
	}
	if ds.HasErrors() {
		return nil, ds
	}
	if len(entries) == 0 {
		ds = append(ds, model.Diagnostic{Code: model.CodeInventoryInvalid, Severity: model.SeverityError,
			Summary: "nothing to merge: the files describe no nodes"})
		return nil, ds
	}
	var ranked, unranked []int
	for i, e := range entries {
		if e.RankGiven {
			ranked = append(ranked, i)
		} else {
			unranked = append(unranked, i)
		}
	}
	errorf := func(code string, at model.Span, label, format string, args ...any) *model.Diagnostic {
		ds = append(ds, model.Diagnostic{Code: code, Severity: model.SeverityError, Primary: at, PrimaryLabel: label,
			Summary: fmt.Sprintf(format, args...)})
		return &ds[len(ds)-1]
	}
	n := len(entries)
	switch {
	case len(ranked) > 0 && len(unranked) > 0:
		u, r := entries[unranked[0]], entries[ranked[0]]
		d := errorf(model.CodeInventoryRankMix, u.Node.Span, "no rank", "%d of %d nodes carry a rank and %d do not (%s does not): give every node a rank, or none",
			len(ranked), n, len(unranked), nodeLabel(&u))
		d.Labels = []model.Label{{Span: r.Node.Span, Message: "this node has one"}}
		d.Why = "RLinf requires RLINF_NODE_RANK on all nodes or on none; rlsolve cannot place unranked nodes among ranked ones."
		d.Help = []model.Fix{{Message: "run `rlsolve topology --nvml --rank N` on every node (or set RLINF_NODE_RANK there), or remove the rank: lines"}}
		return nil, ds
	case len(ranked) > 0:
		byRank := map[int]int{}
		for _, i := range ranked {
			e := &entries[i]
			if j, dup := byRank[e.Node.Rank]; dup {
				d := errorf(model.CodeInventoryDuplicate, e.Node.Span, fmt.Sprintf("rank %d again", e.Node.Rank),
					"node rank %d is given twice: %s and %s", e.Node.Rank, nodeLabel(&entries[j]), nodeLabel(e))
				d.Labels = []model.Label{{Span: entries[j].Node.Span, Message: "first given here"}}
				continue
			}
			byRank[e.Node.Rank] = i
		}
		if ds.HasErrors() {
			return nil, ds
		}
		for _, i := range ranked {
			if e := &entries[i]; e.Node.Rank >= n {
				missing := 0
				for missing < n {
					if _, ok := byRank[missing]; !ok {
						break
					}
					missing++
				}
				errorf(model.CodeInventoryInvalid, e.Node.Span, "past the end",
					"the merged nodes have ranks up to %d, but there are only %d nodes (rank %d is missing): ranks must run 0..%d", e.Node.Rank, n, missing, n-1)
				return nil, ds
			}
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

func nodeLabel(e *grammar.InventoryEntry) string {
	name := e.Node.Hostname
	if name == "" {
		name = e.Node.IP
	}
	if name == "" {
		return e.Node.Span.String()
	}
	return fmt.Sprintf("%s (%s)", name, e.Node.Span)
}
