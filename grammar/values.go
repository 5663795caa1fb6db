package grammar

import (
	"math"
	"strconv"

	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// Typed values of a composed config for the readers outside grammar
// (suggest's cost model): a value is judged as check judges it, with
// check's messages, so that no other package reports a config's types.

// Given reports a null where a value must be given, and returns false
// for it.
func Given(y *yamlpos.Doc, n *yaml.Node, what string) bool {
	if v := yamlpos.Deref(n); v != nil && v.Kind == yaml.ScalarNode && v.Tag == "!!null" && !yamlpos.Quoted(v) {
		y.Errorf(model.CodeMissingField, y.Span(n), "", "%s has no value", what)
		return false
	}
	return true
}

// String reads a given scalar as Python's str.
func String(y *yamlpos.Doc, n *yaml.Node, what string) (yamlpos.Value, bool) {
	if !Given(y, n, what) {
		return yamlpos.Value{}, false
	}
	return y.Scalar(n, what)
}

// PositiveInt reads a given whole number from 1 to max.
func PositiveInt(y *yamlpos.Doc, n *yaml.Node, what string, max int) (int, bool) {
	d := &doc{Doc: y}
	var f model.IntFact
	if !Given(y, n, what) || !d.positiveIntAt(&f, n, what) {
		return 0, false
	}
	if f.Value > max {
		y.Record(nil, yamlpos.Limit{What: what, Size: strconv.Itoa(f.Value), Max: max}.Diagnostic(f.Span, "too large"))
		return 0, false
	}
	return f.Value, true
}

// Number reads a given int or float as Python's float() reads it (not a
// string, not a bool).
func Number(y *yamlpos.Doc, n *yaml.Node, what string) (float64, bool) {
	if !Given(y, n, what) {
		return 0, false
	}
	return (&doc{Doc: y}).number(n, what)
}

// Bool reads a given YAML boolean.
func Bool(y *yamlpos.Doc, n *yaml.Node, what string) (bool, bool) {
	if !Given(y, n, what) {
		return false, false
	}
	v, _, ok := y.Boolean(n, what)
	return v, ok
}

// number reads an int or float scalar as a float64.
func (d *doc) number(n *yaml.Node, what string) (float64, bool) {
	x, ok := d.ScalarAs(n, what, yamlpos.Float)
	if !ok {
		return 0, false
	}
	switch x.Py.Kind {
	case yamlpos.Int, yamlpos.Float:
		if f, err := strconv.ParseFloat(x.Py.Str, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, true
		}
	}
	d.WrongType(x.Node, "not a number", what, "a number", yamlpos.Describe(x))
	return 0, false
}
