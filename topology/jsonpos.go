package topology

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// jnode is a JSON value with where it starts, so that errors about a
// dump's content can name file:line:col.
type jnode struct {
	kind  byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	off   int
	str   string
	num   json.Number
	b     bool
	keys  []string
	kvals []*jnode
	items []*jnode
}

func (n *jnode) get(key string) *jnode {
	if n == nil || n.kind != 'o' {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.kvals[i]
		}
	}
	return nil
}

func (n *jnode) kindName() string {
	if n == nil {
		return "nothing"
	}
	switch n.kind {
	case 'o':
		return "an object"
	case 'a':
		return "a list"
	case 's':
		return "a string"
	case 'n':
		return "a number"
	case 'b':
		return "a boolean"
	}
	return "null"
}

// maxJSONDepth bounds nesting (a node dump is three levels deep).
const maxJSONDepth = 64

// posError is an error at a byte offset of a file.
type posError struct {
	off int
	msg string
}

func (e *posError) Error() string { return e.msg }

// parseJSON reads data into a tree of jnodes. Errors are *posError.
func parseJSON(data []byte) (*jnode, error) {
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			r, size := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			off += size
		}
		return nil, &posError{off, "the file is not valid UTF-8"}
	}
	if err := syntaxCheck(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	p := &jparser{data: data, dec: dec}
	root, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &posError{p.start(), "unexpected data after the JSON value"}
	}
	return root, nil
}

// syntaxCheck reports encoding/json's syntax errors at their offset.
func syntaxCheck(data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	if err == nil {
		return nil
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := int(se.Offset) - 1
		if off < 0 {
			off = 0
		}
		return &posError{off, "invalid JSON: " + se.Error()}
	}
	return &posError{0, "invalid JSON: " + err.Error()}
}

type jparser struct {
	data []byte
	dec  *json.Decoder
}

// start is the offset of the next token: the decoder's offset past any
// white space, commas and colons.
func (p *jparser) start() int {
	off := int(p.dec.InputOffset())
	for off < len(p.data) {
		switch p.data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}

func (p *jparser) value(depth int) (*jnode, error) {
	if depth > maxJSONDepth {
		return nil, &posError{p.start(), fmt.Sprintf("JSON nested deeper than %d levels", maxJSONDepth)}
	}
	off := p.start()
	tok, err := p.dec.Token()
	if err != nil {
		return nil, &posError{off, "invalid JSON: " + err.Error()}
	}
	n := &jnode{off: off}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n.kind = 'o'
			// A key given twice keeps its first place and its last value,
			// as Python's json (which writes and reads Ray's dumps) does.
			index := map[string]int{}
			for p.dec.More() {
				koff := p.start()
				kt, err := p.dec.Token()
				if err != nil {
					return nil, &posError{koff, "invalid JSON: " + err.Error()}
				}
				k, _ := kt.(string)
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				if i, dup := index[k]; dup {
					n.kvals[i] = v
					continue
				}
				index[k] = len(n.keys)
				n.keys = append(n.keys, k)
				n.kvals = append(n.kvals, v)
			}
		case '[':
			n.kind = 'a'
			for p.dec.More() {
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, v)
			}
		default:
			return nil, &posError{off, fmt.Sprintf("invalid JSON: unexpected %q", t)}
		}
		if _, err := p.dec.Token(); err != nil { // the closing delimiter
			return nil, &posError{p.start(), "invalid JSON: " + err.Error()}
		}
	case string:
		n.kind, n.str = 's', t
	case json.Number:
		n.kind, n.num = 'n', t
	case bool:
		n.kind, n.b = 'b', t
	case nil:
		n.kind = 'z'
	}
	return n, nil
}
