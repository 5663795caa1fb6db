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
	var b bytes.Buffer
	pic.svg(&b, true)
	_, err = w.Write(b.Bytes())
	return err
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
)

// svg draws the picture; titles adds a <title> tooltip to each cell (the
// HTML page shows its own hover panel instead).
func (pic *picture) svg(b *bytes.Buffer, titles bool) {
	W, H := num(pic.width), num(pic.height)
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="11" fill="%s">`+"\n", W, H, W, H, textColor)
	fmt.Fprintf(b, `<rect width="%s" height="%s" fill="#ffffff"/>`+"\n", W, H)
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

	for ri := range pic.rows {
		pic.row(b, &pic.rows[ri], ri, titles)
	}
	b.WriteString("</svg>\n")
}

func (pic *picture) row(b *bytes.Buffer, rw *row, ri int, titles bool) {
	bg := "#f6f8fa"
	if ri%2 == 1 {
		bg = "#eef1f5"
	}
	fmt.Fprintf(b, `<g class="row" data-node="%d">`+"\n", rw.node)
	fmt.Fprintf(b, `<rect x="%d" y="%s" width="%s" height="%s" rx="5" fill="%s"/>`+"\n", margin, num(rw.y), num(pic.width-2*margin), num(rw.h), bg)
	for i, line := range rw.lines {
		ly := rw.y + rowPad + 13 + float64(i)*14
		switch i {
		case 0:
			fmt.Fprintf(b, `<text x="%d" y="%s" font-size="13" font-weight="bold">%s</text>`+"\n", margin+8, num(ly), esc(fit(line, 24)))
		default:
			fmt.Fprintf(b, `<text x="%d" y="%s" font-size="10.5" fill="%s">%s</text>`+"\n", margin+8, num(ly), mutedColor, esc(fit(line, labelChars)))
		}
	}
	lines := 1
	for k := range rw.cells {
		lines = max(lines, min(len(rw.cells[k].entries), maxEntries))
	}
	cy := rw.y + rowPad
	ch := headerH + float64(lines)*lineH + 6
	maxChars := cellChars
	for k := range rw.cells {
		c := &rw.cells[k]
		n := c.workerCount()
		shared := n > 1 && c.kind != kindCPU
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
			fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="end" font-size="9.5" font-weight="bold">shared ×%d</text>`, num(c.x+cellW-5), num(cy+12), n)
		case c.kind == kindCPU && n > 0:
			fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="end" font-size="9.5" fill="%s">%d worker(s)</text>`, num(c.x+cellW-5), num(cy+12), mutedColor, n)
		}
		if len(c.entries) == 0 {
			fmt.Fprintf(b, `<text x="%s" y="%s" fill="%s" font-style="italic">free</text>`, num(c.x+7), num(cy+headerH+lineH-4), mutedColor)
		}
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
			fmt.Fprintf(b, `<rect x="%s" y="%s" width="%d" height="%d" rx="2" fill="%s"/><rect x="%s" y="%s" width="3" height="%d" fill="%s"/>`,
				num(c.x+3), num(ey), cellW-6, lineH-2, tint(col, shade), num(c.x+3), num(ey), lineH-2, col)
			fmt.Fprintf(b, `<text x="%s" y="%s">%s</text>`, num(c.x+9), num(ey+lineH-5), esc(fit(pic.comps[e.comp].name+" "+rankText(e.ranks), maxChars)))
		}
		b.WriteString("</g>\n")
	}
	// Workers holding several devices: a line joining their devices.
	ly0 := cy + ch + lanePad
	for _, s := range rw.spans {
		w := &pic.workers[s.worker]
		col := pic.comps[w.comp].color
		ly := ly0 + float64(s.lane)*laneH + laneH - 4
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
		fmt.Fprintf(b, `<text x="%s" y="%s" font-size="9.5">%s</text>`, num(x0+7), num(ly-4), esc(fit(w.Component+" "+strconv.Itoa(w.Rank), 18)))
		b.WriteString("</g>\n")
	}
	if rw.hidden > 0 {
		fmt.Fprintf(b, `<text x="%d" y="%s" font-size="9.5" fill="%s">+%d multi-device worker(s) not drawn</text>`+"\n", margin+8, num(ly0+float64(rw.lanes)*laneH+10), mutedColor, rw.hidden)
	}
	b.WriteString("</g>\n")
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
			if shown == 16 {
				fmt.Fprintf(&s, "\n… %d more", c.workerCount()-shown)
				return s.String()
			}
			w := &pic.workers[wi]
			fmt.Fprintf(&s, "\n%s rank %d: %s, %s=%s", w.Component, w.Rank, w.Devices, w.VisKey, visText(w))
			shown++
		}
	}
	if shown == 0 {
		s.WriteString("\nfree")
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
