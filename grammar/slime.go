package grammar

import (
	"fmt"
	"strings"

	"github.com/rlsolve/rlsolve/internal/fuzzy"
	"github.com/rlsolve/rlsolve/model"
)

// slime's placement flags come as one command-line string (`rlsolve plan
// --slime '--actor-num-nodes 2 ...'`). The tokenizer splits it as a POSIX
// shell would (quotes, backslashes, line continuations) and keeps, for each
// character of each word, its offset in the string; the flag parser then
// reads the words as slime's argparse parser does (no abbreviations, the
// last repetition wins) and reports every error at the flag and column.

// SlimeSource is the file name of spans into a --slime string.
const SlimeSource = "--slime"

// MaxSlimeValue bounds every numeric slime flag (GPU counts, dp size).
const MaxSlimeValue = 1 << 20

// slimeWord is one shell word: its text and, per byte of text, the offset
// of the byte it came from. [Off, End) is the raw extent, quotes included.
type slimeWord struct {
	Text     string
	Offs     []int
	Off, End int
}

// slimeLex splits s into words. err is set, with its offset, for an
// unterminated quote.
func slimeLex(s string) (words []slimeWord, errOff int, errMsg string) {
	errOff = -1
	var cur *slimeWord
	var text []byte
	start := func(i int) {
		if cur == nil {
			cur = &slimeWord{Off: i}
			text = text[:0]
		}
	}
	add := func(c byte, i int) {
		text = append(text, c)
		cur.Offs = append(cur.Offs, i)
	}
	flush := func(end int) {
		if cur != nil {
			cur.Text, cur.End = string(text), end
			words = append(words, *cur)
			cur = nil
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			flush(i)
			i++
		case c == '\\':
			if i+1 < len(s) && s[i+1] == '\n' { // line continuation
				flush(i)
				i += 2
				continue
			}
			if i+2 < len(s) && s[i+1] == '\r' && s[i+2] == '\n' {
				flush(i)
				i += 3
				continue
			}
			start(i)
			if i+1 < len(s) {
				add(s[i+1], i+1)
				i += 2
			} else {
				i++
			}
		case c == '\'':
			start(i)
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, i, "unterminated single quote"
			}
			for k := i + 1; k < i+1+j; k++ {
				add(s[k], k)
			}
			i += j + 2
		case c == '"':
			start(i)
			k := i + 1
			for ; k < len(s) && s[k] != '"'; k++ {
				if s[k] == '\\' && k+1 < len(s) && strings.IndexByte("\"\\$`\n", s[k+1]) >= 0 {
					if s[k+1] != '\n' {
						add(s[k+1], k+1)
					}
					k++
					continue
				}
				add(s[k], k)
			}
			if k >= len(s) {
				return nil, i, "unterminated double quote"
			}
			i = k + 1
		default:
			start(i)
			add(c, i)
			i++
		}
	}
	flush(len(s))
	return words, -1, ""
}

// slimeLocator turns offsets of the parsed string into spans.
type slimeLocator struct {
	file string
	s    string
	// at, when set, maps an offset to a line and column (a flag string
	// inside YAML); else offsets are counted in s itself.
	at func(off int) (line, col int)
}

func (l *slimeLocator) pos(off int) (int, int) {
	if l.at != nil {
		return l.at(off)
	}
	off = min(max(off, 0), len(l.s))
	line, col := 1, 1
	for i := 0; i < off; i++ {
		if l.s[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

func (l *slimeLocator) span(from, to int) model.Span {
	if to <= from {
		to = from + 1
	}
	line, col := l.pos(from)
	el, ec := l.pos(to)
	if l.at == nil && to > len(l.s) {
		el, ec = l.pos(len(l.s))
		ec += to - len(l.s)
	}
	return model.Span{File: l.file, Line: line, Col: col, EndLine: el, EndCol: ec}
}

// slimeFlagNames are the spellings the parser knows, for "did you mean".
func slimeFlagNames() []string {
	out := make([]string, 0, model.SlimeNumKeys)
	for _, k := range model.SlimeKeys {
		out = append(out, k.Flag)
	}
	return out
}

func slimeKeyByFlag(name string) (model.SlimeKey, bool) {
	for k, info := range model.SlimeKeys {
		if info.Flag == name {
			return model.SlimeKey(k), true
		}
	}
	return 0, false
}

// slimeParser accumulates a config and diagnostics.
type slimeParser struct {
	loc     *slimeLocator
	cfg     *model.SlimeConfig
	diags   model.Diagnostics
	ignored []string
	ignSpan model.Span
}

func (p *slimeParser) errorf(code string, at model.Span, label, format string, args ...any) *model.Diagnostic {
	p.diags = append(p.diags, model.Diagnostic{Code: code, Severity: model.SeverityError,
		Summary: fmt.Sprintf(format, args...), Primary: at, PrimaryLabel: label})
	return &p.diags[len(p.diags)-1]
}

// wordSpan covers bytes [i, j) of a word's text (j == -1: to its end).
func (p *slimeParser) wordSpan(w slimeWord, i, j int) model.Span {
	if len(w.Offs) == 0 {
		return p.loc.span(w.Off, w.End)
	}
	if j < 0 || j > len(w.Offs) {
		j = len(w.Offs)
	}
	i = min(max(i, 0), len(w.Offs)-1)
	if j <= i {
		return p.loc.span(w.Offs[i], w.Offs[i]+1)
	}
	return p.loc.span(w.Offs[i], w.Offs[j-1]+1)
}

func (p *slimeParser) ignore(w slimeWord) {
	if len(p.ignored) == 0 {
		p.ignSpan = p.loc.span(w.Off, w.End)
	}
	p.ignored = append(p.ignored, w.Text)
}

func isBoolWord(s string) bool {
	switch strings.ToLower(s) {
	case "true", "false", "1", "0", "yes", "no", "on", "off":
		return true
	}
	return false
}

// ParseSlimeFlags reads slime's placement flags from a command-line string.
// Spans point into the string (file SlimeSource, line 1 unless the string
// has newlines); the config is nil when the string cannot be read at all.
func ParseSlimeFlags(s string, lim Limits) (*model.SlimeConfig, model.Diagnostics) {
	return parseSlimeFlags(s, &slimeLocator{file: SlimeSource, s: s}, lim)
}

func parseSlimeFlags(s string, loc *slimeLocator, lim Limits) (*model.SlimeConfig, model.Diagnostics) {
	if lim.MaxStringBytes == 0 {
		lim = DefaultLimits
	}
	p := &slimeParser{loc: loc}
	whole := loc.span(0, max(len(s), 1))
	p.cfg = &model.SlimeConfig{Source: loc.file, Span: whole, End: loc.span(len(s), len(s)), Appendable: loc.at == nil}
	p.cfg.End.EndCol = p.cfg.End.Col // an insertion point
	if len(s) > lim.MaxStringBytes {
		p.errorf(model.CodeLimit, whole, "too long", "the --slime string is %d bytes long; the limit is %d", len(s), lim.MaxStringBytes)
		return nil, p.diags
	}
	words, errOff, errMsg := slimeLex(s)
	if errOff >= 0 {
		d := p.errorf(model.CodeSlimeFlag, loc.span(errOff, errOff+1), "opened here", "the --slime string has an %s at column %d", errMsg, col(loc, errOff))
		d.Help = []model.Fix{{Message: "close the quote, or quote the whole --slime value with the other kind of quote"}}
		return nil, p.diags
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w.Text == "--" {
			for _, rest := range words[i+1:] {
				p.ignore(rest)
			}
			break
		}
		if !strings.HasPrefix(w.Text, "-") || w.Text == "-" || isNumber(w.Text) {
			p.ignore(w)
			continue
		}
		name, val, hasEq := strings.Cut(w.Text, "=")
		key, known := slimeKeyByFlag(name)
		if !known {
			i = p.unknown(words, i, name, hasEq)
			continue
		}
		info := key.Info()
		nameSpan := p.wordSpan(w, 0, len(name))
		if info.Bool {
			if hasEq {
				d := p.errorf(model.CodeSlimeFlag, p.wordSpan(w, len(name), -1), "no value allowed",
					"%s (column %d) takes no value, but is given %q", name, nameSpan.Col, val)
				d.Why = "slime's argparse flags --colocate, --debug-train-only and --debug-rollout-only are switches: present means on."
				d.Help = []model.Fix{{Message: fmt.Sprintf("write `%s` to turn it on, or leave it out to keep it off", name)}}
				continue
			}
			p.set(key, 1, nameSpan, nameSpan, name)
			if i+1 < len(words) && isBoolWord(words[i+1].Text) {
				nx := words[i+1]
				d := p.errorf(model.CodeSlimeFlag, p.wordSpan(nx, 0, -1), "a stray argument",
					"%s (column %d) takes no value: slime would reject the stray argument %q", name, nameSpan.Col, nx.Text)
				d.Labels = []model.Label{{Span: nameSpan, Message: "a switch"}}
				d.Help = []model.Fix{{Message: fmt.Sprintf("write `%s` alone to turn it on, or leave it out to keep it off", name)}}
				i++
			}
			continue
		}
		var vw slimeWord
		var vFrom int
		switch {
		case hasEq:
			vw, vFrom = w, len(name)+1
		case i+1 < len(words) && !(strings.HasPrefix(words[i+1].Text, "-") && !isNumber(words[i+1].Text)):
			i++
			vw = words[i]
		default:
			d := p.errorf(model.CodeSlimeFlag, nameSpan, "needs a value", "%s (column %d) expects a value", name, nameSpan.Col)
			if i+1 < len(words) {
				d.Labels = []model.Label{{Span: p.wordSpan(words[i+1], 0, -1), Message: "the next argument is a flag"}}
			}
			d.Help = []model.Fix{{Message: fmt.Sprintf("give the number: `%s N`", name)}}
			continue
		}
		text := vw.Text[vFrom:]
		vSpan := p.wordSpan(vw, vFrom, -1)
		if vFrom >= len(vw.Text) {
			vSpan = p.loc.span(vw.End, vw.End+1)
		}
		n, ok := p.number(name, nameSpan, text, vSpan, lim)
		if !ok {
			continue
		}
		whole := nameSpan
		whole.EndLine, whole.EndCol = vSpan.EndLine, vSpan.EndCol
		p.set(key, n, whole, vSpan, fmt.Sprintf("%s %d", name, n))
	}
	if len(p.ignored) > 0 {
		shown := p.ignored
		if len(shown) > 6 {
			shown = shown[:6]
		}
		more := ""
		if len(p.ignored) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(p.ignored)-len(shown))
		}
		p.diags = append(p.diags, model.Diagnostic{Code: model.NoteSlimeIgnored, Severity: model.SeverityNote,
			Summary:      fmt.Sprintf("ignored %d argument(s) that do not affect placement: %s%s", len(p.ignored), quoteList(shown), more),
			Primary:      p.ignSpan,
			PrimaryLabel: "not a placement flag",
		})
	}
	return p.cfg, p.diags
}

// unknown handles a flag that is not a placement flag: a near miss of one
// is an error (it would silently keep the default); anything else is
// ignored, with its value. It returns the index of the last word used.
func (p *slimeParser) unknown(words []slimeWord, i int, name string, hasEq bool) int {
	w := words[i]
	norm := "--" + strings.ReplaceAll(strings.TrimLeft(name, "-"), "_", "-")
	near := ""
	if _, ok := slimeKeyByFlag(norm); ok {
		near = norm
	} else if !strings.HasPrefix(norm, "--sglang-") {
		// slime passes SGLang's own options as --sglang-*: --sglang-tp-size
		// is one letter from --sglang-dp-size but a different option.
		near = fuzzy.Nearest(norm, slimeFlagNames())
	}
	if near != "" {
		at := p.wordSpan(w, 0, len(name))
		d := p.errorf(model.CodeSlimeFlag, at, "unknown flag", "unknown slime flag %s (column %d); did you mean %s?", name, at.Col, near)
		d.Why = "slime's parser does not accept abbreviations or other spellings; a misspelt placement flag would leave its default in force."
		if p.loc.at == nil {
			d.Help = []model.Fix{{Message: fmt.Sprintf("write `%s`", near), Edits: []model.Edit{{Span: at, NewText: near}}}}
		} else {
			d.Help = []model.Fix{{Message: fmt.Sprintf("write `%s`", near)}}
		}
		if !hasEq && i+1 < len(words) && !strings.HasPrefix(words[i+1].Text, "--") {
			return i + 1
		}
		return i
	}
	p.ignore(w)
	if !hasEq && i+1 < len(words) && !strings.HasPrefix(words[i+1].Text, "-") {
		p.ignore(words[i+1])
		return i + 1
	}
	return i
}

// number reads a flag's value as slime's int() would, restricted to ASCII
// decimal digits (D3), and requires 1..MaxSlimeValue.
func (p *slimeParser) number(name string, nameSpan model.Span, text string, at model.Span, lim Limits) (int, bool) {
	fail := func(label, format string, args ...any) (int, bool) {
		d := p.errorf(model.CodeSlimeValue, at, label, format, args...)
		d.Labels = []model.Label{{Span: nameSpan, Message: "the flag"}}
		return 0, false
	}
	switch {
	case text == "":
		return fail("empty", "%s (column %d) has an empty value; expected a whole number", name, nameSpan.Col)
	case strings.HasPrefix(text, "$"):
		return fail("not expanded", "%s (column %d) is given %q: rlsolve does not expand shell variables; write the number", name, nameSpan.Col, text)
	case strings.HasPrefix(text, "-") && isNumber(text):
		return fail("must be positive", "%s (column %d) must be at least 1, but is %s", name, nameSpan.Col, text)
	}
	n := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c < '0' || c > '9' {
			if c == '_' && i > 0 {
				return fail("not a plain number", "%s (column %d) is given %q: rlsolve reads decimal digits only (Python's int() would read 1_0 as 10); write the number without '_'", name, nameSpan.Col, text)
			}
			return fail("not a whole number", "%s (column %d) expects a whole number, but is given %q", name, nameSpan.Col, text)
		}
		if n > MaxSlimeValue {
			break
		}
		n = n*10 + int(c-'0')
	}
	if n > MaxSlimeValue {
		d := p.errorf(model.CodeSlimeValue, at, "too large", "%s (column %d) is %s; rlsolve accepts at most %d", name, nameSpan.Col, text, MaxSlimeValue)
		d.Labels = []model.Label{{Span: nameSpan, Message: "the flag"}}
		return 0, false
	}
	if n < 1 {
		return fail("must be positive", "%s (column %d) must be at least 1, but is %s", name, nameSpan.Col, text)
	}
	return n, true
}

// set records a value; a repeated flag warns that the last one wins.
func (p *slimeParser) set(k model.SlimeKey, v int, whole, value model.Span, text string) {
	old := p.cfg.Values[k]
	if old.Set {
		w := model.Diagnostic{Code: model.WarnSlimeRepeated, Severity: model.SeverityWarning,
			Summary:      fmt.Sprintf("%s is given twice (columns %d and %d); slime uses the last, %s", k.Info().Flag, old.Span.Col, whole.Col, text),
			Primary:      whole,
			PrimaryLabel: "this one wins",
			Labels:       []model.Label{{Span: old.Span, Message: "ignored"}},
			Help:         []model.Fix{{Message: "give each flag once"}},
		}
		if p.loc.at == nil {
			w.Help[0].Edits = []model.Edit{{Span: old.Span, NewText: ""}}
		}
		p.diags = append(p.diags, w)
	}
	p.cfg.Values[k] = model.SlimeValue{Set: true, Value: v, Span: whole, ValueSpan: value, Text: text}
}

func isNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func col(l *slimeLocator, off int) int {
	_, c := l.pos(off)
	return c
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = "`" + x + "`"
	}
	return strings.Join(q, ", ")
}
