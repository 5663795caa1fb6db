package yamlpos

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/rlsolve/rlsolve/model"
)

// tokenCount counts, without allocating, the places in a text where a
// YAML value can start: words, `-`, `?`, `[`, `{`, `|`, `>`, and a `:` with
// nothing after it (a null). Quotes and comments are not skipped (a `#`
// or a quote is not always what it seems without parsing), so text inside
// them counts too. A block mapping starts with its first key and an empty
// value follows a key, so yaml.v3 builds at most about twice as many nodes
// as there are tokens, and a text can be refused before the decoder
// allocates a node per value. The count stops past max; at is the offset
// of the token that crossed it.
func tokenCount(data []byte, max int) (count, at int) {
	inWord := false
	for i, c := range data {
		switch c {
		case ' ', '\t', '\n', '\r', ',', ']', '}':
			inWord = false
			continue
		case ':':
			if !emptyAfter(data, i+1) {
				inWord = inWord && i+1 < len(data) // `1:0` is one word
				continue
			}
			inWord = false
		case '[', '{':
			inWord = false
		default: // a word, or `-`, `?`, `|`, `>` that open a value
			if inWord {
				continue
			}
			inWord = true
		}
		count++
		if count > max {
			return count, i
		}
	}
	return count, -1
}

// emptyAfter reports whether nothing but blanks follow offset j on its
// line, up to a flow separator or a comment.
func emptyAfter(data []byte, j int) bool {
	for j < len(data) && (data[j] == ' ' || data[j] == '\t') {
		j++
	}
	if j == len(data) {
		return true
	}
	switch data[j] {
	case '\n', '\r', ',', ']', '}', '#':
		return true
	}
	return false
}

// checkTokens refuses, before decoding, a text with more tokens than the
// document has values left to read (a 15 MB flat list made yaml.v3 build
// 2.5 million nodes, 1 GB, before the node limit was checked).
func (d *Doc) checkTokens(file string, data []byte) bool {
	left := d.lim.MaxNodes - d.nodes
	n, at := tokenCount(data, left)
	if n <= left {
		return true
	}
	line := bytes.Count(data[:at], []byte("\n")) + 1
	col := utf8.RuneCount(data[bytes.LastIndexByte(data[:at], '\n')+1:at]) + 1
	span := model.Span{File: file, Line: line, Col: col, EndLine: line, EndCol: col + 1}
	diag := Limit{What: "the YAML text of " + file, Size: "more than " + strconv.Itoa(left),
		Max: left, Unit: " tokens"}.Diagnostic(span, "the limit is crossed here")
	diag.Why = "a file's values are bounded before it is decoded by its tokens: words, and the indicators that open a value (`-`, `[`, `{`, a `:` with nothing after it)"
	d.Record(nil, diag)
	return false
}
