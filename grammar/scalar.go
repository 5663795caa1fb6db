package grammar

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// value is a scalar as RLinf reads it: Python's view of it plus where it is.
type value struct {
	node *yaml.Node
	py   pyValue
	// text is the scalar's source text (node.Value after interpolation).
	text string
	span model.Span
	// exact is true when str and text are the same characters, so a
	// position inside str is a position inside the source.
	exact bool
}

var interpRE = regexp.MustCompile(`\$\{([^}]*)\}`)

// scalar reads a scalar node as Python would after OmegaConf: YAML 1.1
// typing, ${a.b} interpolations resolved, and D3's surprising readings
// reported. ok is false (and a diagnostic recorded) when the node is not a
// usable scalar.
func (d *doc) scalar(n *yaml.Node, what string) (value, bool) {
	n = deref(n)
	sp := d.span(n)
	if n == nil {
		return value{span: sp}, false
	}
	if n.Kind != yaml.ScalarNode {
		d.errorf(model.CodeWrongType, sp, "expected a scalar", "%s must be a scalar, but got %s", what, kindName(n))
		return value{node: n, span: sp}, false
	}
	if len(n.Value) > d.limits.MaxStringBytes {
		d.errorf(model.CodeLimit, sp, "too long", "%s is %d bytes long; the limit is %d", what, len(n.Value), d.limits.MaxStringBytes)
		return value{node: n, span: sp}, false
	}
	if strings.Contains(n.Value, "${") {
		return d.interpolate(n, what)
	}
	v := value{node: n, text: n.Value, span: sp}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 || n.Tag == "!!str" && n.Style != 0 {
		v.py = pyValue{kind: pyStr, str: n.Value}
	} else {
		v.py = resolvePlain(n.Value)
	}
	v.exact = v.py.str == v.text && sp.EndCol-sp.Col == len(v.text)
	if v.py.surprising {
		quoted := fmt.Sprintf("%q", n.Value)
		diag := d.errorf(model.CodeYAML11, sp, fmt.Sprintf("RLinf reads this as %s", v.py.str),
			"RLinf reads the unquoted %s `%s` as %s; quote it: `%s`", what, n.Value, v.py.str, quoted)
		diag.Why = "RLinf loads YAML 1.1 (PyYAML), where unquoted values like 1:0 (base 60), 010 (octal), 1_0 and yes/no/on/off are numbers or booleans; rlsolve refuses the surprise instead of guessing."
		diag.Help = []model.Fix{{Message: fmt.Sprintf("quote the value: %s", quoted), Edits: []model.Edit{{Span: d.tokenSpan(n), NewText: quoted}}}}
		return v, false
	}
	return v, true
}

// tokenSpan covers a scalar's whole token, quotes included (for edits).
func (d *doc) tokenSpan(n *yaml.Node) model.Span {
	s := d.span(n)
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 && s.EndCol-s.Col == len(n.Value) {
		s.Col--
		s.EndCol++
	}
	return s
}

// interpolate resolves OmegaConf's ${a.b.c} references to other keys of the
// same file. A value that is exactly one reference takes the target's type.
func (d *doc) interpolate(n *yaml.Node, what string) (value, bool) {
	sp := d.span(n)
	if d.resolving[n] {
		d.errorf(model.CodeUnresolvedInterp, sp, "refers back to itself", "%s: interpolation cycle in `%s`", what, n.Value)
		return value{node: n, span: sp}, false
	}
	d.resolving[n] = true
	defer delete(d.resolving, n)
	resolveRef := func(ref string) (value, bool) {
		ref = strings.TrimSpace(ref)
		if ref == "" || strings.ContainsAny(ref, ":(") || strings.HasPrefix(ref, ".") {
			d.errorf(model.CodeUnresolvedInterp, sp, "not resolvable without running OmegaConf",
				"%s uses the interpolation `${%s}`, which rlsolve cannot resolve", what, ref).Help =
				[]model.Fix{{Message: "replace the interpolation with its value for the check, or refer to an absolute key (`${cluster.num_nodes}`)"}}
			return value{}, false
		}
		target := d.path(ref)
		if target == nil {
			d.errorf(model.CodeUnresolvedInterp, sp, "no such key", "%s refers to `${%s}`, which is not in this file", what, ref)
			return value{}, false
		}
		return d.scalar(target, what)
	}
	if m := interpRE.FindStringSubmatch(n.Value); m != nil && m[0] == n.Value {
		v, ok := resolveRef(m[1])
		v.node, v.span, v.text, v.exact = n, sp, v.py.str, false
		return v, ok
	}
	// Build the string piece by piece and stop at the string limit, so that
	// references to references cannot multiply a small file into gigabytes.
	ok := true
	var b strings.Builder
	rest := n.Value
	for _, loc := range interpRE.FindAllStringIndex(n.Value, -1) {
		b.WriteString(n.Value[len(n.Value)-len(rest) : loc[0]])
		rest = n.Value[loc[1]:]
		v, good := resolveRef(n.Value[loc[0]+2 : loc[1]-1])
		ok = ok && good
		if !ok {
			return value{node: n, span: sp}, false
		}
		if b.Len()+len(v.py.str) > d.limits.MaxStringBytes {
			d.errorf(model.CodeLimit, sp, "expands too far", "%s: the interpolations expand past %d bytes", what, d.limits.MaxStringBytes)
			return value{node: n, span: sp}, false
		}
		b.WriteString(v.py.str)
	}
	b.WriteString(rest)
	if b.Len() > d.limits.MaxStringBytes {
		d.errorf(model.CodeLimit, sp, "expands too far", "%s: the interpolations expand past %d bytes", what, d.limits.MaxStringBytes)
		return value{node: n, span: sp}, false
	}
	out := b.String()
	return value{node: n, py: pyValue{kind: pyStr, str: out}, text: out, span: sp}, ok
}

// str reads a scalar as Python's str() of it (labels, placements, keys).
func (d *doc) str(n *yaml.Node, what string) (value, bool) {
	return d.scalar(n, what)
}

// integer reads a scalar that RLinf requires to be a Python int (not bool).
func (d *doc) integer(n *yaml.Node, what string) (int, value, bool) {
	v, ok := d.scalar(n, what)
	if !ok {
		return 0, v, false
	}
	if v.py.kind != pyInt {
		d.errorf(model.CodeWrongType, v.span, "not an integer", "%s must be an integer, but got %s", what, describe(v))
		return 0, v, false
	}
	if !v.py.intOK {
		d.errorf(model.CodeLimit, v.span, "too large", "%s is too large: %s", what, v.py.str)
		return 0, v, false
	}
	return v.py.intVal, v, true
}

// boolean reads a YAML boolean.
func (d *doc) boolean(n *yaml.Node, what string) (bool, value, bool) {
	v, ok := d.scalar(n, what)
	if !ok {
		return false, v, false
	}
	if v.py.kind != pyBool {
		d.errorf(model.CodeWrongType, v.span, "not a boolean", "%s must be true or false, but got %s", what, describe(v))
		return false, v, false
	}
	return v.py.str == "True", v, true
}

// describe renders a value with its Python type for messages.
func describe(v value) string {
	switch v.py.kind {
	case pyNull:
		return "null"
	case pyBool:
		return "the boolean " + v.text
	case pyInt:
		return "the integer " + v.py.str
	case pyFloat:
		return "the number " + v.text
	}
	return fmt.Sprintf("the string %q", v.py.str)
}

// sub returns the span of characters [i, j) of the value's Python string,
// or the whole value when the string is not the source text.
func (v value) sub(i, j int) model.Span {
	if !v.exact {
		return v.span
	}
	return v.span.Sub(i, j)
}
