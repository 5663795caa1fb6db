package render

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// pageWriter is a picture being written: buf gathers a row at a time and
// flush hands it to the writer, so that only a row is ever held.
type pageWriter struct {
	buf bytes.Buffer
	w   *bufio.Writer
	err error
}

func newPageWriter(w io.Writer) *pageWriter {
	return &pageWriter{w: bufio.NewWriterSize(w, 64<<10)}
}

func (p *pageWriter) flush() {
	if p.err == nil {
		_, p.err = p.w.Write(p.buf.Bytes())
	}
	p.buf.Reset()
}

// close writes what is left and returns the first write error.
func (p *pageWriter) close() error {
	p.flush()
	if p.err == nil {
		p.err = p.w.Flush()
	}
	return p.err
}

// pageData writes what the page's script reads, as json.Marshal writes
// {title, env_omitted, workers, cells}: every worker (computed as it is
// written), and each cell's title and workers in the order of the cell
// ids (the rows built again).
func (pic *picture) pageData(out *pageWriter) error {
	b := &out.buf
	b.WriteString(`{"title":`)
	if err := appendJSON(b, pic.title); err != nil {
		return err
	}
	fmt.Fprintf(b, `,"env_omitted":%t,"workers":`, pic.envOmitted)
	if err := pic.workersData(out); err != nil {
		return err
	}
	b.WriteString(`,"cells":[`)
	first := true
	cells := func(rw *row) error {
		for k := range rw.cells {
			if !first {
				b.WriteByte(',')
			}
			first = false
			if err := appendJSON(b, pic.cellData(rw, &rw.cells[k])); err != nil {
				return err
			}
		}
		out.flush()
		return nil
	}
	for ri := range pic.runs {
		r := &pic.runs[ri]
		rw := pic.runRow(r, true)
		if err := cells(&rw); err != nil {
			return err
		}
		if r.collapsed() && pic.expandable() {
			for n := r.first; n <= r.last; n++ {
				mr := pic.memberRow(r, n)
				if err := cells(&mr); err != nil {
					return err
				}
			}
		}
	}
	b.WriteString("]}")
	return nil
}

// workersData writes every worker drawn, by id (null when none, as
// encoding/json writes a nil list).
func (pic *picture) workersData(out *pageWriter) error {
	b := &out.buf
	if pic.workers == 0 {
		b.WriteString("null")
		return nil
	}
	b.WriteByte('[')
	id := 0
	for ci := range pic.in.Plan.Components {
		ps := &pic.in.Plan.Components[ci].Placements
		for pi := range ps.Len() {
			if n := ps.Node(pi); n < 0 || n >= pic.nodes {
				continue
			}
			w := pic.worker(wref{ci: ci, pi: pi})
			if pic.envOmitted {
				w.Env = nil
			}
			if id > 0 {
				b.WriteByte(',')
			}
			id++
			if err := appendJSON(b, &w); err != nil {
				return err
			}
			if b.Len() >= 64<<10 {
				out.flush()
			}
		}
	}
	b.WriteByte(']')
	return nil
}

// cellData is a cell as the page's script reads it.
type cellData struct {
	Title   string `json:"title"`
	Workers []int  `json:"workers"`
	Memory  string `json:"memory,omitempty"`
}

func (pic *picture) cellData(rw *row, c *cell) *cellData {
	cd := &cellData{Title: rw.lines[0] + " · " + c.label + " · " + rw.lines[1], Workers: []int{}, Memory: pic.cellMemoryText(rw, c)}
	for _, e := range c.entries {
		cd.Workers = append(cd.Workers, e.workers...)
	}
	return cd
}

// appendJSON appends v as json.Marshal writes it: <, > and & escaped, so
// that the data cannot end the script.
func appendJSON(b *bytes.Buffer, v any) error {
	js, err := json.Marshal(v)
	b.Write(js)
	return err
}
