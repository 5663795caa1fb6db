package grammar

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rlsolve/rlsolve/internal/fuzzy"
	"github.com/rlsolve/rlsolve/internal/yamlpos"
	"github.com/rlsolve/rlsolve/model"
)

// slime's placement flags come as shell text: a flag string (`rlsolve plan
// --slime '--actor-num-nodes 2 ...'`), the command a launch script runs,
// pasted, or the launch script itself (`--slime @run.sh`). The text is
// evaluated in a sandbox (slime_script.go); the flags are the arguments
// after the Python program the judged command runs (slime_command.go); the
// flag parser then reads them as slime's argparse parser does (no
// abbreviations, the last repetition wins) and reports every error where
// the flag or its value was written: line and column.

// SlimeSource is the file name of spans into a --slime string.
const SlimeSource = "--slime"

// MaxSlimeValue bounds every numeric slime flag (GPU counts, dp size).
const MaxSlimeValue = 1 << 20

// slimeLocator turns offsets of the parsed string into spans.
type slimeLocator struct {
	file string
	s    string
	// at, when set, maps an offset to a line and column (a flag string
	// inside YAML); else offsets are counted in s itself.
	at func(off int) (line, col int)
	// lines starts each line; built on first use.
	lines []int
}

func (l *slimeLocator) pos(off int) (int, int) {
	if l.at != nil {
		return l.at(off)
	}
	if l.lines == nil {
		l.lines = []int{0}
		for i := 0; i < len(l.s); i++ {
			if l.s[i] == '\n' {
				l.lines = append(l.lines, i+1)
			}
		}
	}
	off = min(max(off, 0), len(l.s))
	lo, hi := 0, len(l.lines)-1 // the last line starting at or before off
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if l.lines[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo + 1, off - l.lines[lo] + 1
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

// where names a position for messages: "column 12", or "line 3, column
// 12" in a text of several lines.
func (l *slimeLocator) where(sp model.Span) string {
	if l.at == nil && strings.Contains(strings.TrimRight(l.s, "\r\n"), "\n") {
		return fmt.Sprintf("line %d, column %d", sp.Line, sp.Col)
	}
	return fmt.Sprintf("column %d", sp.Col)
}

// slimeFlagNames are the spellings the parser knows, for "did you mean".
func slimeFlagNames() []string {
	out := make([]string, 0, model.SlimeNumKeys)
	for _, k := range model.SlimeKeys {
		out = append(out, k.Flag)
		for _, a := range k.Aliases {
			out = append(out, a.Flag)
		}
	}
	return out
}

// slimeParser accumulates a config and diagnostics.
type slimeParser struct {
	loc     *slimeLocator
	cfg     *model.SlimeConfig
	diags   model.Diagnostics
	ignored []string
	ignSpan model.Span
	// unexpanded are variables the script never sets, expanded where they
	// may hold flags (`${SGLANG_ARGS[@]}`).
	unexpanded []shellWord
	// files are what the script wrote (a --sglang-config YAML).
	files map[string][]byte
}

func (p *slimeParser) errorf(code string, at model.Span, label, format string, args ...any) *model.Diagnostic {
	p.diags = append(p.diags, model.Diagnostic{Code: code, Severity: model.SeverityError,
		Summary: fmt.Sprintf(format, args...), Primary: at, PrimaryLabel: label})
	return &p.diags[len(p.diags)-1]
}

// wordSpan covers bytes [i, j) of a word's text (j == -1: to its end).
func (p *slimeParser) wordSpan(w shellWord, i, j int) model.Span {
	if w.Ext != nil {
		return *w.Ext
	}
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

func (p *slimeParser) ignore(w shellWord) {
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

// mayHoldFlags reports whether w stands for words nobody knows: a variable
// the script never sets (`${SGLANG_ARGS[@]}`, `$EXTRA`).
func mayHoldFlags(w shellWord) bool { return w.Hole }

// isValueWord reports whether w can be the value of the flag before it.
func isValueWord(w shellWord) bool {
	return !(strings.HasPrefix(w.Text, "-") && !isNumber(w.Text)) && !w.Hole
}

// ParseSlimeFlags reads slime's placement flags from a command-line string.
// Spans point into the string (file SlimeSource); the config is nil when
// the string cannot be read at all.
func ParseSlimeFlags(s string, lim Limits) (*model.SlimeConfig, model.Diagnostics) {
	return ParseSlimeCommand(SlimeSource, s, lim)
}

// ParseSlimeCommand reads slime's placement flags from shell text read from
// file (a flag string, or a pasted launch command); spans point into it.
func ParseSlimeCommand(file, s string, lim Limits) (*model.SlimeConfig, model.Diagnostics) {
	return parseSlimeFlags(s, &slimeLocator{file: file, s: s}, lim, ScriptOptions{})
}

// ParseSlimeScript is ParseSlimeCommand on a launch script: opt says where
// it lies (its folder may be read) and the variables the user gave.
func ParseSlimeScript(file, s string, opt ScriptOptions, lim Limits) (*model.SlimeConfig, model.Diagnostics) {
	return parseSlimeFlags(s, &slimeLocator{file: file, s: s}, lim, opt)
}

func parseSlimeFlags(s string, loc *slimeLocator, lim Limits, opt ScriptOptions) (*model.SlimeConfig, model.Diagnostics) {
	if lim.MaxStringBytes == 0 {
		lim = DefaultLimits
	}
	p := &slimeParser{loc: loc}
	whole := loc.span(0, max(len(s), 1))
	p.cfg = &model.SlimeConfig{Source: loc.file, Span: whole, End: loc.span(len(s), len(s)), Appendable: loc.at == nil}
	p.cfg.End.EndCol = p.cfg.End.Col // an insertion point
	if len(s) > lim.expanded() {
		p.diags = append(p.diags, yamlpos.Limit{What: "the slime command", Size: strconv.Itoa(len(s)), Max: lim.expanded(), Unit: " bytes"}.Diagnostic(whole, "too long"))
		return nil, p.diags
	}
	ev := evalScript(loc.file, s, opt)
	if p.refused(ev) {
		return nil, p.diags
	}
	if ev.err != nil {
		p.scriptError(ev.err)
		return nil, p.diags
	}
	p.files = ev.files
	args := slimeArgs(ev.cmds)
	if p.runsNoProgram(ev, args) {
		return nil, p.diags
	}
	p.words(args.words)
	p.notes(args)
	p.sglangConfig(ev)
	return p.cfg, p.diags
}

// words reads slime's arguments.
func (p *slimeParser) words(words []shellWord) {
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case mayHoldFlags(w):
			p.unexpanded = append(p.unexpanded, w)
			continue
		case w.Text == "--":
			// argparse reads what follows as positional arguments.
			for _, rest := range words[i+1:] {
				p.ignore(rest)
			}
			return
		case !strings.HasPrefix(w.Text, "-") || w.Text == "-" || isNumber(w.Text):
			p.ignore(w)
			continue
		}
		name, _, hasEq := strings.Cut(w.Text, "=")
		key, asSwitch, known := model.SlimeKeyByFlag(name)
		info := key.Info()
		switch {
		case !known:
			i = p.unknown(words, i, name, hasEq)
		case info.Bool || asSwitch:
			i = p.switchFlag(words, i, key, name, hasEq)
		case info.Text:
			i = p.textFlag(words, i, key, name, hasEq)
		default:
			i = p.numberFlag(words, i, key, name, hasEq)
		}
	}
}

// switchFlag reads --colocate and the other switches.
func (p *slimeParser) switchFlag(words []shellWord, i int, key model.SlimeKey, name string, hasEq bool) int {
	w := words[i]
	nameSpan := p.wordSpan(w, 0, len(name))
	if hasEq {
		d := p.errorf(model.CodeSlimeFlag, p.wordSpan(w, len(name), -1), "no value allowed",
			"%s (%s) takes no value, but is given %q", name, p.loc.where(nameSpan), w.Text[len(name)+1:])
		d.Why = "slime's argparse switches (--colocate, --debug-train-only, --debug-rollout-only) are present or absent: present means on."
		d.Help = []model.Fix{{Message: fmt.Sprintf("write `%s` to turn it on, or leave it out to keep it off", name)}}
		return i
	}
	p.set(key, model.SlimeValue{Value: 1, Span: nameSpan, ValueSpan: nameSpan, Text: name})
	p.cfg.SetFlag(strings.TrimLeft(name, "-"), "", nameSpan)
	if i+1 < len(words) && isBoolWord(words[i+1].Text) {
		nx := words[i+1]
		d := p.errorf(model.CodeSlimeFlag, p.wordSpan(nx, 0, -1), "a stray argument",
			"%s (%s) takes no value: slime would reject the stray argument %q", name, p.loc.where(nameSpan), nx.Text)
		d.Labels = []model.Label{{Span: nameSpan, Message: "a switch"}}
		d.Help = []model.Fix{{Message: fmt.Sprintf("write `%s` alone to turn it on, or leave it out to keep it off", name)}}
		return i + 1
	}
	return i
}

// textFlag reads a flag whose value is a path or addresses: only its
// presence matters for placement, so its value may be left to the shell.
func (p *slimeParser) textFlag(words []shellWord, i int, key model.SlimeKey, name string, hasEq bool) int {
	w := words[i]
	nameSpan := p.wordSpan(w, 0, len(name))
	var vals []string
	end := nameSpan
	switch {
	case hasEq:
		vals = append(vals, w.Text[len(name)+1:])
		end = p.wordSpan(w, len(name)+1, -1)
	default:
		for i+1 < len(words) && isValueWord(words[i+1]) && (len(vals) == 0 || key.Info().Many) {
			i++
			vals = append(vals, words[i].Text)
			end = p.wordSpan(words[i], 0, -1)
		}
	}
	if len(vals) == 0 && !hasEq && i+1 < len(words) && words[i+1].Hole {
		p.unknownValue(name, nameSpan, words[i+1])
		return i + 1
	}
	if len(vals) == 0 || vals[0] == "" {
		d := p.errorf(model.CodeSlimeFlag, nameSpan, "needs a value", "%s (%s) expects a value", name, p.loc.where(nameSpan))
		d.Help = []model.Fix{{Message: fmt.Sprintf("give it: `%s VALUE`", name)}}
		return i
	}
	whole := nameSpan
	whole.EndLine, whole.EndCol = end.EndLine, end.EndCol
	arg := strings.Join(vals, " ")
	p.set(key, model.SlimeValue{Value: 1, Span: whole, ValueSpan: end, Text: name + " " + arg, Arg: arg})
	p.cfg.SetFlag(strings.TrimLeft(name, "-"), arg, whole)
	return i
}

// numberFlag reads a flag with a count.
func (p *slimeParser) numberFlag(words []shellWord, i int, key model.SlimeKey, name string, hasEq bool) int {
	w := words[i]
	nameSpan := p.wordSpan(w, 0, len(name))
	var vw shellWord
	var vFrom int
	switch {
	case hasEq:
		vw, vFrom = w, len(name)+1
	case i+1 < len(words) && !(strings.HasPrefix(words[i+1].Text, "-") && !isNumber(words[i+1].Text)):
		i++
		vw = words[i]
	default:
		d := p.errorf(model.CodeSlimeFlag, nameSpan, "needs a value", "%s (%s) expects a value", name, p.loc.where(nameSpan))
		if i+1 < len(words) {
			d.Labels = []model.Label{{Span: p.wordSpan(words[i+1], 0, -1), Message: "the next argument is a flag"}}
		}
		d.Help = []model.Fix{{Message: fmt.Sprintf("give the number: `%s N`", name)}}
		return i
	}
	vSpan := p.wordSpan(vw, vFrom, -1)
	if vFrom >= len(vw.Text) && vw.Ext == nil && len(vw.Offs) > 0 {
		vSpan = p.loc.span(vw.End, vw.End+1)
	}
	if len(vw.Unknown) > 0 {
		p.unknownValue(name, nameSpan, vw)
		return i
	}
	n, ok := p.number(key, name, nameSpan, vw.Text[vFrom:], vSpan)
	if !ok {
		return i
	}
	whole := nameSpan
	whole.EndLine, whole.EndCol = vSpan.EndLine, vSpan.EndCol
	p.set(key, model.SlimeValue{Value: n, Span: whole, ValueSpan: vSpan, Text: fmt.Sprintf("%s %d", name, n)})
	p.cfg.SetFlag(strings.TrimLeft(name, "-"), strconv.Itoa(n), whole)
	return i
}

// unknownValue reports a count that depends on a variable the script
// never sets: `--actor-num-nodes ${NODES}`.
func (p *slimeParser) unknownValue(name string, nameSpan model.Span, w shellWord) {
	u := w.Unknown[0]
	at := modelSpan(u.Span)
	d := p.errorf(model.CodeSlimeValue, at, "never set", "%s (%s) depends on the variable %s (%s), which the script never sets: its value is unknown",
		name, p.loc.where(nameSpan), u.Name, spanWhere(at))
	d.Labels = []model.Label{{Span: nameSpan, Message: "the flag"}}
	if vs := p.wordSpan(w, 0, -1); vs != at {
		d.Labels = append(d.Labels, model.Label{Span: vs, Message: "its value, written here"})
	}
	d.Why = "rlsolve evaluates the script without the environment it would run in; a guessed value would plan another layout than slime's."
	d.Help = []model.Fix{{Message: fmt.Sprintf("give it: `--env %s=VALUE`, or set it in the script", u.Name)}}
}

// spanWhere names a span's line and column, with its file.
func spanWhere(sp model.Span) string {
	return fmt.Sprintf("%s line %d, column %d", sp.File, sp.Line, sp.Col)
}

// unknown handles a flag that is not a placement flag: a near miss of one
// is an error (it would silently keep the default); anything else is
// ignored, with its value. It returns the index of the last word used.
func (p *slimeParser) unknown(words []shellWord, i int, name string, hasEq bool) int {
	w := words[i]
	norm := "--" + strings.ReplaceAll(strings.TrimLeft(name, "-"), "_", "-")
	near := ""
	if _, _, ok := model.SlimeKeyByFlag(norm); ok {
		near = norm
	} else if !strings.HasPrefix(norm, "--sglang-") {
		// slime passes SGLang's own options as --sglang-*: --sglang-tp-size
		// is one letter from --sglang-dp-size but a different option.
		near = fuzzy.Nearest(norm, slimeFlagNames())
	}
	if near != "" {
		at := p.wordSpan(w, 0, len(name))
		d := p.errorf(model.CodeSlimeFlag, at, "unknown flag", "unknown slime flag %s (%s); did you mean %s?", name, p.loc.where(at), near)
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
	flag := strings.TrimLeft(name, "-")
	switch {
	case hasEq:
		p.other(flag, w, len(name)+1, w)
	case i+1 < len(words) && words[i+1].Hole:
		return i + 1 // its value is unknown: the flag is not recorded
	case i+1 < len(words) && isValueWord(words[i+1]):
		p.ignore(words[i+1])
		p.other(flag, words[i+1], 0, w)
		return i + 1
	case !w.Hole:
		p.cfg.SetFlag(flag, "", p.wordSpan(w, 0, -1))
	}
	return i
}

// other records a flag that is not a placement flag with its value (the
// text of word v from byte from), unless the shell would expand it: its
// value is then unknown here.
func (p *slimeParser) other(flag string, v shellWord, from int, first shellWord) {
	if v.Hole || len(v.Unknown) > 0 || from > len(v.Text) {
		return
	}
	whole := p.wordSpan(first, 0, -1)
	end := p.wordSpan(v, from, -1)
	whole.EndLine, whole.EndCol = end.EndLine, end.EndCol
	p.cfg.SetFlag(flag, v.Text[from:], whole)
}

// number reads a flag's value as slime's int() would, restricted to ASCII
// decimal digits (D3), and requires 1..MaxSlimeValue (0 where the flag
// allows it).
func (p *slimeParser) number(key model.SlimeKey, name string, nameSpan model.Span, text string, at model.Span) (int, bool) {
	where := p.loc.where(nameSpan)
	least := 1
	if key.Info().Zero {
		least = 0
	}
	fail := func(label, format string, args ...any) (int, bool) {
		d := p.errorf(model.CodeSlimeValue, at, label, format, args...)
		d.Labels = []model.Label{{Span: nameSpan, Message: "the flag"}}
		return 0, false
	}
	switch {
	case text == "":
		return fail("empty", "%s (%s) has an empty value; expected a whole number", name, where)
	case strings.HasPrefix(text, "-") && isNumber(text):
		return fail("must be positive", "%s (%s) must be at least %d, but is %s", name, where, least, text)
	}
	n := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c < '0' || c > '9' {
			if c == '_' && i > 0 {
				return fail("not a plain number", "%s (%s) is given %q: rlsolve reads decimal digits only (Python's int() would read 1_0 as 10); write the number without '_'", name, where, text)
			}
			return fail("not a whole number", "%s (%s) expects a whole number, but is given %q", name, where, text)
		}
		if n > MaxSlimeValue {
			break
		}
		n = n*10 + int(c-'0')
	}
	if n > MaxSlimeValue {
		return fail("too large", "%s (%s) is %s; rlsolve accepts at most %d", name, where, text, MaxSlimeValue)
	}
	if n < least {
		return fail("must be positive", "%s (%s) must be at least %d, but is %s", name, where, least, text)
	}
	return n, true
}

// set records a value; a repeated flag warns that the last one wins.
func (p *slimeParser) set(k model.SlimeKey, v model.SlimeValue) {
	v.Set = true
	old := p.cfg.Values[k]
	if old.Set {
		w := model.Diagnostic{Code: model.WarnSlimeRepeated, Severity: model.SeverityWarning,
			Summary:      fmt.Sprintf("%s is given twice (%s and %s); slime uses the last, %s", k.Info().Flag, p.loc.where(old.Span), p.loc.where(v.Span), v.Text),
			Primary:      v.Span,
			PrimaryLabel: "this one wins",
			Labels:       []model.Label{{Span: old.Span, Message: "ignored"}},
			Help:         []model.Fix{{Message: "give each flag once"}},
		}
		if p.loc.at == nil {
			w.Help[0].Edits = []model.Edit{{Span: old.Span, NewText: ""}}
		}
		p.diags = append(p.diags, w)
	}
	p.cfg.Values[k] = v
}

// isNumber reports whether s is a whole number, negative ones included.
func isNumber(s string) bool { return isDigits(strings.TrimPrefix(s, "-")) }

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = "`" + x + "`"
	}
	return strings.Join(q, ", ")
}
