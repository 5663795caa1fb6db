package yamlpos

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// Value is a scalar as RLinf reads it: Python's view of it plus where it is.
type Value struct {
	Node *yaml.Node
	Py   PyValue
	// Text is the scalar's source text (its value after interpolation).
	Text string
	Span model.Span
	// Exact is true when Py.Str and Text are the same characters as the
	// source, so a position inside Py.Str is a position inside the source.
	Exact bool
}

// Sub returns the span of characters [i, j) of the value's Python string,
// or the whole value when the string is not the source text.
func (v Value) Sub(i, j int) model.Span {
	if !v.Exact {
		return v.Span
	}
	return v.Span.Sub(i, j)
}

// Missing is OmegaConf's mandatory value: a key that must be given before
// the config is used (on the command line, or by a config composed later).
const Missing = "???"

// IsMissing reports whether a node is OmegaConf's `???`.
func IsMissing(n *yaml.Node) bool {
	n = Deref(n)
	return n != nil && n.Kind == yaml.ScalarNode && n.Value == Missing
}

// MissingValue reports a mandatory value read before it was given, and
// returns true, when n is `???`.
func (d *Doc) MissingValue(n *yaml.Node, what string) bool {
	if !IsMissing(n) {
		return false
	}
	n = Deref(n)
	diag := d.Record(n, Mandatory(d.Span(n), "never given", what, "a mandatory value that was never given"))
	diag.Why = "OmegaConf reads `???` as a value that must be set before it is used; RLinf fails when it reads it."
	diag.Help = []model.Fix{{Message: "give the value in the config, or on the command line as KEY=VALUE after the file"}}
	return true
}

// Scalar reads a scalar node as Python would after OmegaConf: YAML 1.1
// typing, ${...} interpolations resolved, and D3's surprising readings
// reported. ok is false (and a diagnostic recorded) when the node is not a
// usable scalar.
func (d *Doc) Scalar(n *yaml.Node, what string) (Value, bool) { return d.scalar(n, what, Str) }

// ScalarAs reads a scalar that RLinf uses as a want (a string, an int, a
// bool) without requiring that type (a switch read by truthiness); want
// decides how a surprising reading is fixed.
func (d *Doc) ScalarAs(n *yaml.Node, what string, want Kind) (Value, bool) {
	return d.scalar(n, what, want)
}

func (d *Doc) scalar(n *yaml.Node, what string, want Kind) (Value, bool) {
	n = Deref(n)
	sp := d.Span(n)
	if n == nil {
		return Value{Span: sp}, false
	}
	if n.Kind != yaml.ScalarNode {
		d.WrongType(n, "expected a scalar", what, "a scalar", KindName(n))
		return Value{Node: n, Span: sp}, false
	}
	if len(n.Value) > d.lim.MaxStringBytes {
		d.Record(n, Limit{What: what, Size: strconv.Itoa(len(n.Value)), Max: d.lim.MaxStringBytes, Unit: " bytes"}.Diagnostic(sp, "too long"))
		return Value{Node: n, Span: sp}, false
	}
	if d.MissingValue(n, what) {
		return Value{Node: n, Span: sp}, false
	}
	if strings.Contains(n.Value, "${") {
		return d.interpolate(n, what)
	}
	v := Value{Node: n, Text: n.Value, Span: sp}
	if Quoted(n) {
		v.Py = PyValue{Kind: Str, Str: n.Value}
	} else {
		v.Py = ResolvePlain(n.Value)
	}
	v.Exact = v.Py.Str == v.Text && sp.EndCol-sp.Col == len(v.Text)
	if v.Py.Surprising {
		d.surprise(n, v, what, want)
		return v, false
	}
	return v, true
}

// surprise reports an unquoted value that YAML 1.1 reads otherwise than it
// looks (D3), with the fix that keeps the meaning check can verify: the
// number or boolean RLinf reads for a number or a switch, and for a string
// the text quoted, or the number RLinf reads where its own int() would not
// take the quoted text (1_0, 0x10).
func (d *Doc) surprise(n *yaml.Node, v Value, what string, want Kind) {
	text := fmt.Sprintf("%q", n.Value)
	fix, verb := "quote the value: "+text, "quote it"
	switch {
	case want != Str && v.Py.Kind == want:
		text = strings.ToLower(v.Py.Str)
		fix, verb = "write the value RLinf reads: "+text, "write"
	case want != Str:
		text, fix = "", ""
	case v.Py.Kind == Int && (strings.Contains(n.Value, "_") || strings.ContainsAny(strings.ToLower(n.Value), "xb")):
		text = fmt.Sprintf("%q", v.Py.Str)
		fix, verb = "write the number RLinf reads: "+text, "write"
	}
	summary := fmt.Sprintf("RLinf reads the unquoted %s `%s` as %s", what, n.Value, v.Py.Str)
	if text != "" {
		summary += fmt.Sprintf("; %s: `%s`", verb, text)
	}
	diag := d.errorOnce(n, model.CodeYAML11, d.Span(n), fmt.Sprintf("RLinf reads this as %s", v.Py.Str), "%s", summary)
	diag.Why = "RLinf loads YAML 1.1 (PyYAML), where unquoted values like 1:0 (base 60), 010 (octal), 1_0 and yes/no/on/off are numbers or booleans; rlsolve refuses the surprise instead of guessing."
	if fix != "" {
		diag.Help = []model.Fix{{Message: fix, Edits: []model.Edit{{Span: d.TokenSpan(n), NewText: text}}}}
	}
}

// Integer reads a scalar that RLinf requires to be a Python int (not bool).
func (d *Doc) Integer(n *yaml.Node, what string) (int, Value, bool) {
	v, ok := d.scalar(n, what, Int)
	if !ok {
		return 0, v, false
	}
	if v.Py.Kind != Int {
		d.WrongType(v.Node, "not an integer", what, "an integer", Describe(v))
		return 0, v, false
	}
	if !v.Py.IntOK {
		d.Record(v.Node, Limit{What: what, Size: v.Py.Str, Max: math.MaxInt}.Diagnostic(v.Span, "too large"))
		return 0, v, false
	}
	return v.Py.Int, v, true
}

// Boolean reads a YAML boolean.
func (d *Doc) Boolean(n *yaml.Node, what string) (bool, Value, bool) {
	v, ok := d.scalar(n, what, Bool)
	if !ok {
		return false, v, false
	}
	if v.Py.Kind != Bool {
		d.WrongType(v.Node, "not a boolean", what, "true or false", Describe(v))
		return false, v, false
	}
	return v.Py.Str == "True", v, true
}

// Describe renders a value with its Python type for messages.
func Describe(v Value) string {
	switch v.Py.Kind {
	case Null:
		return "null"
	case Bool:
		return "the boolean " + v.Text
	case Float:
		return "the number " + v.Text
	}
	return describePy(v.Py)
}

// errorOnce records an error about node n, once (see Record).
func (d *Doc) errorOnce(n *yaml.Node, code string, at model.Span, label, format string, args ...any) *model.Diagnostic {
	return d.Record(n, diagnostic(model.SeverityError, code, at, label, format, args...))
}

// WithoutSurprises returns ds less the refusals of YAML 1.1's surprising
// readings (D3) that this package raises: for a caller that reports values
// as Python holds them, where the reading is the value, not an error.
func WithoutSurprises(ds model.Diagnostics) model.Diagnostics {
	kept := ds[:0:0]
	for _, x := range ds {
		if x.Code != model.CodeYAML11 {
			kept = append(kept, x)
		}
	}
	return kept
}
