package render

import (
	"fmt"
	"strconv"
	"strings"
)

// run is what the picture draws for consecutive nodes: one node's row, or
// on a large plan one row standing for several nodes with the same layout
// (the same groups, hardware, cells, components and worker counts on each
// cell, and multi-device workers; only the ranks and hosts differ).
type run struct {
	first, last int // node ranks
	row         row // rows[first], or the run's summary row
}

func (r *run) collapsed() bool { return r.last > r.first }

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

// group makes the runs and numbers the cells in the order the HTML page
// has them: each run's row, then the rows it stands for.
func (pic *picture) group() {
	sigs := make([]string, len(pic.rows))
	for i := range pic.rows {
		sigs[i] = pic.rows[i].signature()
	}
	for i := 0; i < len(pic.rows); {
		j := i
		for len(pic.rows) > collapseAbove && j+1 < len(pic.rows) && sigs[j+1] == sigs[i] {
			j++
		}
		r := run{first: i, last: j, row: pic.rows[i]}
		if j > i {
			r.row = pic.collapse(i, j)
		}
		pic.runs = append(pic.runs, r)
		i = j + 1
	}
	for ri := range pic.runs {
		r := &pic.runs[ri]
		pic.number(&r.row)
		if r.collapsed() && pic.expandable() {
			for n := r.first; n <= r.last; n++ {
				pic.number(&pic.rows[n])
			}
		}
	}
}

func (pic *picture) number(rw *row) {
	for k := range rw.cells {
		rw.cells[k].id = pic.cells
		pic.cells++
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

// collapse is the row of nodes first..last: the first node's layout, each
// cell with every worker of the run on it and the first and last node's
// ranks, labelled with the node range.
func (pic *picture) collapse(first, last int) row {
	src := &pic.rows[first]
	rw := *src
	rw.nodes = last - first + 1
	rw.lines = append([]string{"nodes " + strconv.Itoa(first) + "-" + strconv.Itoa(last), strconv.Itoa(rw.nodes) + " nodes, same layout"}, src.lines[2:]...)
	rw.cells = make([]cell, len(src.cells))
	for k := range src.cells {
		c := src.cells[k]
		c.entries = make([]entry, len(c.entries))
		for m, e := range src.cells[k].entries {
			lastRanks := pic.rows[last].cells[k].entries[m].ranks
			e.text = pic.comps[e.comp].name + " " + rankText(e.ranks) + "…" + rankText(lastRanks)
			e.workers = nil
			for n := first; n <= last; n++ {
				e.workers = append(e.workers, pic.rows[n].cells[k].entries[m].workers...)
			}
			c.entries[m] = e
		}
		rw.cells[k] = c
	}
	rw.spans = append([]span(nil), src.spans...)
	for i := range rw.spans {
		w := &pic.workers[rw.spans[i].worker]
		rw.spans[i].text = w.Component + " " + strconv.Itoa(w.Rank) + "…"
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

// nodeRanges is a component's nodes as text: "nodes 0-511 (512 of 1024)".
func (pic *picture) nodeRanges(c *component) string {
	s := "nodes " + rankText(c.nodes)
	if len(c.nodes) == 1 {
		s = "node " + rankText(c.nodes)
	}
	return fmt.Sprintf("%s · %d of %d node(s) · %d worker(s)", s, len(c.nodes), pic.nodes, c.workers)
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
