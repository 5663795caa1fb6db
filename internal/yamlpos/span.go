package yamlpos

import (
	"bytes"
	"unicode/utf8"

	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// Span is the exact source range of a node, in the file it came from. For a
// scalar it covers the value's characters (inside the quotes), so that
// Span.Sub can point at one character; where the text cannot be matched it
// covers the first character.
func (d *Doc) Span(n *yaml.Node) model.Span {
	if n == nil {
		return model.Span{File: d.main.Name}
	}
	src := d.source(n)
	if n.Kind == yaml.MappingNode && len(n.Content) > 0 && n.Style&yaml.FlowStyle == 0 {
		// A block mapping is shown by its first key, so that an underline
		// does not sit alone on a list item's dash (and a composed mapping
		// points into the file its first key came from).
		return d.Span(n.Content[0])
	}
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		if n.Style&yaml.FlowStyle != 0 && len(n.Content) > 0 {
			return d.flowSpan(n, spanIn(src, n))
		}
	}
	return spanIn(src, n)
}

// spanIn is the span of n in src, without following a mapping to its
// first key.
func spanIn(src *Source, n *yaml.Node) model.Span { return spanOf(src, n, false) }

// spanOf is spanIn; with bare, a scalar's span starts after its anchor and
// tag, where yaml.v3 places the node.
func spanOf(src *Source, n *yaml.Node, bare bool) model.Span {
	if n == nil || n.Line == 0 {
		return model.Span{File: src.Name}
	}
	col := src.byteColumn(n.Line, n.Column)
	s := model.Span{File: src.Name, Line: n.Line, Col: col, EndLine: n.Line, EndCol: col + 1}
	if n.Kind != yaml.ScalarNode || n.Line > len(src.lines) {
		return s
	}
	line := src.lines[n.Line-1]
	start := col - 1
	if start < 0 || start > len(line) {
		return s
	}
	if bare { // a plain scalar cannot start with & or !
		start = skipProperties(line, start)
		col = start + 1
	}
	off := 0
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		off = 1
	}
	v := []byte(n.Value)
	if start+off+len(v) <= len(line) && bytes.Equal(line[start+off:start+off+len(v)], v) {
		s.Col = col + off
		s.EndCol = s.Col + len(v)
		if len(v) == 0 {
			s.EndCol = s.Col + 1
		}
	}
	return s
}

// skipProperties returns the offset past the anchors and tags that start
// at i, and the blanks after them; a property ends at a blank or a flow
// indicator.
func skipProperties(line []byte, i int) int {
	for i < len(line) && (line[i] == '&' || line[i] == '!') {
		for i < len(line) && bytes.IndexByte([]byte(" \t,[]{}"), line[i]) < 0 {
			i++
		}
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
	}
	return i
}

// byteColumn turns yaml.v3's column (characters, from 1) into a byte
// column, the unit of every span, so that a caret or an edit lands on the
// right character after non-ASCII text.
func (s *Source) byteColumn(line, col int) int {
	if line < 1 || line > len(s.lines) {
		return col
	}
	text := s.lines[line-1]
	i := 0
	for c := 1; c < col && i < len(text); c++ {
		_, size := utf8.DecodeRune(text[i:])
		i += size
	}
	if i >= len(text) && col-1 > i {
		return col // past the line: keep yaml's value
	}
	return i + 1
}

// flowSpan covers a one-line flow collection from '[' or '{' to its closing
// bracket, so that an edit can replace it whole.
func (d *Doc) flowSpan(n *yaml.Node, s model.Span) model.Span {
	closing := byte(']')
	if n.Kind == yaml.MappingNode {
		closing = '}'
	}
	src := d.source(n)
	last := d.Span(n.Content[len(n.Content)-1])
	if last.Line != n.Line || last.File != src.Name || n.Line > len(src.lines) {
		return s
	}
	line := src.lines[n.Line-1]
	for i := last.EndCol - 1; i >= 0 && i < len(line); i++ {
		if line[i] == closing {
			s.EndCol = i + 2
			return s
		}
	}
	return s
}

// TokenSpan covers a scalar's whole token, quotes included (for edits that
// replace it).
func (d *Doc) TokenSpan(n *yaml.Node) model.Span {
	s := d.Span(n)
	if n != nil && n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 && s.EndCol-s.Col == len(n.Value) {
		s.Col--
		s.EndCol++
	}
	return s
}

// BareTokenSpan is TokenSpan without the anchor and tag written before a
// scalar (yaml.v3 places a node at them): the key's own characters, for a
// key that an edit or a check must find as written.
func (d *Doc) BareTokenSpan(n *yaml.Node) model.Span {
	if n == nil || n.Kind != yaml.ScalarNode {
		return d.TokenSpan(n)
	}
	s := spanOf(d.source(n), n, true)
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 && s.EndCol-s.Col == len(n.Value) {
		s.Col--
		s.EndCol++
	}
	return s
}

// ItemLine is the span of the whole source line that holds a block
// sequence item and nothing else (`- KEY: value`, with at most a comment
// after it), its line ending included, so that deleting the span removes
// the item; false when the item is not written that way (flow style, a
// dash on a line of its own, a value over several lines).
func (d *Doc) ItemLine(item *yaml.Node) (model.Span, bool) {
	if item == nil || item.Kind != yaml.MappingNode || item.Style&yaml.FlowStyle != 0 || len(item.Content) != 2 {
		return model.Span{}, false
	}
	k, v := item.Content[0], item.Content[1]
	src := d.source(item)
	if k.Kind != yaml.ScalarNode || v.Kind != yaml.ScalarNode || k.Line != item.Line || v.Line != item.Line ||
		v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 || item.Line < 1 || item.Line > len(src.lines) {
		return model.Span{}, false
	}
	line := src.lines[item.Line-1]
	ks := spanIn(src, k)
	if dash := bytes.TrimSpace(line[:min(ks.Col-1, len(line))]); string(dash) != "-" {
		return model.Span{}, false
	}
	vs := d.TokenSpan(v)
	if vs.Line != item.Line || vs.EndCol-1 > len(line) {
		return model.Span{}, false
	}
	if rest := bytes.TrimSpace(line[vs.EndCol-1:]); len(rest) > 0 && rest[0] != '#' {
		return model.Span{}, false
	}
	if item.Line == len(src.lines) {
		return model.Span{File: src.Name, Line: item.Line, Col: 1, EndLine: item.Line, EndCol: len(line) + 1}, true
	}
	return model.Span{File: src.Name, Line: item.Line, Col: 1, EndLine: item.Line + 1, EndCol: 1}, true
}
