package grammar

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"go.yaml.in/yaml/v3"
)

// OverrideSource is the file name of spans into command-line overrides:
// diagnostics about an overridden value point at the command line.
const OverrideSource = "<command line>"

// OverrideKind is how an override changes the config (Hydra's prefixes).
type OverrideKind int

// The override kinds: key=v, +key=v, ++key=v, ~key[=v].
const (
	OverrideSet OverrideKind = iota
	OverrideAdd
	OverrideForce
	OverrideDelete
)

// Override is one Hydra command-line override, as
// `rlsolve check train.yaml cluster.num_nodes=2 +x=y ~z ++a=b` gives them.
type Override struct {
	// Arg is the argument as written.
	Arg  string
	Kind OverrideKind
	// Key is the dotted key or config group, Package what follows `@`.
	Key     string
	Package *string
	// Value is the parsed value, positioned in the command line; nil for
	// `~key` without one.
	Value *yaml.Node
	// Off, KeyOff, KeyEnd and ValueOff are byte offsets into the
	// command line (Overrides.Text).
	Off, KeyOff, KeyEnd, ValueOff int
}

// Overrides are a command line's overrides and the one line of text their
// spans point into (the arguments joined by spaces).
type Overrides struct {
	Text string
	List []Override
}

// OverrideError is a malformed override (a usage error).
type OverrideError struct {
	Arg string
	Off int // byte offset into Arg
	Msg string
}

func (e *OverrideError) Error() string {
	return fmt.Sprintf("override %q: %s (at column %d)", e.Arg, e.Msg, e.Off+1)
}

// maxOverrideBytes bounds one override argument, maxOverrides their count
// (each costs its key's path and its value, so the bound is generous).
const (
	maxOverrideBytes = 64 << 10
	maxOverrides     = 100_000
)

// IsOverride reports whether a command-line argument is written as an
// override rather than a file name: it has `=`, or starts with `~` or `+`.
func IsOverride(arg string) bool {
	return strings.Contains(arg, "=") || strings.HasPrefix(arg, "~") || strings.HasPrefix(arg, "+")
}

var (
	keyPart = `(?:[A-Za-z_$][A-Za-z0-9_$-]*|0|[1-9][0-9]*)`
	keyRE   = regexp.MustCompile(`^(?:` + keyPart + `(?:\.` + keyPart + `)*|[A-Za-z_][A-Za-z0-9_-]*(?:/[A-Za-z_][A-Za-z0-9_-]*)+)(?:@(?:` + keyPart + `(?:\.` + keyPart + `)*)?)?$`)
)

// ParseOverrides parses overrides as Hydra's override grammar does
// (hydra/grammar/OverrideParser.g4): values are typed by that grammar, not
// by YAML 1.1 (`0x10` and `1:0` are strings there), lists `[a,b]` and
// mappings `{a: 1}` nest, and a bare `a,b` is a sweep, which a check of one
// config refuses.
func ParseOverrides(args []string) (Overrides, error) {
	if len(args) > maxOverrides {
		return Overrides{}, &OverrideError{Arg: args[maxOverrides], Msg: fmt.Sprintf("more than %d overrides", maxOverrides)}
	}
	var out Overrides
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		off := b.Len()
		b.WriteString(a)
		o, err := parseOverride(a, off)
		if err != nil {
			return Overrides{}, err
		}
		out.List = append(out.List, o)
	}
	out.Text = b.String()
	// Columns count characters, as yaml.v3's do.
	runes := 0 // characters before the override
	for i := range out.List {
		o := &out.List[i]
		if i > 0 {
			runes += utf8.RuneCountInString(out.List[i-1].Arg) + 1
		}
		placeColumns(o.Value, columnsOf(o.Arg, o.Off, runes))
	}
	return out, nil
}

// columnsOf maps the byte offsets into the command line of one argument
// (at off, after runes characters) to character columns, counting the
// argument's characters once: counting from the line's start for every
// value made 5,000 overrides quadratic.
func columnsOf(arg string, off, runes int) func(byteOff int) int {
	var at []int // at[i]: characters before byte i of arg, when it is not ASCII
	for i := 0; i < len(arg); i++ {
		if arg[i] >= utf8.RuneSelf {
			at = make([]int, len(arg)+1)
			n := 0
			for j := range arg { // values start at characters
				at[j] = n
				n++
			}
			at[len(arg)] = n
			break
		}
	}
	return func(b int) int {
		b -= off
		if b < 0 || b > len(arg) {
			return -1
		}
		if at == nil {
			return runes + b + 1
		}
		return runes + at[b] + 1
	}
}

func parseOverride(arg string, off int) (Override, error) {
	fail := func(at int, format string, a ...any) (Override, error) {
		return Override{}, &OverrideError{Arg: arg, Off: at, Msg: fmt.Sprintf(format, a...)}
	}
	if len(arg) > maxOverrideBytes {
		return fail(0, "longer than %d bytes", maxOverrideBytes)
	}
	if strings.ContainsAny(arg, "\n\r") {
		return fail(strings.IndexAny(arg, "\n\r"), "an override is one line")
	}
	o := Override{Arg: arg, Off: off}
	i := 0
	switch {
	case strings.HasPrefix(arg, "~"):
		o.Kind, i = OverrideDelete, 1
	case strings.HasPrefix(arg, "++"):
		o.Kind, i = OverrideForce, 2
	case strings.HasPrefix(arg, "+"):
		o.Kind, i = OverrideAdd, 1
	}
	eq := strings.IndexByte(arg, '=')
	if eq < 0 && o.Kind != OverrideDelete {
		return fail(len(arg), "expected KEY=VALUE")
	}
	end := eq
	if eq < 0 {
		end = len(arg)
	}
	key := arg[i:end]
	if !keyRE.MatchString(key) {
		return fail(i, "%q is not a key (dotted names such as cluster.num_nodes, or a config group such as model@actor.model)", key)
	}
	o.KeyOff, o.KeyEnd = off+i, off+end
	o.Key, o.Package = key, nil
	if k, pkg, ok := strings.Cut(key, "@"); ok {
		o.Key, o.Package = k, &pkg
	}
	if eq < 0 {
		return o, nil
	}
	p := &valueParser{s: arg, pos: eq + 1, base: off}
	p.space()
	o.ValueOff = off + p.pos
	if o.Kind == OverrideDelete && p.pos == len(arg) {
		return o, nil // `~key=`: delete whatever it holds
	}
	v, err := p.value()
	if err != nil {
		return fail(p.pos, "%s", err.Error())
	}
	o.Value = v
	return o, nil
}

// placeColumns turns the byte offsets parsing stored in Column into
// character columns (1-based) of the command line.
func placeColumns(n *yaml.Node, column func(byteOff int) int) {
	if n == nil {
		return
	}
	if c := column(n.Column - 1); c > 0 { // an empty value at the end is at len(arg)
		n.Column = c
	}
	for _, c := range n.Content {
		placeColumns(c, column)
	}
}

// valueParser reads an override's value (Hydra's VALUE_MODE).
type valueParser struct {
	s    string
	pos  int
	base int // offset of s in the command line
}

func (p *valueParser) space() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t') {
		p.pos++
	}
}

func (p *valueParser) node(kind yaml.Kind, at int) *yaml.Node {
	return &yaml.Node{Kind: kind, Line: 1, Column: p.base + at + 1}
}

// value is `element` or a sweep `element (, element)+`, refused.
func (p *valueParser) value() (*yaml.Node, error) {
	if p.pos == len(p.s) {
		n := p.node(yaml.ScalarNode, p.pos)
		n.Tag, n.Style = "!!str", yaml.TaggedStyle // `key=` is the empty string
		return n, nil
	}
	v, err := p.element(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos < len(p.s) && p.s[p.pos] == ',' {
		return nil, fmt.Errorf("a comma makes a sweep (several runs); a check reads one config: quote the value (key='a,b') or give one")
	}
	if p.pos < len(p.s) {
		return nil, fmt.Errorf("unexpected %q", p.s[p.pos])
	}
	return v, nil
}

const maxValueDepth = 32

func (p *valueParser) element(depth int) (*yaml.Node, error) {
	if depth > maxValueDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxValueDepth)
	}
	p.space()
	if p.pos >= len(p.s) {
		return nil, fmt.Errorf("a value is missing")
	}
	switch p.s[p.pos] {
	case '[':
		return p.list(depth)
	case '{':
		return p.dict(depth)
	case '\'', '"':
		return p.quoted()
	}
	return p.primitive()
}

func (p *valueParser) list(depth int) (*yaml.Node, error) {
	n := p.node(yaml.SequenceNode, p.pos)
	n.Tag, n.Style = "!!seq", yaml.FlowStyle
	p.pos++
	p.space()
	if p.pos < len(p.s) && p.s[p.pos] == ']' {
		p.pos++
		return n, nil
	}
	for {
		e, err := p.element(depth + 1)
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, e)
		p.space()
		if p.pos >= len(p.s) {
			return nil, fmt.Errorf("`[` is not closed")
		}
		switch p.s[p.pos] {
		case ']':
			p.pos++
			return n, nil
		case ',':
			p.pos++
		default:
			return nil, fmt.Errorf("unexpected %q in a list", p.s[p.pos])
		}
	}
}

func (p *valueParser) dict(depth int) (*yaml.Node, error) {
	n := p.node(yaml.MappingNode, p.pos)
	n.Tag, n.Style = "!!map", yaml.FlowStyle
	p.pos++
	p.space()
	if p.pos < len(p.s) && p.s[p.pos] == '}' {
		p.pos++
		return n, nil
	}
	for {
		p.space()
		start := p.pos
		for p.pos < len(p.s) && p.s[p.pos] != ':' && p.s[p.pos] != '}' && p.s[p.pos] != ',' {
			p.pos++
		}
		key := strings.TrimSpace(p.s[start:p.pos])
		if key == "" || p.pos >= len(p.s) || p.s[p.pos] != ':' {
			return nil, fmt.Errorf("a mapping entry needs `key: value`")
		}
		k := p.node(yaml.ScalarNode, start)
		k.Tag, k.Style, k.Value = "!!str", yaml.TaggedStyle, key
		p.pos++
		v, err := p.element(depth + 1)
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, k, v)
		p.space()
		if p.pos >= len(p.s) {
			return nil, fmt.Errorf("`{` is not closed")
		}
		switch p.s[p.pos] {
		case '}':
			p.pos++
			return n, nil
		case ',':
			p.pos++
		default:
			return nil, fmt.Errorf("unexpected %q in a mapping", p.s[p.pos])
		}
	}
}

// quoted reads a quoted string (Hydra's QUOTED_VALUE: a backslash escapes
// the quote and itself).
func (p *valueParser) quoted() (*yaml.Node, error) {
	q := p.s[p.pos]
	n := p.node(yaml.ScalarNode, p.pos)
	n.Tag, n.Style = "!!str", yaml.DoubleQuotedStyle
	if q == '\'' {
		n.Style = yaml.SingleQuotedStyle
	}
	var b strings.Builder
	for i := p.pos + 1; i < len(p.s); i++ {
		c := p.s[i]
		switch {
		case c == '\\' && i+1 < len(p.s) && (p.s[i+1] == q || p.s[i+1] == '\\'):
			b.WriteByte(p.s[i+1])
			i++
		case c == q:
			p.pos = i + 1
			n.Value = b.String()
			return n, nil
		default:
			b.WriteByte(c)
		}
	}
	return nil, fmt.Errorf("a quote is not closed")
}

// primitive reads unquoted text up to a comma or bracket: Hydra's ID, INT,
// FLOAT, BOOL, NULL, interpolations, the characters /-\+.$%*@?|: and
// escapes. One typed token is typed; anything else is a string.
func (p *valueParser) primitive() (*yaml.Node, error) {
	start := p.pos
	var b strings.Builder
	escaped := false
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		switch {
		case strings.HasPrefix(p.s[p.pos:], "${"):
			j := strings.IndexByte(p.s[p.pos:], '}')
			if j < 0 {
				return nil, fmt.Errorf("`${` is not closed")
			}
			b.WriteString(p.s[p.pos : p.pos+j+1])
			p.pos += j + 1
			continue
		case c == '\\' && p.pos+1 < len(p.s):
			b.WriteByte(p.s[p.pos+1])
			escaped = true
			p.pos += 2
			continue
		case c == ',' || c == ']' || c == '}' || c == ')':
		case c == '(':
			return nil, fmt.Errorf("functions such as choice() and range() make sweeps; a check reads one config")
		case c == '=' || c == '[' || c == '{' || c == '\'' || c == '"':
			return nil, fmt.Errorf("unexpected %q (quote the value)", c)
		case isWordByte(c) || strings.IndexByte("/-\\+.$%*@?|: \t", c) >= 0:
			b.WriteByte(c)
			p.pos++
			continue
		default:
			return nil, fmt.Errorf("unexpected %q (quote the value)", c)
		}
		break
	}
	text := strings.TrimRight(b.String(), " \t")
	n := p.node(yaml.ScalarNode, start)
	n.Value = text
	pv := yamlpos.ResolveOmega(text)
	if escaped || strings.Contains(text, "${") || pv.Kind == yamlpos.Str {
		n.Tag, n.Style = "!!str", yaml.TaggedStyle
		return n, nil
	}
	if y := yamlpos.ResolvePlain(text); y.Kind != pv.Kind || y.Str != pv.Str || y.Surprising {
		n.Value = canonical(pv) // a spelling YAML 1.1 reads otherwise: 1_000, 1e5, TrUe
	}
	return n, nil
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// canonical spells a typed value so that YAML 1.1 reads it the same.
func canonical(pv yamlpos.PyValue) string {
	switch pv.Kind {
	case yamlpos.Null:
		return "null"
	case yamlpos.Bool:
		return strings.ToLower(pv.Str)
	case yamlpos.Float:
		switch pv.Str {
		case "inf":
			return ".inf"
		case "-inf":
			return "-.inf"
		case "nan":
			return ".nan"
		}
		if !strings.ContainsAny(pv.Str, ".") {
			return strings.Replace(pv.Str, "e", ".0e", 1)
		}
	}
	return pv.Str
}
