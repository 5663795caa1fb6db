package render

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// WriteYAML writes the plan document as YAML, streamed like WriteJSON: the
// same members in the same order, in block style indented as go-yaml
// indents (four spaces; a sequence's "- " four spaces in). Strings are
// plain when no YAML 1.1 or 1.2 reader can take them for anything else,
// else double-quoted; every value reads back as what the JSON says.
func WriteYAML(w io.Writer, in *Input) error {
	return writeStream(newYAMLEmitter(w), in)
}

// WriteYAML writes d as WriteYAML writes the plan it came from.
func (d *Document) WriteYAML(w io.Writer) error {
	return (&walker{em: newYAMLEmitter(w)}).document(d, d)
}

// yamlEmitter writes block-style YAML. Each open mapping or sequence is a
// frame; where the next item goes depends on what was written last.
type yamlEmitter struct {
	sink
	frames []yamlFrame
	// at is what the line ends with so far.
	at yamlAt
}

type yamlAt int

const (
	atStart yamlAt = iota // nothing written yet
	atValue               // a complete value (the next item starts a line)
	atKey                 // "key:" waiting for its value
	atDash                // "- " waiting for its element
)

// yamlFrame is an open mapping or sequence: col is where its keys or
// dashes go, base the column its children's are four spaces from (a
// mapping that is a sequence element counts from its dash).
type yamlFrame struct {
	col, base int
}

func newYAMLEmitter(w io.Writer) *yamlEmitter {
	return &yamlEmitter{sink: newSink(w)}
}

// child is the frame of a container that starts now.
func (e *yamlEmitter) child() yamlFrame {
	if len(e.frames) == 0 {
		return yamlFrame{}
	}
	parent := e.frames[len(e.frames)-1]
	if e.at == atDash { // the first item goes on the dash's line
		return yamlFrame{col: parent.col + 2, base: parent.col}
	}
	c := parent.base + 4
	return yamlFrame{col: c, base: c}
}

func (e *yamlEmitter) beginObject() { e.frames = append(e.frames, e.child()) }
func (e *yamlEmitter) beginArray()  { e.frames = append(e.frames, e.child()) }
func (e *yamlEmitter) endObject()   { e.frames = e.frames[:len(e.frames)-1] }
func (e *yamlEmitter) endArray()    { e.frames = e.frames[:len(e.frames)-1] }

// line starts an item of the current frame: on the dash's line when it
// is the first item of a sequence element, else on a line of its own.
func (e *yamlEmitter) line() {
	switch e.at {
	case atStart, atDash:
		return
	}
	e.buf = append(e.buf, '\n')
	for range e.frames[len(e.frames)-1].col {
		e.buf = append(e.buf, ' ')
	}
}

func (e *yamlEmitter) field(name string) { e.key(name) }

func (e *yamlEmitter) key(name string) {
	e.line()
	e.buf = appendYAMLString(e.buf, name)
	e.buf = append(e.buf, ':')
	e.at = atKey
}

func (e *yamlEmitter) elem() {
	e.line()
	e.buf = append(e.buf, '-', ' ')
	e.at = atDash
}

// scalar writes a value after a key's colon or a dash.
func (e *yamlEmitter) scalar(s string) {
	if e.at == atKey {
		e.buf = append(e.buf, ' ')
	}
	e.buf = append(e.buf, s...)
	e.at = atValue
}

func (e *yamlEmitter) str(s string) {
	if e.at == atKey {
		e.buf = append(e.buf, ' ')
	}
	e.buf = appendYAMLString(e.buf, s)
	e.at = atValue
}

func (e *yamlEmitter) int(n int)    { e.scalar(strconv.Itoa(n)) }
func (e *yamlEmitter) bool(b bool)  { e.scalar(strconv.FormatBool(b)) }
func (e *yamlEmitter) null()        { e.scalar("null") }
func (e *yamlEmitter) emptyObject() { e.scalar("{}") }
func (e *yamlEmitter) emptyArray()  { e.scalar("[]") }
func (e *yamlEmitter) float(f float64) {
	e.scalar(yamlFloat(f))
}

func (e *yamlEmitter) stringMap(keys, vals []string, _ bool) {
	e.beginObject()
	for i, k := range keys {
		e.key(k)
		e.str(vals[i])
	}
	e.endObject()
}

// yamlFloat is the JSON form of f with a decimal point (YAML 1.1 reads
// 1e+21 as a string, 1.0e+21 as a number).
func yamlFloat(f float64) string {
	s := string(appendJSONFloat(nil, f))
	if strings.ContainsRune(s, '.') {
		return s
	}
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		return s[:i] + ".0" + s[i:]
	}
	return s + ".0"
}

// yamlReserved are the plain words a YAML 1.1 or 1.2 reader takes for a
// boolean or null.
var yamlReserved = map[string]bool{}

func init() {
	for _, w := range []string{"y", "yes", "n", "no", "true", "false", "on", "off", "null"} {
		for _, v := range []string{w, strings.ToUpper(w[:1]) + w[1:], strings.ToUpper(w)} {
			yamlReserved[v] = true
		}
	}
}

// yamlPlain reports whether s can be written unquoted and read back as
// the same string: it starts with a letter, '_' or '/', holds only
// letters, digits and _ . / : @ - (no ": ", no '#'), does not end with
// ':' and is no reserved word. Anything else is quoted.
func yamlPlain(s string) bool {
	if s == "" || yamlReserved[s] || s[len(s)-1] == ':' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c == '/':
		case i > 0 && (c >= '0' && c <= '9' || c == '.' || c == ':' || c == '@' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// appendYAMLString appends s plain when it may be, else double-quoted
// with every character YAML does not allow as it is escaped: control
// characters, DEL, C1 controls, NEL, the line and paragraph separators,
// the byte order mark and non-characters; invalid UTF-8 becomes U+FFFD,
// as in the JSON.
func appendYAMLString(dst []byte, s string) []byte {
	if yamlPlain(s) {
		return append(dst, s...)
	}
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', byte(c))
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20 || c >= 0x7f && c <= 0xa0 || c == 0x2028 || c == 0x2029 || c == 0xfeff || c >= 0xfffe && c <= 0xffff:
			dst = append(dst, '\\', 'u', hexDigits[c>>12&0xf], hexDigits[c>>8&0xf], hexDigits[c>>4&0xf], hexDigits[c&0xf])
		default: // utf8.RuneError for invalid bytes: U+FFFD
			dst = utf8.AppendRune(dst, c)
		}
	}
	return append(dst, '"')
}
