package render

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// WriteJSON writes the plan document as JSON followed by a newline, byte
// for byte what encoding/json writes for NewDocument(in): json.NewEncoder
// with SetIndent("", "  ") when indent is set (`rlsolve plan --output
// json`), json.Marshal plus "\n" when not.
//
// The document is never whole in memory: each worker's record, and its
// environment, is computed when it is written and dropped after, so the
// memory does not grow with the worker count.
func WriteJSON(w io.Writer, in *Input, indent bool) error {
	return writeStream(newJSONEmitter(w, indent), in)
}

// WriteJSON writes d as WriteJSON writes the plan it came from.
func (d *Document) WriteJSON(w io.Writer, indent bool) error {
	return (&walker{em: newJSONEmitter(w, indent)}).document(d, d)
}

// jsonEmitter writes JSON as encoding/json does: strings escaped as it
// escapes them (HTML characters, U+2028 and U+2029, invalid UTF-8 as
// U+FFFD), numbers as it formats them, and with indent, one member or
// element per line indented by two spaces.
type jsonEmitter struct {
	sink
	indent bool
	// first[d] is set while the container at depth d has no member yet.
	first []bool
	// quoted is the last stringMap's keys quoted as JSON strings, one
	// after the other; key i ends at quotedEnd[i].
	quoted    []byte
	quotedEnd []int
}

func newJSONEmitter(w io.Writer, indent bool) *jsonEmitter {
	return &jsonEmitter{sink: newSink(w), indent: indent, first: make([]bool, 0, 16)}
}

// sink is an emitter's output: it appends to buf and hands buf to w once
// it holds a few KB (after a worker's record), so the buffer is reused.
type sink struct {
	w   *bufio.Writer
	buf []byte
	err error
}

// flushSize is how much a sink gathers before copying to w.
const flushSize = 8 << 10

func newSink(w io.Writer) sink {
	return sink{w: bufio.NewWriterSize(w, 64<<10), buf: make([]byte, 0, flushSize+4<<10)}
}

func (s *sink) recordDone() error {
	if len(s.buf) >= flushSize {
		s.flush()
	}
	return s.err
}

func (s *sink) flush() {
	if s.err == nil && len(s.buf) > 0 {
		_, s.err = s.w.Write(s.buf)
	}
	s.buf = s.buf[:0]
}

// finish ends the document with a line break and flushes.
func (s *sink) finish() error {
	s.buf = append(s.buf, '\n')
	s.flush()
	if s.err == nil {
		s.err = s.w.Flush()
	}
	return s.err
}

// newline starts a line at the current depth (indented output only).
func (e *jsonEmitter) newline() {
	if !e.indent {
		return
	}
	depth := len(e.first)
	if n := 1 + 2*depth; n <= len(newlineIndent) {
		e.buf = append(e.buf, newlineIndent[:n]...)
		return
	}
	e.buf = append(e.buf, '\n')
	for range depth {
		e.buf = append(e.buf, ' ', ' ')
	}
}

// newlineIndent is a line break and the indentation of the deepest lines
// of a plan document (a worker's environment is at depth 6).
const newlineIndent = "\n                "

func (e *jsonEmitter) open(c byte) {
	e.buf = append(e.buf, c)
	e.first = append(e.first, true)
}

// close leaves a non-empty object or array and writes c.
func (e *jsonEmitter) close(c byte) {
	e.first = e.first[:len(e.first)-1]
	e.newline()
	e.buf = append(e.buf, c)
}

// next writes the separator before a member or element (a comma unless
// it is the first) and its line break.
func (e *jsonEmitter) next() {
	top := len(e.first) - 1
	if !e.first[top] {
		e.buf = append(e.buf, ',')
	}
	e.first[top] = false
	e.newline()
}

func (e *jsonEmitter) colon() {
	e.buf = append(e.buf, ':')
	if e.indent {
		e.buf = append(e.buf, ' ')
	}
}

func (e *jsonEmitter) beginObject() { e.open('{') }
func (e *jsonEmitter) endObject()   { e.close('}') }
func (e *jsonEmitter) beginArray()  { e.open('[') }
func (e *jsonEmitter) endArray()    { e.close(']') }
func (e *jsonEmitter) elem()        { e.next() }
func (e *jsonEmitter) emptyObject() { e.buf = append(e.buf, '{', '}') }
func (e *jsonEmitter) emptyArray()  { e.buf = append(e.buf, '[', ']') }
func (e *jsonEmitter) null()        { e.buf = append(e.buf, "null"...) }
func (e *jsonEmitter) str(s string) { e.buf = appendJSONString(e.buf, s) }
func (e *jsonEmitter) int(n int)    { e.buf = strconv.AppendInt(e.buf, int64(n), 10) }
func (e *jsonEmitter) bool(b bool)  { e.buf = strconv.AppendBool(e.buf, b) }
func (e *jsonEmitter) float(f float64) {
	e.buf = appendJSONFloat(e.buf, f)
}

func (e *jsonEmitter) field(name string) {
	e.next()
	e.buf = append(e.buf, '"')
	e.buf = append(e.buf, name...)
	e.buf = append(e.buf, '"')
	e.colon()
}

func (e *jsonEmitter) key(name string) {
	e.next()
	e.buf = appendJSONString(e.buf, name)
	e.colon()
}

// stringMap quotes the keys once per key set and copies them after.
func (e *jsonEmitter) stringMap(keys, vals []string, same bool) {
	if !same || len(e.quotedEnd) != len(keys) {
		e.quoted, e.quotedEnd = e.quoted[:0], e.quotedEnd[:0]
		for _, k := range keys {
			e.quoted = appendJSONString(e.quoted, k)
			e.quotedEnd = append(e.quotedEnd, len(e.quoted))
		}
	}
	e.open('{')
	from := 0
	for i, v := range vals {
		e.next()
		to := e.quotedEnd[i]
		e.buf = append(e.buf, e.quoted[from:to]...)
		from = to
		e.colon()
		e.str(v)
	}
	e.close('}')
}

// appendJSONFloat formats a finite float64 as encoding/json does: the
// shortest decimal, in exponent form below 1e-6 and from 1e21, with a
// one-digit negative exponent written without its zero (1e-7, not 1e-07).
func appendJSONFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
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
