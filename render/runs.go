package render

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// run is what the picture draws for consecutive nodes: one node's row, or
// on a large plan one row standing for several nodes with the same layout
// (the same groups, hardware, cells, components and worker counts on each
// cell, and multi-device workers; only the ranks and hosts differ). The
// first pass keeps only this; the rows are built again when written.
type run struct {
	first, last int // node ranks
	h           float64
	// cells is the row's cell count; cellBase the id of its first cell
	// (the members' cells follow, when the page holds them).
	cells, cellBase int
}

func (r *run) collapsed() bool { return r.last > r.first }

// drawnHeight is the run's row's height with the cards behind a
// collapsed row.
func (r *run) drawnHeight() float64 {
	if r.collapsed() {
		return r.h + stackH
	}
	return r.h
}

const (
	// collapseAbove is the node count above which identical consecutive
	// nodes are drawn as one row: a smaller plan shows every node.
	collapseAbove = 8
	// maxExpandNodes bounds the nodes the HTML page can expand: each is a
	// row of its own in the page, hidden until asked for.
	maxExpandNodes = 2048
)

// expandable reports whether the HTML page holds the rows of collapsed
// runs.
func (pic *picture) expandable() bool { return pic.nodes <= maxExpandNodes }

// group is the first pass: it lays out each node's row (each sees it),
// makes the runs, and numbers the cells in the order the HTML page has
// them: each run's row, then the rows it stands for.
func (pic *picture) group(each func(*row)) {
	fold := pic.nodes > collapseAbove
	prev := ""
	for n := 0; n < pic.nodes; n++ {
		rw := pic.nodeRow(n)
		each(&rw)
		sig := ""
		if fold {
			sig = rw.signature()
		}
		if k := len(pic.runs); fold && k > 0 && sig == prev {
			pic.runs[k-1].last = n
			continue
		}
		pic.runs = append(pic.runs, run{first: n, last: n, h: rw.h, cells: len(rw.cells)})
		prev = sig
	}
	for ri := range pic.runs {
		r := &pic.runs[ri]
		r.cellBase = pic.cells
		pic.cells += r.cells
		if r.collapsed() && pic.expandable() {
			pic.cells += r.cells * (r.last - r.first + 1)
		}
	}
}

// memberRow is node n's row in its run r, its cells numbered.
func (pic *picture) memberRow(r *run, n int) row {
	rw := pic.nodeRow(n)
	rw.number(r.cellBase + r.cells*(1+n-r.first))
	return rw
}

// runRow is the row drawn for a run, its cells numbered: its node's, or
// the collapsed row of its nodes, whose entries hold the first
// titledWorkers of the run's workers, or all of them (the page's data).
func (pic *picture) runRow(r *run, all bool) row {
	rw := pic.nodeRow(r.first)
	if r.collapsed() {
		rw = pic.collapse(r, &rw, all)
	}
	rw.number(r.cellBase)
	return rw
}

func (rw *row) number(base int) {
	for k := range rw.cells {
		rw.cells[k].id = base + k
	}
}

// signature is a row's layout without its node, host and ranks.
func (rw *row) signature() string {
	var b strings.Builder
	for _, l := range rw.lines[2:] {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	for k := range rw.cells {
		c := &rw.cells[k]
		fmt.Fprintf(&b, "%d %s:", c.kind, c.label)
		for _, e := range c.entries {
			fmt.Fprintf(&b, " %d×%d", e.comp, len(e.workers))
		}
		b.WriteByte('\n')
	}
	for _, s := range rw.spans {
		fmt.Fprintf(&b, "span %v lane %d\n", s.cells, s.lane)
	}
	fmt.Fprintf(&b, "hidden %d", rw.hidden)
	return b.String()
}

// titledWorkers is how many workers a cell's title names.
const titledWorkers = 16

// collapse is the row of run r's nodes, from src, the first node's row:
// its layout, each cell with the run's workers on it (counted, and the
// first ones or all kept) and the first and last node's ranks, labelled
// with the node range.
func (pic *picture) collapse(r *run, src *row, all bool) row {
	rw := *src
	rw.nodes = r.last - r.first + 1
	rw.lines = append([]string{"nodes " + strconv.Itoa(r.first) + "-" + strconv.Itoa(r.last), strconv.Itoa(rw.nodes) + " nodes, same layout"}, src.lines[2:]...)
	rw.refs = maps.Clone(src.refs)
	rw.cells = make([]cell, len(src.cells))
	for k := range src.cells {
		c := src.cells[k]
		c.entries = slices.Clone(c.entries)
		for m := range c.entries {
			c.entries[m].workers, c.entries[m].total = nil, 0
		}
		rw.cells[k] = c
	}
	for n := r.first; n <= r.last; n++ {
		nr := src
		if n > r.first {
			built := pic.nodeRow(n)
			nr = &built
		}
		for k := range nr.cells {
			for m, e := range nr.cells[k].entries {
				d := &rw.cells[k].entries[m]
				d.total += e.total
				for _, w := range e.workers {
					// one more than a title names: it then says "… N more"
					if all || len(d.workers) <= titledWorkers {
						d.workers = append(d.workers, w)
						if !all {
							rw.refs[w] = nr.refs[w]
						}
					}
				}
				if n == r.last {
					d.text = pic.comps[d.comp].name + " " + rankText(d.ranks) + "…" + rankText(e.ranks)
				}
			}
		}
	}
	rw.spans = slices.Clone(src.spans)
	for i := range rw.spans {
		ref := src.refs[rw.spans[i].worker]
		cp := &pic.in.Plan.Components[ref.ci]
		rw.spans[i].text = cp.Name + " " + strconv.Itoa(cp.Placements.At(ref.pi).Rank) + "…"
	}
	return rw
}

// Overview band geometry: a component's name, a strip of the cluster's
// nodes with the component's in its colour, and its node ranges.
const (
	ovNameW  = 130
	ovStripW = 420
	ovTextW  = 360
	ovHeadH  = 22
)

// overviewWidth is the width the overview band needs.
func overviewWidth() float64 { return 2*margin + ovNameW + ovStripW + 10 + ovTextW }

func (pic *picture) overviewHeight() float64 {
	return ovHeadH + float64(len(pic.comps))*legendLine + 10
}

// nodeRanges is a component's nodes (nodes, ascending) as text: "nodes
// 0-511 (512 of 1024)".
func (pic *picture) nodeRanges(c *component, nodes []int) string {
	s := "nodes " + rankText(nodes)
	if len(nodes) == 1 {
		s = "node " + rankText(nodes)
	}
	return fmt.Sprintf("%s · %d of %d node(s) · %d worker(s)", s, len(nodes), pic.nodes, c.workers)
}

// segments are a component's runs of consecutive nodes: [first, last].
func segments(nodes []int) [][2]int {
	var out [][2]int
	for i := 0; i < len(nodes); {
		j := i
		for j+1 < len(nodes) && nodes[j+1] == nodes[j]+1 {
			j++
		}
		out = append(out, [2]int{nodes[i], nodes[j]})
		i = j + 1
	}
	return out
}
