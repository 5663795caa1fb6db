package yamlpos

import (
	"fmt"
	"strings"
)

// OmegaConf's interpolation grammar, as much of it as configs use:
//
//	text     := (literal | "\${" | interp)*
//	interp   := "${" (call | ref) "}"
//	ref      := "."* key ("." key)*                 ${a.b}, ${.sibling}
//	call     := name ":" [arg ("," arg)*]            ${subtract:${a}, ${b}}
//	arg      := quoted | "[" ... "]" | "{" ... "}" | (literal | interp)*
//
// Offsets are bytes into the scalar's string, so that a message can quote an
// interpolation whole, commas and nested references included.

// maxInterpDepth bounds the nesting of ${...} inside one scalar.
const maxInterpDepth = 32

// interp is one ${...}: a reference to a key, or a resolver call.
type interp struct {
	start, end int    // offsets of "${" and just past "}"
	resolver   string // the resolver's name; "" for a reference
	key        string // a reference's dotted key (with leading dots if relative)
	args       []arg
}

// arg is one resolver argument: text pieces and nested interpolations.
type arg struct {
	start, end int
	parts      []piece
	quoted     bool // a quoted string: always a str
	container  bool // a [list] or {dict}: not evaluated
}

// piece is literal text or one interpolation.
type piece struct {
	lit    string
	interp *interp
}

// interpParser reads a scalar's string.
type interpParser struct {
	s   string
	pos int
	err string
}

// parseText splits a scalar's string into literal text and interpolations;
// err is set when an interpolation is malformed.
func parseText(s string) ([]piece, string) {
	p := &interpParser{s: s}
	parts := p.text(0, "")
	return parts, p.err
}

// text reads pieces until one of the stop bytes (at depth > 0) or the end.
func (p *interpParser) text(depth int, stop string) []piece {
	var parts []piece
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, piece{lit: lit.String()})
			lit.Reset()
		}
	}
	for p.pos < len(p.s) && p.err == "" {
		c := p.s[p.pos]
		switch {
		case strings.HasPrefix(p.s[p.pos:], `\${`):
			lit.WriteString("${")
			p.pos += 3
		case strings.HasPrefix(p.s[p.pos:], "${"):
			flush()
			if it := p.interp(depth + 1); it != nil {
				parts = append(parts, piece{interp: it})
			}
		case stop != "" && strings.IndexByte(stop, c) >= 0:
			flush()
			return parts
		case c == '\\' && stop != "" && p.pos+1 < len(p.s):
			lit.WriteByte(p.s[p.pos+1]) // an escape inside a resolver argument
			p.pos += 2
		default:
			lit.WriteByte(c)
			p.pos++
		}
	}
	flush()
	return parts
}

func (p *interpParser) fail(format string, args ...any) {
	if p.err == "" {
		p.err = fmt.Sprintf(format, args...)
	}
}

// interp reads "${...}" at p.pos.
func (p *interpParser) interp(depth int) *interp {
	if depth > maxInterpDepth {
		p.fail("interpolations nested deeper than %d levels", maxInterpDepth)
		return nil
	}
	it := &interp{start: p.pos}
	p.pos += 2
	p.space()
	name := p.name()
	p.space()
	switch {
	case p.pos < len(p.s) && p.s[p.pos] == ':' && name != "" && !strings.HasPrefix(name, "."):
		p.pos++
		it.resolver = name
		it.args = p.args(depth)
	case p.pos < len(p.s) && p.s[p.pos] == '}':
		if name == "" {
			p.fail("`${}` names no key")
			return nil
		}
		it.key = name
	default:
		if p.pos < len(p.s) && p.s[p.pos] == '$' {
			p.fail("a key built from an interpolation is not supported")
		} else {
			p.fail("`${` is not closed")
		}
		return nil
	}
	if p.err != "" {
		return nil
	}
	if p.pos >= len(p.s) || p.s[p.pos] != '}' {
		p.fail("`${` is not closed")
		return nil
	}
	p.pos++
	it.end = p.pos
	return it
}

// name reads a dotted key or resolver name (letters, digits, _ - . / [ ]).
func (p *interpParser) name() string {
	start := p.pos
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if c == '.' || c == '_' || c == '-' || c == '/' || c == '[' || c == ']' ||
			c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80 {
			p.pos++
			continue
		}
		break
	}
	return p.s[start:p.pos]
}

func (p *interpParser) space() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t') {
		p.pos++
	}
}

// args reads a resolver's comma-separated arguments up to its "}".
func (p *interpParser) args(depth int) []arg {
	var out []arg
	p.space()
	if p.pos < len(p.s) && p.s[p.pos] == '}' {
		return nil
	}
	for p.err == "" {
		p.space()
		a := arg{start: p.pos}
		switch {
		case p.pos < len(p.s) && (p.s[p.pos] == '\'' || p.s[p.pos] == '"'):
			a.quoted = true
			a.parts = p.quoted(depth)
		case p.pos < len(p.s) && (p.s[p.pos] == '[' || p.s[p.pos] == '{'):
			a.container = true
			p.container()
		default:
			a.parts = trimPieces(p.text(depth, ",}"))
		}
		a.end = p.pos
		out = append(out, a)
		p.space()
		if p.pos >= len(p.s) {
			p.fail("`${` is not closed")
			return nil
		}
		if p.s[p.pos] == '}' {
			return out
		}
		if p.s[p.pos] != ',' {
			p.fail("unexpected %q in a resolver's arguments", p.s[p.pos])
			return nil
		}
		p.pos++
	}
	return out
}

// quoted reads a quoted argument; interpolations inside it are resolved.
func (p *interpParser) quoted(depth int) []piece {
	q := p.s[p.pos]
	p.pos++
	parts := p.text(depth, string(q))
	if p.pos >= len(p.s) {
		p.fail("a quote in a resolver's arguments is not closed")
		return nil
	}
	p.pos++
	return parts
}

// container skips a [list] or {dict} argument, brackets balanced.
func (p *interpParser) container() {
	level := 0
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case '[', '{':
			level++
		case ']', '}':
			level--
		}
		p.pos++
		if level == 0 {
			return
		}
	}
	p.fail("a bracket in a resolver's arguments is not closed")
}

// trimPieces strips the white space around an unquoted argument.
func trimPieces(parts []piece) []piece {
	if len(parts) > 0 && parts[0].interp == nil {
		parts[0].lit = strings.TrimLeft(parts[0].lit, " \t")
	}
	if n := len(parts); n > 0 && parts[n-1].interp == nil {
		parts[n-1].lit = strings.TrimRight(parts[n-1].lit, " \t")
	}
	out := parts[:0]
	for _, pc := range parts {
		if pc.interp != nil || pc.lit != "" {
			out = append(out, pc)
		}
	}
	return out
}
