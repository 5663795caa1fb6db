package render

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/rlsolve/rlsolve/diag"
)

// The reader's fast path. Nearly all of a plan document is its placement
// records, and encoding/json spends most of its time on them (reflection,
// a map per worker's environment, every string allocated anew), which
// made reading back an 8,192-GPU plan half of `solve --from`. fastDocument
// decodes the records itself, strictly, in one pass, and leaves the rest
// of the document (a few KB) to the checks of the strict reader. It
// accepts only what document would accept, as the same values; anything
// else (an error, and rarer shapes such as slime's records, escapes in
// keys, a null) goes to document, which gives the error as before.

// placementsSpan is one component's placements list: where it is in the
// document and its records.
type placementsSpan struct {
	start, end int
	comp       string
	records    []DocPlacement
}

// fastDocument is the document, and true, when document would read the
// same document from rd.data; false when it must be asked.
func (rd *docReader) fastDocument() (*Document, bool) {
	if !utf8.Valid(rd.data) {
		return nil, false
	}
	w := &planWalker{data: rd.data, intern: map[string]string{}}
	if !w.document() {
		return nil, false
	}
	// The head is the document with each placements list replaced by
	// null: the strict reader's checks on it are those on the whole
	// document but for the records, which the walker checked.
	size := len(rd.data)
	for _, s := range w.spans {
		size -= s.end - s.start - len("null")
	}
	head := make([]byte, 0, size)
	at := 0
	for _, s := range w.spans {
		head = append(append(head, rd.data[at:s.start]...), "null"...)
		at = s.end
	}
	head = append(head, rd.data[at:]...)
	var d Document
	if json.Unmarshal(head, &d) != nil || d.FormatVersion != diag.FormatVersion {
		return nil, false
	}
	if (&docReader{file: rd.file, data: head}).scanDocument() != nil {
		return nil, false
	}
	for _, s := range w.spans {
		c, ok := d.Components[s.comp]
		if !ok || c.Placements != nil {
			return nil, false
		}
		c.Placements = s.records
		d.Components[s.comp] = c
	}
	if rd.validate(&d) != nil {
		return nil, false
	}
	return &d, true
}

// planWalker walks a document's text to its components' placements lists
// and decodes them. Outside those lists it only skips values, without
// checking them: json.Unmarshal checks the head.
type planWalker struct {
	data []byte
	pos  int
	// intern holds each string read once: a plan's environments repeat
	// the same names and values worker after worker.
	intern map[string]string
	spans  []placementsSpan
	// envKeys and envValues are the last environment's, in its order.
	envKeys, envValues []string
}

// document walks the top-level object to "components".
func (w *planWalker) document() bool {
	return w.object(func(key string) bool {
		if key == "components" && w.peek() == '{' {
			return w.object(w.component)
		}
		return w.skip()
	}) && w.end()
}

// component walks one component's object to its "placements".
func (w *planWalker) component(name string) bool {
	if w.peek() != '{' {
		return w.skip()
	}
	size := 0
	return w.object(func(key string) bool {
		if key == "world_size" {
			return w.int(&size)
		}
		if key != "placements" || w.peek() != '[' {
			return w.skip()
		}
		start := w.pos
		records, ok := w.records(size)
		w.spans = append(w.spans, placementsSpan{start: start, end: w.pos, comp: name, records: records})
		return ok
	})
}

// object reads an object whose keys have no escapes, calling member at
// each key with the position at its value.
func (w *planWalker) object(member func(key string) bool) bool {
	return w.objectLike(nil, member)
}

// objectLike is object, taking like[i] for the i-th key where it is the
// same.
func (w *planWalker) objectLike(like []string, member func(key string) bool) bool {
	if !w.eat('{') {
		return false
	}
	if w.eat('}') {
		return true
	}
	for i := 0; ; i++ {
		key, ok := w.key(like, i)
		if !ok || !member(key) {
			return false
		}
		if w.eat('}') {
			return true
		}
		if !w.eat(',') {
			return false
		}
	}
}

// key reads an object's key, without escapes, and its colon.
func (w *planWalker) key(like []string, i int) (string, bool) {
	w.space()
	raw, escaped, ok := w.stringToken()
	if !ok || escaped || !w.eat(':') {
		return "", false
	}
	if b := raw[1 : len(raw)-1]; i < len(like) && like[i] == string(b) {
		return like[i], true
	}
	return w.internBytes(raw[1 : len(raw)-1]), true
}

// skip passes over one value, minding strings and nesting only.
func (w *planWalker) skip() bool {
	depth := 0
	for w.space(); w.pos < len(w.data); {
		switch c := w.data[w.pos]; c {
		case '"':
			if _, _, ok := w.stringToken(); !ok {
				return false
			}
		case '{', '[':
			depth++
			w.pos++
		case '}', ']':
			if depth == 0 {
				return true
			}
			depth--
			w.pos++
		case ',':
			if depth == 0 {
				return true
			}
			w.pos++
		default:
			w.pos++
		}
		if depth == 0 && w.atValueEnd() {
			return true
		}
	}
	return false
}

// atValueEnd reports whether only white space stands between the walker
// and the end of the value it was in.
func (w *planWalker) atValueEnd() bool {
	w.space()
	return w.pos >= len(w.data) || w.data[w.pos] == ',' || w.data[w.pos] == '}' || w.data[w.pos] == ']'
}

// end reports whether nothing but white space is left.
func (w *planWalker) end() bool {
	w.space()
	return w.pos == len(w.data)
}

func (w *planWalker) space() {
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case ' ', '\t', '\r', '\n':
			w.pos++
		default:
			return
		}
	}
}

// peek is the next byte after white space, or 0 at the end.
func (w *planWalker) peek() byte {
	w.space()
	if w.pos < len(w.data) {
		return w.data[w.pos]
	}
	return 0
}

// eat reads c, after white space, if it is next.
func (w *planWalker) eat(c byte) bool {
	if w.peek() == c && w.pos < len(w.data) {
		w.pos++
		return true
	}
	return false
}
