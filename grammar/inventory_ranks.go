package grammar

import (
	"fmt"

	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
)

// What holds across an inventory's nodes, whichever source describes them
// (a file, the files `rlsolve topology merge` combines, a Ray node dump):
// checked here, once, with one code per problem: a rank, host, address or
// GPU given twice is RLS-E0603, ranks that do not run 0..n-1 are RLS-E0602.

// InventoryFile is one of the files read as one inventory.
type InventoryFile struct {
	File string
	Data []byte
}

// LoadInventoryEntries reads the node entries of inventory files as one
// inventory's, one per node: each entry is checked on its own, and the
// nodes of all the files together are bounded by the limit; the ranks
// across entries are not checked (CheckRanks). No node at all is an error.
func LoadInventoryEntries(files []InventoryFile, lim Limits) ([]InventoryEntry, model.Diagnostics) {
	var all []InventoryEntry
	var ds model.Diagnostics
	for _, f := range files {
		d := parseDoc(f.File, f.Data, lim)
		if d.Root == nil {
			return nil, append(ds, d.Diags...)
		}
		n := d.Root
		if e, ok := yamlpos.Lookup(d.Mapping(n), "inventory"); ok {
			n = e.V
		}
		entries, _, ok := d.inventoryEntries(n, len(all))
		ds = append(ds, d.Diags...)
		if !ok {
			return nil, ds
		}
		for i := range entries {
			entries[i].Node.Span.File = f.File
		}
		all = append(all, entries...)
	}
	if len(all) == 0 {
		ds.Errorf(model.CodeInventoryInvalid, model.Span{}, "", "nothing to merge: the files describe no nodes")
	}
	if ds.HasErrors() {
		return nil, ds
	}
	return all, ds
}

// Label names the entry's node in messages: its host name or address and
// where it is written.
func (e *InventoryEntry) Label() string {
	name := e.Node.Hostname
	if name == "" {
		name = e.Node.IP
	}
	if name == "" {
		return e.Node.Span.String()
	}
	return fmt.Sprintf("%s (%s)", name, e.Node.Span)
}

// Ranks are the ranks given to an inventory's nodes, for CheckRanks: Of[i]
// is node i's rank, Name what the rank is called ("node rank",
// "RLINF_NODE_RANK"); At (where node i's rank is written) and Node (what
// node i is called) are asked only for the nodes a message is about.
type Ranks struct {
	Of   []int
	Name string
	At   func(i int) model.Span
	Node func(i int) string
}

// EntryRanks are the ranks of entries that each have one.
func EntryRanks(entries []InventoryEntry) Ranks {
	r := Ranks{Name: "node rank", Of: make([]int, len(entries)),
		At: func(i int) model.Span { return entries[i].Node.Span }, Node: func(i int) string { return entries[i].Label() }}
	for i, e := range entries {
		r.Of[i] = e.Node.Rank
	}
	return r
}

// CheckRanks reports node ranks RLinf refuses (semantics §6.1): each rank
// given twice (RLS-E0603); then, when there is none, the first rank
// outside 0..n-1 (RLS-E0602). ok is false when there is either.
func CheckRanks(diags *model.Diagnostics, r Ranks) bool {
	n := len(r.Of)
	byRank := make(map[int]int, n)
	ok := true
	for i, rank := range r.Of {
		j, dup := byRank[rank]
		if !dup {
			byRank[rank] = i
			continue
		}
		d := diags.Errorf(model.CodeInventoryDuplicate, r.At(i), fmt.Sprintf("rank %d again", rank),
			"%s %d is given twice: %s and %s", r.Name, rank, r.Node(j), r.Node(i))
		d.Labels = []model.Label{{Span: r.At(j), Message: "first given here"}}
		d.Why = "Each rank is one node: RLinf numbers the nodes 0..N-1, each once."
		ok = false
	}
	if !ok {
		return false
	}
	for i, rank := range r.Of {
		if rank >= 0 && rank < n {
			continue
		}
		missing := 0
		for missing < n {
			if _, ok := byRank[missing]; !ok {
				break
			}
			missing++
		}
		diags.Errorf(model.CodeInventoryInvalid, r.At(i), "out of range",
			"%s %d of %s is out of range: %d nodes have ranks 0..%d (rank %d is missing)", r.Name, rank, r.Node(i), n, n-1, missing)
		return false
	}
	return true
}

// CheckInventoryDuplicates reports nodes that share a host name, and GPUs
// that share a UUID (RLS-E0603); ok is false when there are any. Addresses
// are not compared: test clusters run several nodes on one address (a list
// of running nodes is checked by DuplicateAddress).
func CheckInventoryDuplicates(diags *model.Diagnostics, entries []InventoryEntry) bool {
	ok := true
	names := map[string]int{}
	uuids := map[string]int{}
	dup := func(at, first model.Span, label, format string, args ...any) {
		d := diags.Errorf(model.CodeInventoryDuplicate, at, label, format, args...)
		d.Labels = []model.Label{{Span: first, Message: "first described here"}}
		d.Why = "Each node rank must be one machine: two entries for one host (or one GPU) usually mean a file was merged twice or a rank was copied."
		ok = false
	}
	for i, e := range entries {
		if h := e.Node.Hostname; h != "" {
			if j, seen := names[h]; seen {
				dup(orSpan(e.NameSpan, e.Node.Span), orSpan(entries[j].NameSpan, entries[j].Node.Span), "same host",
					"host %s is described twice: as node rank %d and as node rank %d", h, entries[j].Node.Rank, e.Node.Rank)
			} else {
				names[h] = i
			}
		}
		for _, dv := range e.Node.Devices {
			if dv.UUID == "" {
				continue
			}
			if j, seen := uuids[dv.UUID]; seen && j != i {
				dup(e.Node.Span, entries[j].Node.Span, "same GPU",
					"GPU %s appears on node rank %d and on node rank %d", dv.UUID, entries[j].Node.Rank, e.Node.Rank)
				break
			}
			uuids[dv.UUID] = i
		}
	}
	return ok
}

// DuplicateAddress reports the first two running nodes (a Ray node dump's
// alive nodes) with one address (RLS-E0603), or nil: RLinf tells nodes
// apart by address. at(i) is where node i is described.
func DuplicateAddress(addrs []string, at func(i int) model.Span) *model.Diagnostic {
	seen := make(map[string]int, len(addrs))
	for i, a := range addrs {
		j, dup := seen[a]
		if !dup {
			seen[a] = i
			continue
		}
		var ds model.Diagnostics
		d := ds.Errorf(model.CodeInventoryDuplicate, at(i), "same address",
			"two alive nodes have the address %s: RLinf tells nodes apart by address, so one machine would be counted twice", a)
		d.Labels = []model.Label{{Span: at(j), Message: "first here"}}
		return d
	}
	return nil
}

func orSpan(s, alt model.Span) model.Span {
	if s.Known() {
		return s
	}
	return alt
}
