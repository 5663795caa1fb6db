package shsandbox

import (
	"context"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// Call is one external command the script ran (none really ran).
type Call struct {
	Argv []string
	Span Span // the command as written
	// Fields are Argv with where each value was written, for the
	// commands Options.Entry picked (nil for the others).
	Fields []Field
}

// Field is one argument of a traced command.
type Field struct {
	Text string
	// Span is where the value was written: the literal itself, the array
	// element or assignment it came from, else the word that expanded to
	// it.
	Span Span
	// Offs holds, when the value is a literal (quotes allowed), the offset
	// in the file of each byte of Text.
	Offs []int
	// Hole marks a variable the script never sets (and the caller did not
	// give): bash expands it to nothing; it stands here for the words it
	// could have held.
	Hole bool
	// Unknown are the unset variables the value depends on.
	Unknown []Unknown
}

// Unknown is an unset variable a value depends on, where it is read.
type Unknown struct {
	Name string
	Span Span
}

// record notes one external command; it traces the fields of those the
// caller asked for.
func (s *sandbox) record(ctx context.Context, args []string) {
	hc := interp.HandlerCtx(ctx)
	s.mu.Lock()
	full := len(s.calls) >= s.opt.Limits.MaxCalls
	s.mu.Unlock()
	if full {
		return
	}
	c := Call{Argv: append([]string(nil), args...), Span: Span{File: s.opt.Name}}
	n, ok := s.nodes.get(hc.Env.Get(atVar).String())
	if ok && n.call != nil {
		c.Span = posSpan(n.file, n.call.Args[0].Pos(), n.call.End())
		if s.opt.Entry != nil && s.opt.Entry(args) {
			c.Fields = s.trace(hc.Env, n, args, c.Span)
		}
	}
	s.mu.Lock()
	s.calls = append(s.calls, c)
	s.mu.Unlock()
}

// srcWord is a word with the file it was written in.
type srcWord struct {
	file string
	src  []byte
	w    *syntax.Word
}

type tracer struct {
	env   expand.Environ
	nodes *nodeTable
	seen  map[*syntax.Assign]int
}

const maxTraceDepth = 16

// trace maps a command's expanded arguments back to the words they came
// from; where it cannot, every argument points at the command.
func (s *sandbox) trace(env expand.Environ, n node, args []string, whole Span) []Field {
	t := &tracer{env: env, nodes: s.nodes, seen: map[*syntax.Assign]int{}}
	ws := make([]srcWord, len(n.call.Args))
	for i, w := range n.call.Args {
		ws[i] = srcWord{n.file, n.src, w}
	}
	if fs, ok := t.words(ws, args, 0); ok {
		return fs
	}
	out := make([]Field, len(args))
	for i, a := range args {
		out[i] = Field{Text: a, Span: whole}
	}
	return out
}

// words splits want among ws by what each expands to now; ok is false
// when that does not add up.
func (t *tracer) words(ws []srcWord, want []string, depth int) ([]Field, bool) {
	counts := make([]int, len(ws))
	unknown, sum := -1, 0
	for i, w := range ws {
		counts[i] = t.count(w.w)
		if counts[i] < 0 {
			if unknown >= 0 {
				return nil, false
			}
			unknown = i
			continue
		}
		sum += counts[i]
	}
	if unknown >= 0 {
		counts[unknown] = len(want) - sum
		if counts[unknown] < 0 {
			return nil, false
		}
		sum = len(want)
	}
	if sum != len(want) {
		return nil, false
	}
	var out []Field
	k := 0
	for i, w := range ws {
		part := want[k : k+counts[i]]
		if i != unknown && !t.same(w.w, part) {
			return nil, false
		}
		out = append(out, t.word(w, part, depth)...)
		k += counts[i]
	}
	return out, true
}

// count is how many fields w expands to now, or -1 when that cannot be
// told without running something.
func (t *tracer) count(w *syntax.Word) int {
	if hasCmdSubst(w) {
		return -1
	}
	fs, err := expand.Fields(&expand.Config{Env: t.env}, w)
	if err != nil {
		return -1
	}
	return len(fs)
}

func (t *tracer) same(w *syntax.Word, want []string) bool {
	fs, err := expand.Fields(&expand.Config{Env: t.env}, w)
	if err != nil || len(fs) != len(want) {
		return false
	}
	for i := range fs {
		if fs[i] != want[i] {
			return false
		}
	}
	return true
}

// word traces the fields one word expanded to.
func (t *tracer) word(sw srcWord, want []string, depth int) []Field {
	w := sw.w
	sp := nodeSpan(sw.file, sw.src, w)
	if isLiteral(w) && len(want) == 1 {
		return []Field{{Text: want[0], Span: sp, Offs: literalOffsets(sw, want[0])}}
	}
	if pe := soleParam(w); pe != nil && depth < maxTraceDepth {
		if fs, ok := t.param(sw, pe, want, depth); ok {
			return fs
		}
	}
	unk := t.unknowns(sw, w, depth)
	if len(want) == 0 {
		if len(unk) > 0 {
			return []Field{{Span: sp, Hole: true, Unknown: unk}}
		}
		return nil
	}
	out := make([]Field, len(want))
	for i, x := range want {
		out[i] = Field{Text: x, Span: sp, Unknown: unk}
	}
	return out
}

var varName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// param traces `$X`, `"${X[@]}"`, `${X:-default}` to X's assignments.
func (t *tracer) param(sw srcWord, pe *syntax.ParamExp, want []string, depth int) ([]Field, bool) {
	name := pe.Param.Value
	if !varName.MatchString(name) || pe.Length || pe.Width || pe.Excl || pe.Slice != nil || pe.Repl != nil || pe.Names != 0 {
		return nil, false
	}
	vr := t.env.Get(name)
	if pe.Exp != nil {
		switch pe.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
		default:
			return nil, false
		}
		null := pe.Exp.Op == syntax.DefaultUnsetOrNull || pe.Exp.Op == syntax.AssignUnsetOrNull
		if !vr.IsSet() || null && vr.String() == "" {
			if pe.Exp.Word == nil {
				return nil, len(want) == 0
			}
			return t.words([]srcWord{{sw.file, sw.src, pe.Exp.Word}}, want, depth+1)
		}
	}
	sp := posSpan(sw.file, pe.Pos(), pe.End())
	if !vr.IsSet() {
		return []Field{{Span: sp, Hole: true, Unknown: []Unknown{{name, sp}}}}, true
	}
	elems, ok := t.assigned(name, pe, vr)
	if !ok || len(elems) == 0 {
		return nil, false
	}
	if fs, ok := t.words(elems, want, depth+1); ok {
		return fs, true
	}
	if len(elems) == 1 { // a scalar the shell split: point at its value
		e := elems[0]
		esp := nodeSpan(e.file, e.src, e.w)
		unk := t.unknowns(e, e.w, depth+1)
		out := make([]Field, len(want))
		for i, x := range want {
			out[i] = Field{Text: x, Span: esp, Unknown: unk}
		}
		return out, true
	}
	return nil, false
}

// assigned are the words X's current value was assigned from, in order.
func (t *tracer) assigned(name string, pe *syntax.ParamExp, vr expand.Variable) ([]srcWord, bool) {
	all := pe.Index != nil && (strings.Contains(indexText(pe.Index), "@") || strings.Contains(indexText(pe.Index), "*"))
	if pe.Index != nil && !all {
		return nil, false
	}
	var out []srcWord
	for _, id := range strings.Fields(t.env.Get(originPfx + name).String()) {
		n, ok := t.nodes.get(id)
		if !ok || n.assign == nil || n.assign.Index != nil {
			return nil, false
		}
		if t.seen[n.assign] > 2 {
			return nil, false
		}
		t.seen[n.assign]++
		a := n.assign
		switch {
		case a.Array != nil:
			if !a.Append {
				out = out[:0]
			}
			for _, e := range a.Array.Elems {
				if e.Index != nil || e.Value == nil {
					return nil, false
				}
				out = append(out, srcWord{n.file, n.src, e.Value})
			}
		case a.Value != nil:
			if !a.Append {
				out = out[:0]
			}
			if a.Append && len(out) > 0 {
				return nil, false // a string appended to: one value from two places
			}
			out = append(out, srcWord{n.file, n.src, a.Value})
		default:
			out = out[:0]
		}
	}
	if vr.Kind == expand.Indexed && !all && len(out) > 1 {
		out = out[:1] // $X of an array is its first element
	}
	if vr.Kind == expand.String && len(out) > 1 {
		return nil, false
	}
	return out, true
}

func indexText(e syntax.ArithmExpr) string {
	if w, ok := e.(*syntax.Word); ok {
		return w.Lit()
	}
	return ""
}

// unknowns are the unset variables w reads, directly or through the
// assignments of the variables it reads.
func (t *tracer) unknowns(sw srcWord, w syntax.Node, depth int) []Unknown {
	var out []Unknown
	for _, r := range refs(sw.file, w) {
		vr := t.env.Get(r.Name)
		if !vr.IsSet() {
			out = append(out, r)
			continue
		}
		if depth >= maxTraceDepth {
			continue
		}
		elems, ok := t.assigned(r.Name, &syntax.ParamExp{}, vr)
		if !ok {
			continue
		}
		for _, e := range elems {
			out = append(out, t.unknowns(e, e.w, depth+1)...)
		}
	}
	return out
}

// refs are the variables a word reads: its $X and ${X...} expansions
// (the default of ${X:-d} when X is unset) and the names in arithmetic.
func refs(file string, n syntax.Node) []Unknown {
	var out []Unknown
	add := func(name string, from, to syntax.Pos) {
		if varName.MatchString(name) && !strings.HasPrefix(name, "__RLS_") {
			out = append(out, Unknown{name, posSpan(file, from, to)})
		}
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ParamExp:
			if x.Exp != nil && (x.Exp.Op == syntax.DefaultUnset || x.Exp.Op == syntax.DefaultUnsetOrNull) {
				return true // set: X's own value; unset: the default, walked
			}
			if !x.Excl && !x.Length {
				add(x.Param.Value, x.Pos(), x.End())
			}
		case *syntax.ArithmExp:
			syntax.Walk(x.X, func(n syntax.Node) bool {
				if w, ok := n.(*syntax.Word); ok && len(w.Parts) == 1 {
					if l, ok := w.Parts[0].(*syntax.Lit); ok {
						add(l.Value, w.Pos(), w.End())
					}
				}
				return true
			})
		}
		return true
	})
	return out
}

func hasCmdSubst(w *syntax.Word) bool {
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		if _, ok := n.(*syntax.CmdSubst); ok {
			found = true
		}
		return !found
	})
	return found
}

// isLiteral reports whether w expands to itself: no expansions.
func isLiteral(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return len(w.Parts) > 0
}

// soleParam is w's only part when it is one parameter expansion, quoted
// or not.
func soleParam(w *syntax.Word) *syntax.ParamExp {
	if len(w.Parts) != 1 {
		return nil
	}
	switch x := w.Parts[0].(type) {
	case *syntax.ParamExp:
		return x
	case *syntax.DblQuoted:
		if len(x.Parts) == 1 {
			pe, _ := x.Parts[0].(*syntax.ParamExp)
			return pe
		}
	}
	return nil
}

// literalOffsets maps each byte of a literal word's value to the source
// byte it is written as, when every part is written as its value (no
// escapes); else nil.
func literalOffsets(sw srcWord, text string) []int {
	var offs []int
	var val []byte
	add := func(v string, o int) bool {
		if o+len(v) > len(sw.src) || string(sw.src[o:o+len(v)]) != v {
			return false
		}
		for i := range len(v) {
			offs = append(offs, o+i)
		}
		val = append(val, v...)
		return true
	}
	for _, p := range sw.w.Parts {
		ok := false
		switch x := p.(type) {
		case *syntax.Lit:
			ok = add(x.Value, int(x.Pos().Offset()))
		case *syntax.SglQuoted:
			ok = !x.Dollar && add(x.Value, int(x.Left.Offset())+1)
		case *syntax.DblQuoted:
			ok = !x.Dollar
			for _, q := range x.Parts {
				ok = ok && add(q.(*syntax.Lit).Value, int(q.Pos().Offset()))
			}
		}
		if !ok {
			return nil
		}
	}
	if string(val) != text {
		return nil
	}
	return offs
}
