package strategies

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"
)

// WriteJSON writes the plan document as JSON followed by a newline, byte for
// byte what encoding/json writes for it: json.NewEncoder(w) with
// SetIndent("", "  ") when indent is set (`rlsolve plan --output json`),
// json.Marshal plus "\n" when not. Strings are escaped as encoding/json
// escapes them (HTML characters, U+2028 and U+2029, invalid UTF-8 as
// U+FFFD), map keys come sorted and omitempty fields are omitted as the
// struct tags say.
//
// encoding/json spends most of a large plan's time on the workers'
// environments (a map each, whose keys it copies and sorts by reflection)
// and, with SetIndent, on a second pass over the whole output. WriteJSON
// streams the document one worker at a time through a reused buffer
// instead, and indents as it goes. Only Diagnostics, a small value of any
// type, goes through encoding/json.
func (d *Document) WriteJSON(w io.Writer, indent bool) error {
	// Diagnostics first: when encoding/json refuses them, nothing is
	// written, as with encoding/json.
	diags, err := json.Marshal(d.Diagnostics)
	if err != nil {
		return err
	}
	e := &docWriter{w: bufio.NewWriterSize(w, 64<<10), buf: make([]byte, 0, flushSize+4<<10), indent: indent}
	if err := e.document(d, diags); err != nil {
		return err
	}
	return e.w.Flush()
}

// docWriter appends to buf and hands it to w once it holds a few KB: one
// worker's record at a time, so the buffer is reused and the document is
// never whole in memory.
type docWriter struct {
	w      *bufio.Writer
	buf    []byte
	indent bool
	depth  int
	keys   []string // the last environment's keys, sorted
	vals   []string // scratch: the values in the order of keys
	// quoted is keys quoted as JSON strings, one after the other; key i
	// ends at quotedEnd[i].
	quoted    []byte
	quotedEnd []int
	err       error
}

// flushSize is how much the writer gathers before copying to w.
const flushSize = 8 << 10

func (e *docWriter) maybeFlush() {
	if len(e.buf) >= flushSize {
		e.flush()
	}
}

func (e *docWriter) flush() {
	if e.err == nil && len(e.buf) > 0 {
		_, e.err = e.w.Write(e.buf)
	}
	e.buf = e.buf[:0]
}

// newline starts a line at the current depth (indented output only).
func (e *docWriter) newline() {
	if !e.indent {
		return
	}
	if n := 1 + 2*e.depth; n <= len(newlineIndent) {
		e.buf = append(e.buf, newlineIndent[:n]...)
		return
	}
	e.buf = append(e.buf, '\n')
	for range e.depth {
		e.buf = append(e.buf, ' ', ' ')
	}
}

// newlineIndent is a line break and the indentation of the deepest lines
// of a plan document (a worker's environment is at depth 6).
const newlineIndent = "\n                "

// open writes '{' or '[' and enters it.
func (e *docWriter) open(c byte) {
	e.buf = append(e.buf, c)
	e.depth++
}

// close leaves a non-empty object or array and writes c.
func (e *docWriter) close(c byte) {
	e.depth--
	e.newline()
	e.buf = append(e.buf, c)
}

// key writes the separator before a member (a comma unless first), the
// member's line break and its quoted name with the colon. name is a JSON
// name that needs no escaping.
func (e *docWriter) key(first bool, name string) {
	if !first {
		e.buf = append(e.buf, ',')
	}
	e.newline()
	e.buf = append(e.buf, '"')
	e.buf = append(e.buf, name...)
	e.buf = append(e.buf, '"', ':')
	if e.indent {
		e.buf = append(e.buf, ' ')
	}
}

// strKey is key for a name that may need escaping (a map key).
func (e *docWriter) strKey(first bool, name string) {
	if !first {
		e.buf = append(e.buf, ',')
	}
	e.newline()
	e.buf = appendJSONString(e.buf, name)
	e.buf = append(e.buf, ':')
	if e.indent {
		e.buf = append(e.buf, ' ')
	}
}

// elem writes the separator before an array element.
func (e *docWriter) elem(first bool) {
	if !first {
		e.buf = append(e.buf, ',')
	}
	e.newline()
}

func (e *docWriter) str(s string) { e.buf = appendJSONString(e.buf, s) }

func (e *docWriter) int(n int) { e.buf = strconv.AppendInt(e.buf, int64(n), 10) }

func (e *docWriter) bool(b bool) { e.buf = strconv.AppendBool(e.buf, b) }

// strings writes a []string: null when nil, [] when empty.
func (e *docWriter) strings(ss []string) {
	if ss == nil {
		e.buf = append(e.buf, "null"...)
		return
	}
	if len(ss) == 0 {
		e.buf = append(e.buf, '[', ']')
		return
	}
	e.open('[')
	for i, s := range ss {
		e.elem(i == 0)
		e.str(s)
	}
	e.close(']')
}

// ints writes an []int: null when nil, [] when empty.
func (e *docWriter) ints(ns []int) {
	if ns == nil {
		e.buf = append(e.buf, "null"...)
		return
	}
	if len(ns) == 0 {
		e.buf = append(e.buf, '[', ']')
		return
	}
	e.open('[')
	for i, n := range ns {
		e.elem(i == 0)
		e.int(n)
	}
	e.close(']')
}

// env writes a map[string]string: null when nil, {} when empty, else its
// entries in encoding/json's order (keys sorted byte-wise).
//
// Sorting every worker's keys would be most of the writer's time, and
// consecutive workers nearly always have the same keys: when m has exactly
// the previous map's keys (as many, each present), their sorted order is
// reused and only looked up.
func (e *docWriter) env(m map[string]string) {
	if m == nil {
		e.buf = append(e.buf, "null"...)
		return
	}
	if len(m) == 0 {
		e.buf = append(e.buf, '{', '}')
		return
	}
	vals, same := e.vals[:0], len(m) == len(e.keys)
	if same {
		for _, k := range e.keys {
			v, ok := m[k]
			if !ok {
				same = false
				break
			}
			vals = append(vals, v)
		}
	}
	if !same {
		ks := e.keys[:0]
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		vals = vals[:0]
		e.quoted = e.quoted[:0]
		e.quotedEnd = e.quotedEnd[:0]
		for _, k := range ks {
			vals = append(vals, m[k])
			e.quoted = appendJSONString(e.quoted, k)
			e.quotedEnd = append(e.quotedEnd, len(e.quoted))
		}
		e.keys = ks
	}
	e.open('{')
	from := 0
	for i, v := range vals {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.newline()
		to := e.quotedEnd[i]
		e.buf = append(e.buf, e.quoted[from:to]...)
		from = to
		e.buf = append(e.buf, ':')
		if e.indent {
			e.buf = append(e.buf, ' ')
		}
		e.str(v)
	}
	e.close('}')
	clear(vals) // keep no values alive past their map
	e.vals = vals
}

func (e *docWriter) document(d *Document, diags []byte) error {
	e.open('{')
	e.key(true, "format_version")
	e.str(d.FormatVersion)
	e.key(false, "placement_mode")
	e.str(d.PlacementMode)
	e.key(false, "inventory")
	e.open('{')
	e.key(true, "source")
	e.str(d.Inventory.Source)
	e.key(false, "assumed")
	e.bool(d.Inventory.Assumed)
	e.key(false, "nodes")
	e.int(d.Inventory.Nodes)
	e.close('}')
	e.key(false, "components")
	switch {
	case d.Components == nil:
		e.buf = append(e.buf, "null"...)
	case len(d.Components) == 0:
		e.buf = append(e.buf, '{', '}')
	default:
		names := make([]string, 0, len(d.Components))
		for name := range d.Components {
			names = append(names, name)
		}
		slices.Sort(names)
		e.open('{')
		for i, name := range names {
			e.strKey(i == 0, name)
			c := d.Components[name]
			e.component(&c)
			if e.err != nil {
				return e.err
			}
		}
		e.close('}')
	}
	e.key(false, "component_order")
	e.strings(d.Order)
	e.key(false, "diagnostics")
	if err := e.raw(diags); err != nil {
		return err
	}
	e.close('}')
	e.buf = append(e.buf, '\n')
	e.flush()
	return e.err
}

// raw writes compact JSON from json.Marshal, indented at the current depth.
func (e *docWriter) raw(b []byte) error {
	if !e.indent {
		e.buf = append(e.buf, b...)
		return nil
	}
	var out bytes.Buffer
	prefix := string(bytes.Repeat([]byte("  "), e.depth))
	if err := json.Indent(&out, b, prefix, "  "); err != nil {
		return err
	}
	e.buf = append(e.buf, out.Bytes()...)
	return nil
}

func (e *docWriter) component(c *DocComponent) {
	e.open('{')
	e.key(true, "world_size")
	e.int(c.WorldSize)
	e.key(false, "rlinf_world_size")
	e.int(c.RLinfWorldSize)
	e.key(false, "node_groups")
	e.strings(c.NodeGroups)
	e.key(false, "strategy")
	e.strategy(&c.Strategy)
	e.key(false, "placements")
	switch {
	case c.Placements == nil:
		e.buf = append(e.buf, "null"...)
	case len(c.Placements) == 0:
		e.buf = append(e.buf, '[', ']')
	default:
		e.open('[')
		for i := range c.Placements {
			e.elem(i == 0)
			e.placement(&c.Placements[i])
			e.maybeFlush()
		}
		e.close(']')
	}
	e.close('}')
}

func (e *docWriter) strategy(s *DocStrategy) {
	e.open('{')
	e.key(true, "kind")
	e.str(s.Kind)
	for _, f := range [...]struct {
		name string
		v    *int
	}{{"start", s.Start}, {"end", s.End}, {"num_hardware_per_process", s.HardwarePerProcess}, {"stride", s.Stride}} {
		if f.v != nil {
			e.key(false, f.name)
			e.int(*f.v)
		}
	}
	e.close('}')
}

func (e *docWriter) placement(p *DocPlacement) {
	e.open('{')
	e.key(true, "rank")
	e.int(p.Rank)
	e.key(false, "cluster_node_rank")
	e.int(p.ClusterNodeRank)
	e.key(false, "placement_node_rank")
	e.int(p.PlacementNodeRank)
	e.key(false, "local_accelerator_rank")
	e.int(p.LocalAcceleratorRank)
	e.key(false, "local_rank")
	e.int(p.LocalRank)
	e.key(false, "local_world_size")
	e.int(p.LocalWorldSize)
	e.key(false, "visible_accelerators")
	e.strings(p.VisibleAccelerators)
	e.key(false, "isolate_accelerator")
	e.bool(p.IsolateAccelerator)
	e.key(false, "local_hardware_ranks")
	e.ints(p.LocalHardwareRanks)
	e.key(false, "node_group_label")
	e.str(p.NodeGroupLabel)
	e.key(false, "accelerator_type")
	e.str(p.AcceleratorType)
	if p.Hostname != "" {
		e.key(false, "hostname")
		e.str(p.Hostname)
	}
	if p.IP != "" {
		e.key(false, "ip")
		e.str(p.IP)
	}
	if len(p.GPUUUIDs) > 0 {
		e.key(false, "gpu_uuids")
		e.strings(p.GPUUUIDs)
	}
	if p.Interpreter != "" {
		e.key(false, "python_interpreter_path")
		e.str(p.Interpreter)
	}
	e.key(false, "env")
	e.env(p.Env)
	e.close('}')
}

const hexDigits = "0123456789abcdef"

// jsonSafe marks the ASCII bytes encoding/json writes as they are with HTML
// escaping on: printable ASCII but for '"', '\\', '<', '>' and '&'.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

// appendJSONString appends s quoted as encoding/json quotes a string with
// HTML escaping (its default): <, > and & as \u003c, \u003e and \u0026;
// control characters as \b, \f, \n, \r, \t or \u00XX; U+2028 and U+2029 as
// \u2028 and \u2029; each byte of invalid UTF-8 as \ufffd.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if jsonSafe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
