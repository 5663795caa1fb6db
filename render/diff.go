package render

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/model"
)

// DiffDocument is `rlsolve plan --diff OLD NEW --output json`: a versioned
// contract like the plan document.
type DiffDocument struct {
	FormatVersion string `json:"format_version"`
	// Old and New name the two plans (the files given).
	Old string `json:"old"`
	New string `json:"new"`
	// Components has every component of either plan.
	Components        map[string]DiffComponent `json:"components"`
	ComponentsAdded   []string                 `json:"components_added"`
	ComponentsRemoved []string                 `json:"components_removed"`
	// Moved counts the workers that changed node or devices; Changed
	// those that changed anything (environment included); Added and
	// Removed the workers only one plan has.
	Moved   int `json:"moved"`
	Changed int `json:"changed"`
	Added   int `json:"added"`
	Removed int `json:"removed"`
}

// DiffComponent is one component's changes; a world size is 0 in the plan
// that lacks the component.
type DiffComponent struct {
	OldWorldSize int          `json:"old_world_size"`
	NewWorldSize int          `json:"new_world_size"`
	Added        []int        `json:"added"`
	Removed      []int        `json:"removed"`
	Changed      []DiffWorker `json:"changed"`
	Unchanged    int          `json:"unchanged"`
}

// DiffWorker is one worker that changed; only what changed is present.
type DiffWorker struct {
	Rank    int                    `json:"rank"`
	Node    *DiffPair[DiffNode]    `json:"node,omitempty"`
	Devices *DiffPair[DiffDevices] `json:"devices,omitempty"`
	Env     *DiffEnv               `json:"env,omitempty"`
}

// DiffPair is a value in the old and the new plan.
type DiffPair[T any] struct {
	Old T `json:"old"`
	New T `json:"new"`
}

// DiffNode is where a worker runs.
type DiffNode struct {
	ClusterNodeRank int    `json:"cluster_node_rank"`
	Hostname        string `json:"hostname,omitempty"`
}

// DiffDevices is what a worker runs on.
type DiffDevices struct {
	LocalHardwareRanks  []int    `json:"local_hardware_ranks"`
	VisibleAccelerators []string `json:"visible_accelerators"`
}

// DiffEnv names the environment variables that differ.
type DiffEnv struct {
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Changed []string `json:"changed"`
}

// NewDiffDocument is the document of d; oldName and newName name the
// plans.
func NewDiffDocument(d *model.PlanDiff, oldName, newName string) *DiffDocument {
	doc := &DiffDocument{FormatVersion: diag.FormatVersion, Old: oldName, New: newName, Moved: d.Moved,
		Components: make(map[string]DiffComponent, len(d.Components))}
	doc.Changed, doc.Added, doc.Removed = d.Counts()
	added, removed := d.ComponentsChanged()
	doc.ComponentsAdded, doc.ComponentsRemoved = nonNil(added), nonNil(removed)
	for i := range d.Components {
		c := &d.Components[i]
		dc := DiffComponent{OldWorldSize: c.OldWorkers, NewWorldSize: c.NewWorkers, Unchanged: c.Unchanged,
			Added: nonNil(c.Added), Removed: nonNil(c.Removed), Changed: make([]DiffWorker, len(c.Changed))}
		for j := range c.Changed {
			dc.Changed[j] = diffWorker(&c.Changed[j])
		}
		doc.Components[c.Name] = dc
	}
	return doc
}

func diffWorker(c *model.WorkerChange) DiffWorker {
	w := DiffWorker{Rank: c.Rank}
	if c.Node {
		w.Node = &DiffPair[DiffNode]{Old: diffNode(c.Old), New: diffNode(c.New)}
	}
	if c.Devices {
		w.Devices = &DiffPair[DiffDevices]{Old: diffDevices(c.Old), New: diffDevices(c.New)}
	}
	if !c.Env.Empty() {
		w.Env = &DiffEnv{Added: nonNil(c.Env.Added), Removed: nonNil(c.Env.Removed), Changed: nonNil(c.Env.Changed)}
	}
	return w
}

func diffNode(r *model.WorkerRecord) DiffNode {
	return DiffNode{ClusterNodeRank: r.ClusterNodeRank, Hostname: r.Hostname}
}

func diffDevices(r *model.WorkerRecord) DiffDevices {
	return DiffDevices{LocalHardwareRanks: nonNil(r.LocalHardwareRanks), VisibleAccelerators: nonNil(r.VisibleAccelerators)}
}

// nonNil is s, or an empty list: the document has [] where nothing is.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// WriteDiffJSON writes the diff's document, indented, and a newline.
func WriteDiffJSON(w io.Writer, d *model.PlanDiff, oldName, newName string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(NewDiffDocument(d, oldName, newName))
}

// WriteDiffTable prints the diff for people: a row per changed worker
// (consecutive ranks with the same change share one), a line per
// component whose world size changed or that one plan lacks, the
// unchanged workers as a count per component, and a summary line.
func WriteDiffTable(w io.Writer, d *model.PlanDiff, oldName, newName string) error {
	printLine(w, "old: %s", oldName)
	printLine(w, "new: %s\n", newName)
	var rows [][]string
	var sizes, unchanged []string
	for i := range d.Components {
		c := &d.Components[i]
		rows = append(rows, changedRows(c)...)
		if s := sizeText(c); s != "" {
			sizes = append(sizes, s)
		}
		if c.Unchanged > 0 {
			unchanged = append(unchanged, fmt.Sprintf("%s %d", c.Name, c.Unchanged))
		}
	}
	if len(rows) > 0 {
		if err := writeTable(w, []string{"COMPONENT", "RANK", "NODE", "DEVICES", "ENV"}, rows); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	for _, s := range sizes {
		printLine(w, "%s", s)
	}
	if len(unchanged) > 0 {
		printLine(w, "unchanged: %s", strings.Join(unchanged, ", "))
	}
	_, err := fmt.Fprintln(w, diffSummary(d))
	return err
}

// sizeText says how a component's workers came or went, or "".
func sizeText(c *model.ComponentDiff) string {
	switch {
	case !c.InOld:
		return fmt.Sprintf("%s: component added, %d worker(s)", c.Name, c.NewWorkers)
	case !c.InNew:
		return fmt.Sprintf("%s: component removed, %d worker(s)", c.Name, c.OldWorkers)
	case len(c.Added) > 0:
		return fmt.Sprintf("%s: world size %d -> %d, rank(s) %s added", c.Name, c.OldWorkers, c.NewWorkers, model.CompactRanks(c.Added, ","))
	case len(c.Removed) > 0:
		return fmt.Sprintf("%s: world size %d -> %d, rank(s) %s removed", c.Name, c.OldWorkers, c.NewWorkers, model.CompactRanks(c.Removed, ","))
	}
	return ""
}

// changedRows are a component's changed workers as table rows; a run of
// consecutive ranks whose changes read the same is one row.
func changedRows(c *model.ComponentDiff) [][]string {
	var rows [][]string
	first, last := 0, 0 // the ranks the last row covers
	for j := range c.Changed {
		wc := &c.Changed[j]
		cells := []string{nodeChange(wc), devicesChange(wc), envChange(&wc.Env)}
		if n := len(rows); n > 0 && last == wc.Rank-1 && slices.Equal(rows[n-1][2:], cells) {
			last = wc.Rank
			rows[n-1][1] = fmt.Sprintf("%d-%d", first, last)
			continue
		}
		first, last = wc.Rank, wc.Rank
		rows = append(rows, append([]string{c.Name, fmt.Sprint(wc.Rank)}, cells...))
	}
	return rows
}

// nodeChange is "old -> new" where the node changed, else "-".
func nodeChange(c *model.WorkerChange) string {
	if !c.Node {
		return "-"
	}
	return nodeText(c.Old) + " -> " + nodeText(c.New)
}

func nodeText(r *model.WorkerRecord) string {
	if r.Hostname == "" {
		return fmt.Sprint(r.ClusterNodeRank)
	}
	return fmt.Sprintf("%d (%s)", r.ClusterNodeRank, r.Hostname)
}

// devicesChange is "old -> new" where the devices changed, else "-".
func devicesChange(c *model.WorkerChange) string {
	if !c.Devices {
		return "-"
	}
	return recordDevices(c.Old) + " -> " + recordDevices(c.New)
}

// recordDevices is the local hardware ranks, and the visible accelerators
// where they say otherwise.
func recordDevices(r *model.WorkerRecord) string {
	hw := joinInts(r.LocalHardwareRanks, ",")
	if hw == "" {
		hw = "none"
	}
	if vis := strings.Join(r.VisibleAccelerators, ","); vis != joinInts(r.LocalHardwareRanks, ",") {
		hw += " (visible " + orDash(vis) + ")"
	}
	return hw
}

// envChange names the variables that differ, or "-".
func envChange(e *model.EnvChange) string {
	var parts []string
	for _, g := range []struct {
		what string
		keys []string
	}{{"changed", e.Changed}, {"added", e.Added}, {"removed", e.Removed}} {
		if len(g.keys) > 0 {
			parts = append(parts, g.what+" "+strings.Join(g.keys, ","))
		}
	}
	return orDash(strings.Join(parts, "; "))
}

// diffSummary is the last line: the counts.
func diffSummary(d *model.PlanDiff) string {
	changed, added, removed := d.Counts()
	if changed+added+removed == 0 {
		return "no worker changed node, devices or environment"
	}
	return fmt.Sprintf("%d worker(s) moved (node or devices), %d changed environment only, %d added, %d removed",
		d.Moved, changed-d.Moved, added, removed)
}
