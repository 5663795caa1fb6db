package yamlpos

import (
	"bytes"
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// What RLinf's loader refuses and yaml.v3 accepts, checked against PyYAML
// 6.0.4 with OmegaConf 2.3.1 (OmegaConf.load, and yaml.safe_load):
//
//   - A tab outside a quoted scalar, a comment, or a block scalar's text
//     past its indentation: PyYAML's scanner skips only spaces between
//     tokens and stops plain scalars at a tab ("found character '\t' that
//     cannot start any token"), so `a:\t1`, `a: 1\t# c`, `a: 1\t2`,
//     `[1,\t2]` and a line holding only a tab all fail; `"x\ty"`, `# x\ty`
//     and `|` text such as "  x\ty" load.
//   - A tag without a constructor: local tags (`!foo`), global tags
//     other than YAML's own, and `!!merge`, `!!value`, `!!python/...`
//     (ConstructorError). `!!set` and `!!timestamp` load in PyYAML but
//     OmegaConf refuses their values ("not a supported primitive type").
//     `!!str`, `!!int`, `!!float`, `!!bool`, `!!null`, `!!map`, `!!seq`,
//     `!!binary`, `!!omap`, `!!pairs`, `!<tag:yaml.org,2002:str>` and the
//     non-specific `!` load.
//   - An invisible format character (U+FEFF, a zero-width space, ...) in a
//     key loads: PyYAML keeps it in the key (`a\ufeffb: 1` is the key
//     'a\ufeffb'), so the key is not the one it looks like, and a component
//     named so is a new component. rlsolve refuses it; PyYAML strips only a
//     byte-order mark that starts the file.

// checkPyYAML reports the first of the above in a decoded file.
func (d *Doc) checkPyYAML(src *Source, data []byte, root *yaml.Node) bool {
	if at := firstBadTab(data); at >= 0 {
		line, col := lineCol(data, at)
		diag := d.Errorf(model.CodeYAMLSyntax, model.Span{File: src.Name, Line: line, Col: col, EndLine: line, EndCol: col + 1},
			"a tab", "a tab where RLinf's YAML loader (PyYAML) reads only spaces")
		diag.Why = "PyYAML separates tokens with spaces only; a tab outside quotes, comments and block text cannot start any token, and loading fails"
		diag.Help = []model.Fix{{Message: "replace the tab with spaces"}}
		return false
	}
	return d.checkNodes(src, root, 0)
}

// firstBadTab is the offset of the first tab PyYAML refuses, or -1.
func firstBadTab(data []byte) int {
	var quote byte         // the open quote, 0 outside quoted scalars
	block, indent := -1, 0 // block: the block text's indentation (0: not yet known), -1 outside
	for i := 0; i < len(data); {
		lineStart := i
		for i < len(data) && data[i] == ' ' {
			i++
		}
		sp := i - lineStart
		if block >= 0 && quote == 0 {
			if i == len(data) || data[i] == '\n' || data[i] == '\r' {
				i = nextLine(data, i)
				continue // a blank line inside block text
			}
			if block == 0 && sp > indent {
				block = sp
			}
			if block > 0 && sp >= block {
				i = nextLine(data, i)
				continue
			}
			block = -1
		}
		if quote == 0 {
			indent = sp
		}
		var bad, header bool
		i, quote, bad, header = scanLine(data, i, quote)
		if bad {
			return i
		}
		if header {
			block = 0
		}
	}
	return -1
}

// scanLine reads one line from i outside block text: it returns where the
// next line starts (or a refused tab's offset, with bad), the quote still
// open, and whether the line ends with a block scalar's header.
func scanLine(data []byte, i int, quote byte) (next int, open byte, bad, header bool) {
	for ; i < len(data) && data[i] != '\n'; i++ {
		c := data[i]
		switch {
		case quote == '"' && c == '\\':
			i++
		case quote == '\'' && c == '\'' && i+1 < len(data) && data[i+1] == '\'':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\t':
			return i, 0, true, false
		case c == '#' && tokenStart(data, i):
			i = nextLine(data, i) - 1
		case (c == '"' || c == '\'') && tokenStart(data, i):
			quote = c
		case (c == '|' || c == '>') && tokenStart(data, i):
			header = headerRest(data, i+1)
		}
	}
	return nextLine(data, min(i, len(data))), quote, false, header // an escape may end the text
}

func tokenStart(data []byte, i int) bool {
	if i == 0 {
		return true
	}
	switch data[i-1] {
	case ' ', '\n', '\r', '[', '{', ',', ':':
		return true
	}
	return false
}

// headerRest reports whether what follows a `|` or `>` makes it a block
// scalar's header: indicators, then nothing but spaces or a comment.
func headerRest(data []byte, i int) bool {
	for i < len(data) && bytes.IndexByte([]byte("+-123456789"), data[i]) >= 0 {
		i++
	}
	for i < len(data) && data[i] == ' ' {
		i++
	}
	return i == len(data) || data[i] == '\n' || data[i] == '\r' || data[i] == '#'
}

func nextLine(data []byte, i int) int {
	if j := bytes.IndexByte(data[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(data)
}

// lineCol is the 1-based line and byte column of offset at.
func lineCol(data []byte, at int) (int, int) {
	line := bytes.Count(data[:at], []byte("\n")) + 1
	return line, at - (bytes.LastIndexByte(data[:at], '\n') + 1) + 1
}

// loadableTags are the explicit tags RLinf's loader turns into values.
var loadableTags = map[string]bool{"!!str": true, "!!int": true, "!!float": true, "!!bool": true, "!!null": true,
	"!!map": true, "!!seq": true, "!!binary": true, "!!omap": true, "!!pairs": true, "!": true}

// checkNodes refuses tags without a constructor and keys with invisible
// characters, walking the tree as written (aliases are not followed).
func (d *Doc) checkNodes(src *Source, n *yaml.Node, depth int) bool {
	if n == nil || depth > d.lim.MaxDepth {
		return true
	}
	if n.Style&yaml.TaggedStyle != 0 && !loadableTags[n.Tag] {
		why := "PyYAML has no constructor for it (ConstructorError), so the file does not load"
		if n.Tag == "!!set" || n.Tag == "!!timestamp" {
			why = "PyYAML builds a Python set or date from it, which OmegaConf refuses (not a supported primitive type)"
		}
		d.Errorf(model.CodeYAMLSyntax, tagSpan(src, n), "tag", "the tag %s is not one RLinf's YAML loader reads", n.Tag).Why = why
		return false
	}
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 && !d.checkKey(src, c) {
			return false
		}
		if !d.checkNodes(src, c, depth+1) {
			return false
		}
	}
	return true
}

// tagSpan is the span of a node's tag: yaml.v3 places the node at its
// properties, the anchor first when it has one.
func tagSpan(src *Source, n *yaml.Node) model.Span {
	s := model.Span{File: src.Name, Line: n.Line, Col: src.byteColumn(n.Line, n.Column)}
	s.EndLine, s.EndCol = s.Line, s.Col+1
	if n.Line < 1 || n.Line > len(src.lines) || s.Col > len(src.lines[n.Line-1]) {
		return s
	}
	line := src.lines[n.Line-1]
	i := s.Col - 1
	if j := bytes.IndexByte(line[i:], '!'); j >= 0 {
		i += j
	}
	end := i
	for end < len(line) && bytes.IndexByte([]byte(" \t,[]{}"), line[end]) < 0 {
		end++
	}
	s.Col, s.EndCol = i+1, max(end+1, i+2)
	return s
}

// checkKey refuses a key holding an invisible format character.
func (d *Doc) checkKey(src *Source, k *yaml.Node) bool {
	for j, r := range k.Value {
		if !unicode.Is(unicode.Cf, r) {
			continue
		}
		at := spanIn(src, k)
		if k.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 && at.Line > 0 {
			at.Col += j
			at.EndLine, at.EndCol = at.Line, at.Col+utf8.RuneLen(r)
		}
		diag := d.Errorf(model.CodeYAMLSyntax, at, "invisible character", "the key %q holds the invisible character U+%04X", k.Value, r)
		diag.Why = fmt.Sprintf("RLinf's loader keeps it in the key, so the key is not the %q it looks like: a placement key so written is a new component", stripFormat(k.Value))
		diag.Help = []model.Fix{{Message: "delete the invisible character (retype the key)"}}
		return false
	}
	return true
}

func stripFormat(s string) string {
	var b []rune
	for _, r := range s {
		if !unicode.Is(unicode.Cf, r) {
			b = append(b, r)
		}
	}
	return string(b)
}
