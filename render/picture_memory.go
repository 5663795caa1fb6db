package render

import (
	"bytes"
	"fmt"

	"github.com/rlsolve/rlsolve/memory"
)

// The picture's GPU memory: a band under the overview with one line per
// GPU layout (a bar of its peak against its capacity), a thin bar at the
// foot of each GPU cell, and the cell's numbers in its hover details.

const (
	memBandLines = 12 // GPU layouts drawn in the band; the others are counted
	memBarH      = 3
)

// memIndex finds a GPU's layout: the group index by node and GPU.
type memIndex struct {
	m     *Memory
	group map[[2]int]int
}

func newMemIndex(m *Memory) *memIndex {
	if m == nil {
		return nil
	}
	x := &memIndex{m: m, group: map[[2]int]int{}}
	for gi := range m.Groups {
		for _, d := range m.Groups[gi].Devices {
			for _, g := range d.GPUs {
				x.group[[2]int{d.Node, g}] = gi
			}
		}
	}
	return x
}

// of is the report of GPU g of node n (a collapsed row's first node).
func (x *memIndex) of(n, g int) (*memory.Group, bool) {
	if x == nil {
		return nil, false
	}
	gi, ok := x.group[[2]int{n, g}]
	if !ok {
		return nil, false
	}
	return &x.m.Groups[gi], true
}

// memoryHeight is the band's height (0 without memory).
func (pic *picture) memoryHeight() float64 {
	if pic.mem == nil {
		return 0
	}
	return ovHeadH + float64(min(len(pic.mem.m.Groups), memBandLines+1))*legendLine + 10
}

// memoryBand draws the band at height y.
func (pic *picture) memoryBand(b *bytes.Buffer, y float64) {
	if pic.mem == nil {
		return
	}
	m := pic.mem.m
	fmt.Fprintf(b, `<g class="memory"><rect x="%d" y="%s" width="%s" height="%s" rx="5" fill="#f6f8fa" stroke="#d0d7de"/>`+"\n",
		margin, num(y), num(pic.width-2*margin), num(pic.memoryHeight()-6))
	fmt.Fprintf(b, `<text x="%d" y="%s"><tspan font-weight="bold">GPU memory · %s</tspan><tspan fill="%s"> · %s · %s · peak of the phases per GPU layout</tspan></text>`+"\n",
		margin+8, num(y+15), esc(m.Model), mutedColor, esc(m.Source), esc(m.Profile))
	x0 := float64(margin + ovNameW)
	for i := range m.Groups {
		ly := y + ovHeadH + float64(i)*legendLine
		if i == memBandLines {
			fmt.Fprintf(b, `<text x="%d" y="%s" fill="%s">… %d more GPU layout(s): rlsolve plan --output json lists them</text>`+"\n", margin+8, num(ly+10), mutedColor, len(m.Groups)-i)
			break
		}
		g := &m.Groups[i]
		frac := float64(g.PeakBytes) / float64(max(g.CapacityBytes, 1))
		fmt.Fprintf(b, `<g class="mem-line"><title>%s</title><text x="%d" y="%s" font-weight="bold">%s</text>`, esc(memoryTitle(g)), margin+8, num(ly+10), esc(fit(g.Label, 17)))
		fmt.Fprintf(b, `<rect x="%s" y="%s" width="%d" height="12" fill="#ffffff" stroke="#d0d7de"/>`, num(x0), num(ly), ovStripW)
		fmt.Fprintf(b, `<rect x="%s" y="%s" width="%s" height="12" fill="%s"/>`, num(x0), num(ly), num(min(frac, 1)*ovStripW), memColor(frac))
		fmt.Fprintf(b, `<text x="%s" y="%s" fill="%s">%s</text></g>`+"\n", num(x0+ovStripW+10), num(ly+10), mutedColor,
			esc(fit(fmt.Sprintf("%s of %s GiB (%s) · %s", gibText(g.PeakBytes), gibText(g.CapacityBytes), g.PeakPhase, joinComma(distinct(g.Components))), ovTextChars)))
	}
	b.WriteString("</g>\n")
}

// cellMemory draws a GPU cell's bar: its peak against its capacity.
func (pic *picture) cellMemory(b *bytes.Buffer, rw *row, c *cell, cy, ch float64) {
	g, ok := pic.cellGroup(rw, c)
	if !ok {
		return
	}
	frac := float64(g.PeakBytes) / float64(max(g.CapacityBytes, 1))
	y := cy + ch - memBarH - 2
	fmt.Fprintf(b, `<rect class="mem" x="%s" y="%s" width="%s" height="%d" fill="%s"/>`, num(c.x+3), num(y), num(min(frac, 1)*float64(cellW-6)), memBarH, memColor(frac))
}

func (pic *picture) cellGroup(rw *row, c *cell) (*memory.Group, bool) {
	if c.kind != kindGPU {
		return nil, false
	}
	return pic.mem.of(rw.node, c.gpu)
}

// cellMemoryText is a GPU cell's memory for its hover details ("" when
// unknown).
func (pic *picture) cellMemoryText(rw *row, c *cell) string {
	if g, ok := pic.cellGroup(rw, c); ok {
		return memoryTitle(g)
	}
	return ""
}

// memoryTitle is a GPU layout's numbers: the peak, then each phase.
func memoryTitle(g *memory.Group) string {
	s := fmt.Sprintf("memory: peak %s of %s GiB (%s)", gibText(g.PeakBytes), gibText(g.CapacityBytes), g.PeakPhase)
	for _, p := range g.Phases {
		s += fmt.Sprintf(" · %s %s", p.Phase, gibText(p.Bytes))
	}
	return s
}

// memColor is green with room to spare, amber within 8% of the capacity,
// red over it.
func memColor(frac float64) string {
	switch {
	case frac > 1:
		return "#cf222e"
	case frac > 0.92:
		return "#bf8700"
	}
	return "#2da44e"
}

func joinComma(xs []string) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ","
		}
		s += x
	}
	return s
}
