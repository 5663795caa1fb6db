package yamlpos

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/model"
	"go.yaml.in/yaml/v3"
)

// resolvers are the OmegaConf resolvers rlsolve evaluates: RLinf's own
// (rlinf/utils/omega_resolver.py: multiply, int_div, subtract, not) and
// OmegaConf's oc.env, oc.select and oc.decode. Others (torch.dtype) are
// reported where placement needs their value.
var resolvers = []string{"multiply", "int_div", "subtract", "not", "oc.env", "oc.select", "oc.decode"}

// interpolate resolves OmegaConf's ${...} in a scalar. A value that is
// exactly one interpolation takes its result's type; anything else is a
// string.
func (d *Doc) interpolate(n *yaml.Node, what string) (Value, bool) {
	// Each scalar resolves once: a chain of keys that each refer to the
	// one before twice would otherwise take exponential time.
	if r, ok := d.resolved[n]; ok {
		return r.v, r.ok
	}
	v, ok := d.resolve(n, what)
	if !d.resolving[n] {
		d.resolved[n] = resolution{v, ok}
	}
	return v, ok
}

// resolution is a scalar's interpolated value, once computed.
type resolution struct {
	v  Value
	ok bool
}

func (d *Doc) resolve(n *yaml.Node, what string) (Value, bool) {
	sp := d.Span(n)
	fail := Value{Node: n, Span: sp}
	if d.resolving[n] {
		d.errorOnce(n, model.CodeUnresolvedInterp, sp, "refers back to itself", "%s: interpolation cycle in `%s`", what, n.Value)
		return fail, false
	}
	d.resolving[n] = true
	defer delete(d.resolving, n)
	parts, perr := parseText(n.Value)
	if perr != "" {
		d.errorOnce(n, model.CodeUnresolvedInterp, sp, "not an interpolation OmegaConf reads", "%s: `%s`: %s", what, n.Value, perr)
		return fail, false
	}
	r := &resolver{d: d, n: n, what: what, span: sp}
	if len(parts) == 1 && parts[0].interp != nil {
		pv, ok := r.eval(parts[0].interp)
		if !ok {
			return fail, false
		}
		return Value{Node: n, Py: pv, Text: pv.Str, Span: sp}, true
	}
	out, ok := r.join(parts)
	if !ok {
		return fail, false
	}
	return Value{Node: n, Py: PyValue{Kind: Str, Str: out}, Text: out, Span: sp}, true
}

// resolver evaluates the interpolations of one scalar.
type resolver struct {
	d    *Doc
	n    *yaml.Node
	what string
	span model.Span
}

// at is the span of the characters [i, j) of the scalar's string when the
// span covers exactly that string, else the whole scalar.
func (r *resolver) at(i, j int) model.Span {
	if r.span.EndLine == r.span.Line && r.span.EndCol-r.span.Col == len(r.n.Value) {
		return r.span.Sub(i, j)
	}
	return r.span
}

func (r *resolver) text(it *interp) string { return r.n.Value[it.start:it.end] }

func (r *resolver) errorf(it *interp, label, format string, args ...any) *model.Diagnostic {
	return r.d.errorOnce(r.n, model.CodeUnresolvedInterp, r.at(it.start, it.end), label, format, args...)
}

// join resolves pieces into one string, bounded by MaxExpandedBytes so
// that references to references cannot multiply a small file into
// gigabytes.
func (r *resolver) join(parts []piece) (string, bool) {
	var b strings.Builder
	for _, pc := range parts {
		s := pc.lit
		if pc.interp != nil {
			pv, ok := r.eval(pc.interp)
			if !ok {
				return "", false
			}
			s = pv.Str
		}
		if max := r.d.lim.Expanded(); b.Len()+len(s) > max {
			r.d.Record(r.n, Limit{What: r.what + " with its interpolations expanded", Max: max, Unit: " bytes"}.Diagnostic(r.span, "expands too far"))
			return "", false
		}
		b.WriteString(s)
	}
	return b.String(), true
}

// eval resolves one ${...}.
func (r *resolver) eval(it *interp) (PyValue, bool) {
	if it.resolver == "" {
		return r.ref(it, it.key)
	}
	args := make([]PyValue, 0, len(it.args))
	for _, a := range it.args {
		v, ok := r.arg(it, a)
		if !ok {
			return PyValue{}, false
		}
		args = append(args, v)
	}
	return r.call(it, args)
}

// ref reads the key a reference names, as the key's own value (its
// problems reported where it is written).
func (r *resolver) ref(it *interp, key string) (PyValue, bool) {
	if strings.HasPrefix(key, ".") || strings.ContainsAny(key, "[]") {
		r.errorf(it, "not resolvable without running OmegaConf",
			"%s uses the interpolation `%s`, which rlsolve cannot resolve", r.what, r.text(it)).Help =
			[]model.Fix{{Message: "replace the interpolation with its value for the check, or refer to an absolute key (`${cluster.num_nodes}`)"}}
		return PyValue{}, false
	}
	target := r.d.Path(key)
	if target == nil {
		r.errorf(it, "no such key", "%s refers to `%s`, which is not in this config", r.what, r.text(it))
		return PyValue{}, false
	}
	v, ok := r.d.Scalar(target, key)
	return v.Py, ok
}

// arg evaluates one resolver argument: a lone interpolation keeps its
// type, unquoted text is typed as OmegaConf types it, the rest is a string.
func (r *resolver) arg(it *interp, a arg) (PyValue, bool) {
	switch {
	case a.container:
		r.errorf(it, "not resolvable without running OmegaConf",
			"%s uses `%s`, whose list or mapping argument rlsolve does not evaluate", r.what, r.text(it))
		return PyValue{}, false
	case len(a.parts) == 1 && a.parts[0].interp != nil && !a.quoted:
		return r.eval(a.parts[0].interp)
	}
	s, ok := r.join(a.parts)
	if !ok {
		return PyValue{}, false
	}
	if a.quoted {
		return PyValue{Kind: Str, Str: s}, true
	}
	for _, pc := range a.parts {
		if pc.interp != nil {
			return PyValue{Kind: Str, Str: s}, true
		}
	}
	return ResolveOmega(s), true
}

// call applies a resolver.
func (r *resolver) call(it *interp, args []PyValue) (PyValue, bool) {
	want := map[string]int{"multiply": 2, "int_div": 2, "subtract": 2, "not": 1, "oc.decode": 1}
	if n, fixed := want[it.resolver]; fixed && len(args) != n {
		r.errorf(it, fmt.Sprintf("%s takes %d argument(s)", it.resolver, n),
			"%s: `%s` gives %s %d argument(s); it takes %d", r.what, r.text(it), it.resolver, len(args), n)
		return PyValue{}, false
	}
	switch it.resolver {
	case "multiply", "int_div", "subtract":
		return r.arith(it, args[0], args[1])
	case "not":
		return boolValue(!truthy(args[0])), true
	case "oc.env":
		return r.env(it, args)
	case "oc.select":
		return r.sel(it, args)
	case "oc.decode":
		if args[0].Kind != Str {
			return args[0], true
		}
		return ResolveOmega(strings.TrimSpace(args[0].Str)), true
	}
	r.errorf(it, "resolver not evaluated", "%s uses the resolver `%s` in `%s`, which rlsolve does not evaluate (it evaluates %s)",
		r.what, it.resolver, r.text(it), strings.Join(resolvers, ", ")).Help =
		[]model.Fix{{Message: "write the value this key has when RLinf runs, for the check"}}
	return PyValue{}, false
}

// truthy is Python's bool() of a value.
func truthy(v PyValue) bool {
	switch v.Kind {
	case Null:
		return false
	case Bool, Int:
		return v.Str != "False" && v.Str != "0"
	case Float:
		f, err := strconv.ParseFloat(v.Str, 64)
		return err != nil || f != 0
	}
	return v.Str != ""
}

// arith is RLinf's multiply (x * y), int_div (x // y) and subtract (x - y)
// on Python numbers.
func (r *resolver) arith(it *interp, x, y PyValue) (PyValue, bool) {
	for _, v := range []PyValue{x, y} {
		if v.Kind != Int && v.Kind != Bool && v.Kind != Float {
			r.errorf(it, "not a number", "%s: `%s` applies %s to %s, which is not a number", r.what, r.text(it), it.resolver, describePy(v))
			return PyValue{}, false
		}
	}
	if x.Kind != Float && y.Kind != Float {
		a, _ := new(big.Int).SetString(x.intText(), 10)
		b, _ := new(big.Int).SetString(y.intText(), 10)
		if a == nil || b == nil {
			return PyValue{}, false
		}
		switch it.resolver {
		case "multiply":
			if a.BitLen()+b.BitLen() > 256 {
				r.errorf(it, "too large", "%s: `%s` is too large", r.what, r.text(it))
				return PyValue{}, false
			}
			return intValue(a.Mul(a, b)), true
		case "subtract":
			return intValue(a.Sub(a, b)), true
		}
		if b.Sign() == 0 {
			r.errorf(it, "division by zero", "%s: `%s` divides by zero", r.what, r.text(it))
			return PyValue{}, false
		}
		q, m := new(big.Int).DivMod(a, b, new(big.Int)) // Euclidean; Python floors
		if m.Sign() != 0 && b.Sign() < 0 {
			q.Sub(q, big.NewInt(1)) // 7 // -2 is -4, not -3
		}
		return intValue(q), true
	}
	a, b := x.float(), y.float()
	var f float64
	switch it.resolver {
	case "multiply":
		f = a * b
	case "subtract":
		f = a - b
	default:
		if b == 0 {
			r.errorf(it, "division by zero", "%s: `%s` divides by zero", r.what, r.text(it))
			return PyValue{}, false
		}
		f = math.Floor(a / b)
	}
	return PyValue{Kind: Float, Str: floatRepr(f)}, true
}

// intText is the decimal text of an int or bool.
func (v PyValue) intText() string {
	switch v.Str {
	case "True":
		return "1"
	case "False":
		return "0"
	}
	return v.Str
}

func (v PyValue) float() float64 {
	if v.Kind != Float {
		f, _ := strconv.ParseFloat(v.intText(), 64)
		return f
	}
	f, _ := strconv.ParseFloat(v.Str, 64)
	return f
}

// env is oc.env: the variable's value (a string), else the default.
func (r *resolver) env(it *interp, args []PyValue) (PyValue, bool) {
	if len(args) < 1 || len(args) > 2 {
		r.errorf(it, "", "%s: `%s`: oc.env takes a variable name and an optional default", r.what, r.text(it))
		return PyValue{}, false
	}
	name := args[0].Str
	if r.d.Getenv != nil {
		if v, ok := r.d.Getenv(name); ok {
			return PyValue{Kind: Str, Str: v}, true
		}
	}
	if len(args) == 2 {
		if args[1].Kind == Null {
			return args[1], true
		}
		return PyValue{Kind: Str, Str: args[1].Str}, true
	}
	r.errorf(it, "not set", "%s: `%s` reads the environment variable %s, which is not set", r.what, r.text(it), name).Help =
		[]model.Fix{{Message: fmt.Sprintf("set %s as the run will, or write the value for the check", name)}}
	return PyValue{}, false
}

// sel is oc.select: the value at an absolute key, else the default (None).
func (r *resolver) sel(it *interp, args []PyValue) (PyValue, bool) {
	if len(args) < 1 || len(args) > 2 {
		r.errorf(it, "", "%s: `%s`: oc.select takes a key and an optional default", r.what, r.text(it))
		return PyValue{}, false
	}
	key := args[0].Str
	if strings.HasPrefix(key, ".") {
		return r.ref(it, key)
	}
	if target := r.d.Path(key); target != nil && !IsMissing(target) {
		v, ok := r.d.Scalar(target, key)
		return v.Py, ok
	}
	if len(args) == 2 {
		return args[1], true
	}
	return PyValue{Kind: Null, Str: "None"}, true
}

// describePy renders a Python value with its type for messages.
func describePy(v PyValue) string {
	switch v.Kind {
	case Null:
		return "None"
	case Bool:
		return "the boolean " + v.Str
	case Int:
		return "the integer " + v.Str
	case Float:
		return "the number " + v.Str
	}
	return fmt.Sprintf("the string %q", v.Str)
}
