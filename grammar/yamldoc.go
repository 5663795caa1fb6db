package grammar

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// doc is one YAML file being read: its lines (for exact spans), its root,
// and the diagnostics found so far.
type doc struct {
	file   string
	lines  [][]byte
	root   *yaml.Node
	limits Limits
	diags  model.Diagnostics
	// resolving guards ${...} chains against cycles.
	resolving map[*yaml.Node]bool
}

func (d *doc) errorf(code string, at model.Span, label, format string, args ...any) *model.Diagnostic {
	d.diags = append(d.diags, model.Diagnostic{
		Code: code, Severity: model.SeverityError, Summary: fmt.Sprintf(format, args...),
		Primary: at, PrimaryLabel: label,
	})
	return &d.diags[len(d.diags)-1]
}

func (d *doc) warnf(code string, at model.Span, label, format string, args ...any) *model.Diagnostic {
	d.diags = append(d.diags, model.Diagnostic{
		Code: code, Severity: model.SeverityWarning, Summary: fmt.Sprintf(format, args...),
		Primary: at, PrimaryLabel: label,
	})
	return &d.diags[len(d.diags)-1]
}

// parseDoc checks the raw bytes and decodes them into a yaml.Node tree.
// It returns nil root when the file cannot be used at all.
func parseDoc(file string, data []byte, lim Limits) *doc {
	d := &doc{file: file, limits: lim, resolving: map[*yaml.Node]bool{}}
	whole := model.Span{File: file}
	if len(data) > lim.MaxFileBytes {
		d.errorf(model.CodeLimit, whole, "", "%s is %d bytes; rlsolve reads at most %d", file, len(data), lim.MaxFileBytes)
		return d
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		line, col := 1, 1
		for i := 0; i < len(data); {
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			if r == '\n' {
				line, col = line+1, 1
			} else {
				col += n
			}
			i += n
		}
		d.errorf(model.CodeYAMLSyntax, model.Span{File: file, Line: line, Col: col, EndLine: line, EndCol: col + 1},
			"not UTF-8", "%s is not valid UTF-8 text", file)
		return d
	}
	if len(bytes.TrimSpace(data)) == 0 {
		d.errorf(model.CodeYAMLSyntax, whole, "", "%s is empty: expected a `cluster:` section", file)
		return d
	}
	d.lines = bytes.Split(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\n"))
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		d.syntaxError(err)
		return d
	}
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		d.root = root.Content[0]
	} else {
		d.errorf(model.CodeYAMLSyntax, whole, "", "%s holds no YAML document", file)
		return d
	}
	if !d.checkSize() {
		d.root = nil
	}
	return d
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

// syntaxError turns yaml.v3's message (which carries only a line) into a
// located diagnostic, with a hint for the common tab mistake.
func (d *doc) syntaxError(err error) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
	}
	at := model.Span{File: d.file}
	if line > 0 && line <= len(d.lines) {
		at = model.Span{File: d.file, Line: line, Col: 1, EndLine: line, EndCol: len(d.lines[line-1]) + 1}
	}
	diag := d.errorf(model.CodeYAMLSyntax, at, "", "YAML syntax error: %s", msg)
	for i, l := range d.lines {
		if j := bytes.IndexByte(l, '\t'); j >= 0 && len(bytes.TrimLeft(l[:j], " ")) == 0 {
			tab := model.Span{File: d.file, Line: i + 1, Col: j + 1, EndLine: i + 1, EndCol: j + 2}
			if !at.Known() {
				diag.Primary = tab
			}
			diag.Labels = append(diag.Labels, model.Label{Span: tab, Message: "a tab indents this line"})
			diag.Help = append(diag.Help, model.Fix{Message: "YAML indentation must use spaces, not tabs"})
			break
		}
	}
}

// checkSize bounds nesting depth and the size the tree would have with
// every alias expanded (billion laughs), without expanding anything.
func (d *doc) checkSize() bool {
	memo := map[*yaml.Node]int{}
	var size func(n *yaml.Node, depth int) int
	size = func(n *yaml.Node, depth int) int {
		if depth > d.limits.MaxDepth {
			d.errorf(model.CodeLimit, d.span(n), "too deep", "YAML nesting deeper than %d levels", d.limits.MaxDepth)
			return -1
		}
		if v, ok := memo[n]; ok {
			return v
		}
		memo[n] = 1 // an alias cycle counts once
		total := 1
		kids := n.Content
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			kids = []*yaml.Node{n.Alias}
		}
		for _, c := range kids {
			s := size(c, depth+1)
			if s < 0 {
				return -1
			}
			total += s
			if total > d.limits.MaxNodes {
				d.errorf(model.CodeLimit, d.span(n), "expands past the limit",
					"YAML aliases expand to more than %d values", d.limits.MaxNodes)
				return -1
			}
		}
		memo[n] = total
		return total
	}
	return size(d.root, 0) >= 0
}

// deref follows aliases.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 64; i++ {
		n = n.Alias
	}
	return n
}

// span is the exact source range of a node. For a scalar it covers the
// value's characters (inside the quotes), so that Span.Sub can point at one
// character; where the text cannot be matched it covers the first character.
func (d *doc) span(n *yaml.Node) model.Span {
	if n == nil || n.Line == 0 {
		return model.Span{File: d.file}
	}
	col := d.byteColumn(n.Line, n.Column)
	s := model.Span{File: d.file, Line: n.Line, Col: col, EndLine: n.Line, EndCol: col + 1}
	if n.Kind == yaml.MappingNode && len(n.Content) > 0 && n.Style&yaml.FlowStyle == 0 {
		// A block mapping is shown by its first key, so that an underline
		// does not sit alone on a list item's dash.
		return d.span(n.Content[0])
	}
	if (n.Kind == yaml.SequenceNode || n.Kind == yaml.MappingNode) && n.Style&yaml.FlowStyle != 0 && len(n.Content) > 0 {
		return d.flowSpan(n, s)
	}
	if n.Kind != yaml.ScalarNode || n.Line > len(d.lines) {
		return s
	}
	line := d.lines[n.Line-1]
	start := col - 1
	if start < 0 || start > len(line) {
		return s
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

// byteColumn turns yaml.v3's column (characters, from 1) into a byte
// column, the unit of every span, so that a caret or an edit lands on the
// right character after non-ASCII text.
func (d *doc) byteColumn(line, col int) int {
	if line < 1 || line > len(d.lines) {
		return col
	}
	text := d.lines[line-1]
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
func (d *doc) flowSpan(n *yaml.Node, s model.Span) model.Span {
	closing := byte(']')
	if n.Kind == yaml.MappingNode {
		closing = '}'
	}
	last := d.span(n.Content[len(n.Content)-1])
	if last.Line != n.Line || n.Line > len(d.lines) {
		return s
	}
	line := d.lines[n.Line-1]
	for i := last.EndCol - 1; i >= 0 && i < len(line); i++ {
		if line[i] == closing {
			s.EndCol = i + 2
			return s
		}
	}
	return s
}

// keySpan is the span of a mapping key (for "missing field" and "unknown
// key" diagnostics).
func (d *doc) keySpan(k *yaml.Node) model.Span { return d.span(k) }

// entry is one key/value pair of a mapping.
type entry struct {
	key  string
	k, v *yaml.Node
}

// mapping returns the pairs of a mapping node and reports duplicate keys
// (PyYAML under OmegaConf rejects them; yaml.v3 silently keeps both).
func (d *doc) mapping(n *yaml.Node) []entry {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	out := make([]entry, 0, len(n.Content)/2)
	seen := map[string]*yaml.Node{}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			merges = append(merges, v)
			continue
		}
		key := d.keyText(k)
		if first, dup := seen[key]; dup {
			diag := d.errorf(model.CodeDuplicateKey, d.keySpan(k), "repeated here", "duplicate key %q", key)
			diag.Labels = append(diag.Labels, model.Label{Span: d.keySpan(first), Message: "first defined here"})
			diag.Why = "RLinf's YAML loader (OmegaConf) rejects a mapping with a repeated key."
			continue
		}
		seen[key] = k
		out = append(out, entry{key: key, k: k, v: v})
	}
	// `<<: *base` merges the aliased mappings' keys; keys written in this
	// mapping win, as in PyYAML, and are no duplicates of merged ones.
	for _, v := range merges {
		for _, src := range mergeSources(v) {
			for _, e := range d.mapping(src) {
				if _, set := seen[e.key]; !set {
					seen[e.key] = e.k
					out = append(out, e)
				}
			}
		}
	}
	return out
}

func mergeSources(v *yaml.Node) []*yaml.Node {
	v = deref(v)
	if v == nil {
		return nil
	}
	if v.Kind == yaml.SequenceNode {
		var out []*yaml.Node
		for _, c := range v.Content {
			out = append(out, deref(c))
		}
		return out
	}
	return []*yaml.Node{v}
}

// keyText is Python's str() of a mapping key (keys such as 4090 are ints).
func (d *doc) keyText(k *yaml.Node) string {
	k = deref(k)
	if k == nil || k.Kind != yaml.ScalarNode {
		return ""
	}
	if k.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return k.Value
	}
	return resolvePlain(k.Value).str
}

// lookup finds a key in a mapping's entries.
func lookup(es []entry, key string) (entry, bool) {
	for _, e := range es {
		if e.key == key {
			return e, true
		}
	}
	return entry{}, false
}

// path walks dotted keys from the root, for model-parallel settings and
// ${...} interpolations.
func (d *doc) path(dotted string) *yaml.Node {
	n := d.root
	for _, part := range strings.Split(dotted, ".") {
		e, ok := lookup(d.mapping(n), part)
		if !ok {
			return nil
		}
		n = deref(e.v)
	}
	return n
}

// kindName names a node's YAML type for messages, Python-style.
func kindName(n *yaml.Node) string {
	n = deref(n)
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return "a scalar"
}
