package render

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// SVG writes the plan as a standalone SVG picture. Every cell carries a
// <title>, which viewers show as a tooltip.
func SVG(w io.Writer, in *Input, opt Options) error {
	pic, err := build(in, opt)
	if err != nil {
		return err
	}
	out := newPageWriter(w)
	pic.svg(out)
	return out.close()
}

const (
	textColor  = "#1f2328"
	mutedColor = "#59636e"
	// shades of a component's colour for even and odd ranks (mixed with
	// white), so that neighbouring workers and multi-device groups stand out.
	evenShade = 0.62
	oddShade  = 0.38
	// characters that fit in a label line and in a cell line
	labelChars = 31
	cellChars  = 15
	// stackH is the room under a collapsed row for the cards behind it.
	stackH = 6
	// ovTextChars is what fits of a component's node ranges.
	ovTextChars = 53
)

// svg draws the whole picture: the header, then every run's row, each
// built again and written before the next.
func (pic *picture) svg(out *pageWriter) {
	b := &out.buf
	y := pic.top
	for ri := range pic.runs {
		y += pic.runs[ri].drawnHeight() + rowGap
	}
	pic.svgOpen(b, pic.width, y+margin)
	pic.header(b)
	y = pic.top
	for ri := range pic.runs {
		rw := pic.runRow(&pic.runs[ri], false)
		fmt.Fprintf(b, `<g transform="translate(0,%s)">`+"\n", num(y))
		pic.row(b, &rw, ri, true)
		b.WriteString("</g>\n")
		y += rw.drawnHeight() + rowGap
		out.flush()
	}
	b.WriteString("</svg>\n")
}

// drawnHeight is the row's height with the cards behind a collapsed row.
func (rw *row) drawnHeight() float64 {
	if rw.nodes > 1 {
		return rw.h + stackH
	}
	return rw.h
}

func (pic *picture) svgOpen(b *bytes.Buffer, w, h float64) {
	W, H := num(w), num(h)
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="11" fill="%s">`+"\n", W, H, W, H, textColor)
}

// header draws the title, the legend and the overview band.
func (pic *picture) header(b *bytes.Buffer) {
	fmt.Fprintf(b, `<rect width="%s" height="%s" fill="#ffffff"/>`+"\n", num(pic.width), "100%")
	fmt.Fprintf(b, `<text x="%d" y="%d" font-size="15" font-weight="bold">%s</text>`+"\n", margin, margin+14, esc(fit(pic.title, int((pic.width-2*margin)/9))))
	fmt.Fprintf(b, `<text x="%d" y="%d" fill="%s">%s</text>`+"\n", margin, margin+32, mutedColor, esc(pic.subtitle))

	// Legend: one line per component.
	y := float64(margin) + 44
	for i, c := range pic.comps {
		ly := y + float64(i)*legendLine
		fmt.Fprintf(b, `<g class="legend"><rect x="%d" y="%s" width="26" height="12" rx="2" fill="%s" stroke="%s"/><rect x="%d" y="%s" width="13" height="12" rx="2" fill="%s"/>`,
			margin, num(ly), tint(c.color, evenShade), c.color, margin+13, num(ly), tint(c.color, oddShade))
		fmt.Fprintf(b, `<text x="%d" y="%s"><tspan font-weight="bold">%s</tspan><tspan fill="%s"> %s</tspan></text></g>`+"\n",
			margin+34, num(ly+10), esc(c.name), mutedColor, esc(c.summary))
	}
	y += float64(len(pic.comps))*legendLine + 8
	pic.overview(b, y)
	pic.memoryBand(b, y+pic.overviewHeight())
}

// overview draws the band: per component, a strip of the cluster's nodes
// with the component's filled in, and its node ranges and counts.
func (pic *picture) overview(b *bytes.Buffer, y float64) {
	h := pic.overviewHeight() - 6
	fmt.Fprintf(b, `<g class="overview"><rect x="%d" y="%s" width="%s" height="%s" rx="5" fill="#f6f8fa" stroke="#d0d7de"/>`+"\n",
		margin, num(y), num(pic.width-2*margin), num(h))
	fmt.Fprintf(b, `<text x="%d" y="%s"><tspan font-weight="bold">Overview · %d node(s)</tspan>`, margin+8, num(y+15), pic.nodes)
	if len(pic.runs) < pic.nodes {
		fmt.Fprintf(b, `<tspan fill="%s"> · %d rows below: identical consecutive nodes are one row</tspan>`, mutedColor, len(pic.runs))
	}
	b.WriteString("</text>\n")
	x0 := float64(margin + ovNameW)
	scale := ovStripW / float64(max(pic.nodes, 1))
	for i := range pic.comps {
		c := &pic.comps[i]
		ly := y + ovHeadH + float64(i)*legendLine
		nodes := c.nodeList()
		fmt.Fprintf(b, `<g class="ov-line" data-comp="%d"><text x="%d" y="%s" font-weight="bold">%s</text>`, i, margin+8, num(ly+10), esc(fit(c.name, 17)))
		fmt.Fprintf(b, `<rect x="%s" y="%s" width="%d" height="12" fill="#ffffff" stroke="#d0d7de"/>`, num(x0), num(ly), ovStripW)
		for _, s := range segments(nodes) {
			fmt.Fprintf(b, `<rect class="ov-seg" data-node="%d" x="%s" y="%s" width="%s" height="12" fill="%s"/>`,
				s[0], num(x0+float64(s[0])*scale), num(ly), num(max(float64(s[1]-s[0]+1)*scale, 1)), c.color)
		}
		fmt.Fprintf(b, `<text x="%s" y="%s" fill="%s">%s</text></g>`+"\n", num(x0+ovStripW+10), num(ly+10), mutedColor, esc(fit(pic.nodeRanges(c, nodes), ovTextChars)))
	}
	b.WriteString("</g>\n")
}

// row draws a row at the origin; titles adds a <title> tooltip to each
// cell (the HTML page shows its own hover panel instead).
func (pic *picture) row(b *bytes.Buffer, rw *row, ri int, titles bool) {
	bg := "#f6f8fa"
	if ri%2 == 1 {
		bg = "#eef1f5"
	}
	w := num(pic.width - 2*margin)
	if rw.nodes > 1 {
		fmt.Fprintf(b, `<g class="row" data-node="%d" data-nodes="%d">`+"\n", rw.node, rw.nodes)
		for _, d := range []int{stackH, stackH / 2} { // cards peeking out below: several nodes
			fmt.Fprintf(b, `<rect x="%d" y="%d" width="%s" height="%s" rx="5" fill="%s" stroke="#afb8c1"/>`+"\n", margin, d, w, num(rw.h), bg)
		}
	} else {
		fmt.Fprintf(b, `<g class="row" data-node="%d">`+"\n", rw.node)
	}
	fmt.Fprintf(b, `<rect x="%d" y="0" width="%s" height="%s" rx="5" fill="%s"/>`+"\n", margin, w, num(rw.h), bg)
	b.WriteString(`<g class="label">`)
	if rw.nodes > 1 { // the HTML page expands the run from here
		fmt.Fprintf(b, `<rect x="%d" y="0" width="%d" height="%s" fill="#ffffff" fill-opacity="0"/>`, margin, labelW-8, num(rw.h))
	}
	for i, line := range rw.lines {
		ly := rowPad + 13 + float64(i)*14
		switch i {
		case 0:
			fmt.Fprintf(b, `<text x="%d" y="%s" font-size="13" font-weight="bold">%s</text>`+"\n", margin+8, num(ly), esc(fit(line, 24)))
		default:
			fmt.Fprintf(b, `<text x="%d" y="%s" font-size="10.5" fill="%s">%s</text>`+"\n", margin+8, num(ly), mutedColor, esc(fit(line, labelChars)))
		}
	}
	b.WriteString("</g>\n")
	cy, ch := float64(rowPad), rw.cellsHeight()
	for k := range rw.cells {
		pic.cell(b, rw, &rw.cells[k], cy, ch, titles)
	}
	pic.spans(b, rw, cy+ch+lanePad, titles)
	b.WriteString("</g>\n")
}

// cell draws one device cell at height cy.
func (pic *picture) cell(b *bytes.Buffer, rw *row, c *cell, cy, ch float64, titles bool) {
	perNode := c.workerCount() / rw.nodes
	shared := perNode > 1 && c.kind != kindCPU
	fill, stroke, sw := "#ffffff", "#8c959f", "1"
	if len(c.entries) == 0 {
		fill = "#f3f4f6"
	}
	if shared {
		stroke, sw = "#24292f", "2"
	}
	fmt.Fprintf(b, `<g class="cell" data-cell="%d">`, c.id)
	if titles {
		fmt.Fprintf(b, `<title>%s</title>`, esc(pic.cellTitle(rw, c)))
	}
	fmt.Fprintf(b, `<rect class="frame" x="%s" y="%s" width="%d" height="%s" rx="3" fill="%s" stroke="%s" stroke-width="%s"/>`,
		num(c.x), num(cy), cellW, num(ch), fill, stroke, sw)
	fmt.Fprintf(b, `<text x="%s" y="%s" font-weight="bold">%s</text>`, num(c.x+5), num(cy+12), esc(fit(c.label, 10)))
	switch {
	case shared:
		fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="end" font-size="9.5" font-weight="bold">shared ×%d</text>`, num(c.x+cellW-5), num(cy+12), perNode)
	case c.kind == kindCPU && perNode > 0:
		fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="end" font-size="9.5" fill="%s">%d worker(s)</text>`, num(c.x+cellW-5), num(cy+12), mutedColor, perNode)
	}
	if len(c.entries) == 0 {
		fmt.Fprintf(b, `<text x="%s" y="%s" fill="%s" font-style="italic">free</text>`, num(c.x+7), num(cy+headerH+lineH-4), mutedColor)
	}
	pic.cellMemory(b, rw, c, cy, ch)
	for i, e := range c.entries {
		ey := cy + headerH + float64(i)*lineH
		if i == maxEntries-1 && len(c.entries) > maxEntries {
			fmt.Fprintf(b, `<text x="%s" y="%s" fill="%s">+%d more</text>`, num(c.x+7), num(ey+lineH-4), mutedColor, len(c.entries)-i)
			break
		}
		col := pic.comps[e.comp].color
		shade := evenShade
		if len(e.ranks) > 0 && e.ranks[0]%2 == 1 {
			shade = oddShade
		}
		text := e.text
		if text == "" {
			text = pic.comps[e.comp].name + " " + rankText(e.ranks)
		}
		fmt.Fprintf(b, `<rect x="%s" y="%s" width="%d" height="%d" rx="2" fill="%s"/><rect x="%s" y="%s" width="3" height="%d" fill="%s"/>`,
			num(c.x+3), num(ey), cellW-6, lineH-2, tint(col, shade), num(c.x+3), num(ey), lineH-2, col)
		fmt.Fprintf(b, `<text x="%s" y="%s">%s</text>`, num(c.x+9), num(ey+lineH-5), esc(fit(text, cellChars)))
	}
	b.WriteString("</g>\n")
}

// spans draws the workers holding several devices: a line joining their
// devices, in lanes from height y.
func (pic *picture) spans(b *bytes.Buffer, rw *row, y float64, titles bool) {
	for _, s := range rw.spans {
		ref := rw.refs[s.worker]
		wk := pic.worker(ref)
		w := &wk
		col := pic.comps[w.comp].color
		ly := y + float64(s.lane)*laneH + laneH - 4
		x0 := rw.cells[s.first].x + cellW/2
		x1 := rw.cells[s.last].x + cellW/2
		fmt.Fprintf(b, `<g class="span" data-worker="%d">`, s.worker)
		if titles {
			fmt.Fprintf(b, `<title>%s</title>`, esc(fmt.Sprintf("%s rank %d holds %s (%s=%s)", w.Component, w.Rank, w.Devices, w.VisKey, visText(w))))
		}
		fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2"/>`, num(x0), num(ly), num(x1), num(ly), col)
		for _, k := range s.cells {
			fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="4" fill="%s" stroke="#ffffff" stroke-width="1"/>`, num(rw.cells[k].x+cellW/2), num(ly), col)
		}
		label := s.text
		if label == "" {
			label = w.Component + " " + strconv.Itoa(w.Rank)
		}
		fmt.Fprintf(b, `<text x="%s" y="%s" font-size="9.5">%s</text>`, num(x0+7), num(ly-4), esc(fit(label, 18)))
		b.WriteString("</g>\n")
	}
	if rw.hidden > 0 {
		fmt.Fprintf(b, `<text x="%d" y="%s" font-size="9.5" fill="%s">+%d multi-device worker(s) not drawn</text>`+"\n", margin+8, num(y+float64(rw.lanes)*laneH+10), mutedColor, rw.hidden)
	}
}

// cellTitle is a cell's tooltip text: where it is and who runs on it.
func (pic *picture) cellTitle(rw *row, c *cell) string {
	var s strings.Builder
	fmt.Fprintf(&s, "%s · %s", rw.lines[0], c.label)
	if rw.lines[1] != "" {
		fmt.Fprintf(&s, " (%s)", rw.lines[1])
	}
	shown := 0
	for _, e := range c.entries {
		for _, wi := range e.workers {
			if shown == titledWorkers {
				fmt.Fprintf(&s, "\n… %d more", c.workerCount()-shown)
				return s.String()
			}
			wk := pic.worker(rw.refs[wi])
			w := &wk
			fmt.Fprintf(&s, "\n%s rank %d: %s, %s=%s", w.Component, w.Rank, w.Devices, w.VisKey, visText(w))
			shown++
		}
	}
	if shown == 0 {
		s.WriteString("\nfree")
	}
	if m := pic.cellMemoryText(rw, c); m != "" {
		s.WriteString("\n" + m)
	}
	return s.String()
}

func visText(w *worker) string {
	if w.Visible == nil {
		return "(not set)"
	}
	if *w.Visible == "" {
		return `""`
	}
	return *w.Visible
}

// num prints a coordinate with at most one decimal.
func num(f float64) string {
	return strconv.FormatFloat(float64(int(f*10+0.5))/10, 'f', -1, 64)
}

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

// esc escapes text for XML and drops characters XML 1.0 forbids.
func esc(s string) string {
	clean := strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r != 0xFFFE && r != 0xFFFF && !(r >= 0xD800 && r <= 0xDFFF) {
			return r
		}
		return '?'
	}, s)
	return escaper.Replace(clean)
}
