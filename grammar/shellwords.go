package grammar

import (
	"strings"
)

// A pasted launch command is shell text: `ray job submit --address ... \
// -- python3 train.py --actor-num-nodes 2 ...`, with quotes, `\` line
// continuations, comments, `$(cd "$(dirname -- "$0")" && pwd)` paths and
// `${VAR}`s the shell would expand. shellLex splits it into commands and
// words the way bash's parser does, without expanding anything: each word
// keeps its text after quote removal, expansions as written, the offset of
// every byte of that text in the input, and where its expansions are.

// shellWord is one word of a command.
type shellWord struct {
	// Text is the word after quote removal; expansions are kept as written.
	Text string
	// Offs holds, per byte of Text, the offset of the input byte it came
	// from; [Off, End) is the word's raw extent, quotes included.
	Offs     []int
	Off, End int
	// Exps are the expansions the shell would perform, in order.
	Exps []shellExp
}

// shellExp is one expansion in a word: Text[From:To].
type shellExp struct {
	From, To int
	// Name is the variable of $NAME or ${NAME...} ("" for $(...), `...`
	// and $((...))).
	Name string
	// Array is set for expansions that may become many words: ${X[@]},
	// ${X[*]}, $@ and $*.
	Array bool
	// Quoted is set inside double quotes (no word splitting).
	Quoted bool
}

// shellCommand is one simple command's words, redirections left out.
type shellCommand struct {
	Words []shellWord
	// Sep is the operator or newline that ended it ("" at the end of the
	// input).
	Sep string
}

// shellError is input the shell cannot parse: an unterminated quote or
// expansion, at the offset of its opening character.
type shellError struct {
	Off int
	Msg string
}

// maxShellDepth bounds the nesting of quotes and expansions.
const maxShellDepth = 64

type shellLexer struct {
	s    string
	i    int
	cmds []shellCommand
	cur  []shellWord
	// word under construction (nil when between words)
	w    *shellWord
	text []byte
	// redirect is set when the next word is a redirection's target.
	redirect bool
	// heredocs are the delimiters whose bodies start after this line.
	heredocs []heredoc
	err      *shellError
}

type heredoc struct {
	delim string
	tabs  bool
}

// shellLex splits s into commands. It never expands anything.
func shellLex(s string) ([]shellCommand, *shellError) {
	l := &shellLexer{s: s}
	for l.i < len(s) && l.err == nil {
		l.step()
	}
	if l.err != nil {
		return nil, l.err
	}
	l.endWord(len(s))
	l.endCommand("")
	return l.cmds, nil
}

func (l *shellLexer) fail(off int, msg string) {
	if l.err == nil {
		l.err = &shellError{Off: off, Msg: msg}
	}
}

// step consumes one token's worth of input at the top level.
func (l *shellLexer) step() {
	s, i := l.s, l.i
	c := s[i]
	switch {
	case c == ' ' || c == '\t' || c == '\r':
		l.endWord(i)
		l.i++
	case c == '\n':
		l.endWord(i)
		l.endCommand("\n")
		l.i++
		l.skipHeredocs()
	case c == '#' && l.w == nil:
		for l.i < len(s) && s[l.i] != '\n' {
			l.i++
		}
	case c == '\\' && l.continuation(i):
	case (c == '<' || c == '>') && i+1 < len(s) && s[i+1] == '(':
		l.start(i)
		end := l.scanNested(i+1, '(', ')', 1, false)
		l.expansion(i, end, shellExp{})
	case c == '(' && l.w != nil && isAssignment(string(l.text)):
		// NAME=( ... ): an array assignment, one word.
		end := l.scanNested(i, '(', ')', 1, false)
		l.literal(i, end)
	case strings.IndexByte("|&;()<>", c) >= 0:
		l.operator()
	default:
		l.start(i)
		l.wordPart(false, 0)
	}
}

// continuation skips a `\`-newline (bash removes it, joining the lines).
func (l *shellLexer) continuation(i int) bool {
	switch {
	case strings.HasPrefix(l.s[i:], "\\\n"):
		l.i += 2
	case strings.HasPrefix(l.s[i:], "\\\r\n"):
		l.i += 3
	default:
		return false
	}
	return true
}

// shellOperators are bash's control and redirection operators, longest
// first.
var shellOperators = []string{"<<<", "&>>", "<<-", "&&", "||", ";;", ";&", "|&", ">>", "<<", "<&", ">&", "<>", ">|", "&>", "|", "&", ";", "(", ")", "<", ">"}

// operator reads a control or redirection operator.
func (l *shellLexer) operator() {
	s, i := l.s, l.i
	// A word of digits right before < or > is the redirection's fd.
	if l.w != nil && (s[i] == '<' || s[i] == '>') && isDigits(string(l.text)) && len(l.text) == i-l.w.Off {
		l.w, l.text = nil, l.text[:0]
	}
	l.endWord(i)
	for _, op := range shellOperators {
		if !strings.HasPrefix(s[i:], op) {
			continue
		}
		l.i += len(op)
		switch op {
		case "<<", "<<-":
			l.heredocDelim(op == "<<-")
		case "<<<", "&>>", ">>", "<&", ">&", "<>", ">|", "&>", "<", ">":
			l.redirect = true
		default:
			l.endCommand(op)
		}
		return
	}
}

// heredocDelim reads a here-document's delimiter word; its body is skipped
// after the end of the line.
func (l *shellLexer) heredocDelim(tabs bool) {
	for l.i < len(l.s) && (l.s[l.i] == ' ' || l.s[l.i] == '\t') {
		l.i++
	}
	start := l.i
	l.start(start)
	l.wordPart(false, 0)
	if l.err != nil {
		return
	}
	d := strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(l.s[start:l.i])
	l.w, l.text = nil, l.text[:0]
	l.heredocs = append(l.heredocs, heredoc{delim: d, tabs: tabs})
}

// skipHeredocs skips the bodies of the here-documents of the line just
// ended, each up to its delimiter line.
func (l *shellLexer) skipHeredocs() {
	for _, h := range l.heredocs {
		for l.i < len(l.s) {
			end := strings.IndexByte(l.s[l.i:], '\n')
			line := l.s[l.i:]
			if end >= 0 {
				line = l.s[l.i : l.i+end]
			}
			l.i += len(line) + 1
			if h.tabs {
				line = strings.TrimLeft(line, "\t")
			}
			if strings.TrimSuffix(line, "\r") == h.delim {
				break
			}
		}
	}
	l.i = min(l.i, len(l.s))
	l.heredocs = l.heredocs[:0]
}

func (l *shellLexer) start(i int) {
	if l.w == nil {
		l.w = &shellWord{Off: i}
		l.text = l.text[:0]
	}
}

func (l *shellLexer) add(c byte, off int) {
	l.text = append(l.text, c)
	l.w.Offs = append(l.w.Offs, off)
}

// literal adds the input [from, to) to the word as written.
func (l *shellLexer) literal(from, to int) {
	for k := from; k < to; k++ {
		l.add(l.s[k], k)
	}
	l.i = to
}

// expansion adds the input [from, to) as an expansion.
func (l *shellLexer) expansion(from, to int, e shellExp) {
	e.From = len(l.text)
	l.literal(from, to)
	e.To = len(l.text)
	l.w.Exps = append(l.w.Exps, e)
}

func (l *shellLexer) endWord(end int) {
	if l.w == nil {
		return
	}
	l.w.Text, l.w.End = string(l.text), end
	if l.redirect {
		l.redirect = false
	} else {
		l.cur = append(l.cur, *l.w)
	}
	l.w = nil
}

func (l *shellLexer) endCommand(sep string) {
	if len(l.cur) > 0 {
		l.cmds = append(l.cmds, shellCommand{Words: l.cur, Sep: sep})
	}
	l.cur, l.redirect = nil, false
}

// wordPart reads word characters until a metacharacter, whitespace or (in
// double quotes, quoted set) the closing quote. depth bounds nesting.
func (l *shellLexer) wordPart(quoted bool, depth int) {
	s := l.s
	for l.i < len(s) && l.err == nil {
		i, c := l.i, s[l.i]
		switch {
		case !quoted && (strings.IndexByte(" \t\r\n|&;()<>", c) >= 0):
			return
		case quoted && c == '"':
			return
		case c == '\\' && l.continuation(i):
		case c == '\\' && i+1 < len(s) && (!quoted || strings.IndexByte("$`\"\\", s[i+1]) >= 0):
			l.add(s[i+1], i+1)
			l.i += 2
		case c == '\'' && !quoted:
			l.single(i)
		case c == '"' && !quoted:
			l.double(i, depth)
		case c == '$' && i+1 < len(s) && s[i+1] == '\'' && !quoted:
			l.ansiC(i)
		case c == '$' && i+1 < len(s) && s[i+1] == '"' && !quoted:
			l.double(i+1, depth) // $"..." is a translated "..."
		case c == '$':
			l.dollar(quoted, depth)
		case c == '`':
			end := l.scanBacktick(i)
			l.expansion(i, end, shellExp{Quoted: quoted})
		default:
			l.add(c, i)
			l.i++
		}
	}
}

func (l *shellLexer) single(i int) {
	j := strings.IndexByte(l.s[i+1:], '\'')
	if j < 0 {
		l.fail(i, "unterminated single quote")
		return
	}
	l.literal(i+1, i+1+j)
	l.i = i + j + 2
}

func (l *shellLexer) double(i, depth int) {
	if depth >= maxShellDepth {
		l.fail(i, "quotes and expansions nested too deeply")
		return
	}
	l.i = i + 1
	l.wordPart(true, depth+1)
	if l.err != nil {
		return
	}
	if l.i >= len(l.s) {
		l.fail(i, "unterminated double quote")
		return
	}
	l.i++ // the closing quote
}

// ansiC reads $'...', decoding bash's escapes; each decoded byte maps to
// the escape it came from.
func (l *shellLexer) ansiC(i int) {
	s := l.s
	k := i + 2
	for k < len(s) && s[k] != '\'' {
		if s[k] != '\\' || k+1 >= len(s) {
			l.add(s[k], k)
			k++
			continue
		}
		b, n := ansiEscape(s[k+1:])
		for _, c := range []byte(b) {
			l.add(c, k)
		}
		k += 1 + n
	}
	if k >= len(s) {
		l.fail(i, "unterminated $' quote")
		return
	}
	l.i = k + 1
}

var ansiSimple = map[byte]string{'a': "\a", 'b': "\b", 'e': "\x1b", 'E': "\x1b", 'f': "\f", 'n': "\n", 'r': "\r", 't': "\t", 'v': "\v",
	'\\': "\\", '\'': "'", '"': "\"", '?': "?"}

// ansiEscape decodes the escape after a backslash in $'...': the bytes it
// stands for and how many input bytes it takes.
func ansiEscape(s string) (string, int) {
	if r, ok := ansiSimple[s[0]]; ok {
		return r, 1
	}
	digits := func(from, most, base int) (int, int) {
		v, n := 0, 0
		for n < most && from+n < len(s) {
			d := hexValue(s[from+n])
			if d < 0 || d >= base {
				break
			}
			v, n = v*base+d, n+1
		}
		return v, n
	}
	switch c := s[0]; {
	case c >= '0' && c <= '7':
		v, n := digits(0, 3, 8)
		return string([]byte{byte(v)}), n
	case c == 'x':
		if v, n := digits(1, 2, 16); n > 0 {
			return string([]byte{byte(v)}), 1 + n
		}
	case c == 'u' || c == 'U':
		most := 4
		if c == 'U' {
			most = 8
		}
		if v, n := digits(1, most, 16); n > 0 {
			return string(rune(min(v, 0x10FFFF))), 1 + n
		}
	case c == 'c' && len(s) > 1:
		return string([]byte{s[1] & 0x1f}), 2
	}
	return "\\" + s[:1], 1
}

func hexValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// dollar reads an expansion at l.i ('$'), or a lone '$'.
func (l *shellLexer) dollar(quoted bool, depth int) {
	s, i := l.s, l.i
	e := shellExp{Quoted: quoted}
	if i+1 >= len(s) {
		l.add('$', i)
		l.i++
		return
	}
	switch c := s[i+1]; {
	case c == '{':
		end := l.scanNested(i+1, '{', '}', depth, quoted)
		inner := s[min(i+2, end):max(end-1, i+2)]
		e.Name = leadingName(inner)
		e.Array = strings.HasPrefix(inner[len(e.Name):], "[@]") || strings.HasPrefix(inner[len(e.Name):], "[*]") || inner == "@" || inner == "*"
		l.expansion(i, end, e)
	case c == '(':
		end := l.scanNested(i+1, '(', ')', depth, false)
		l.expansion(i, end, e)
	case c == '_' || isLetter(c):
		e.Name = leadingName(s[i+1:])
		l.expansion(i, i+1+len(e.Name), e)
	case c >= '0' && c <= '9' || strings.IndexByte("@*#?$!-", c) >= 0:
		e.Name = s[i+1 : i+2]
		e.Array = c == '@' || c == '*'
		l.expansion(i, i+2, e)
	default:
		l.add('$', i)
		l.i++
	}
}

// scanNested returns the offset after the close matching the open at i
// ('(' for $(...), $((...)), <(...) and NAME=(...); '{' for ${...}),
// skipping quotes, nested expansions and comments. dq is set for ${...}
// inside double quotes, where a single quote is an ordinary character.
func (l *shellLexer) scanNested(i int, open, close byte, depth int, dq bool) int {
	if depth >= maxShellDepth {
		l.fail(i, "quotes and expansions nested too deeply")
		return len(l.s)
	}
	s := l.s
	level := 0
	for k := i; k < len(s) && l.err == nil; k++ {
		switch c := s[k]; c {
		case '\\':
			k++
		case '\'':
			if open == '{' && dq {
				continue
			}
			j := strings.IndexByte(s[k+1:], '\'')
			if j < 0 {
				l.fail(k, "unterminated single quote")
				return len(s)
			}
			k += j + 1
		case '"':
			k = l.scanDouble(k, depth+1) - 1
		case '`':
			k = l.scanBacktick(k) - 1
		case '$':
			if k+1 < len(s) && (s[k+1] == '(' || s[k+1] == '{') {
				k = l.scanNested(k+1, s[k+1], closing(s[k+1]), depth+1, dq && s[k+1] == '{') - 1
			}
		case '#':
			if open == '(' && (k == 0 || strings.IndexByte(" \t\n;", s[k-1]) >= 0) {
				for k+1 < len(s) && s[k+1] != '\n' {
					k++
				}
			}
		case open:
			level++
		case close:
			level--
			if level == 0 {
				return k + 1
			}
		}
	}
	if l.err == nil {
		msg := "unterminated ${"
		if open == '(' {
			msg = "unterminated $( or ("
		}
		l.fail(i, msg)
	}
	return len(s)
}

func closing(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ')'
}

// scanDouble returns the offset after the '"' that closes the one at i.
func (l *shellLexer) scanDouble(i, depth int) int {
	if depth >= maxShellDepth {
		l.fail(i, "quotes and expansions nested too deeply")
		return len(l.s)
	}
	s := l.s
	for k := i + 1; k < len(s) && l.err == nil; k++ {
		switch s[k] {
		case '\\':
			k++
		case '"':
			return k + 1
		case '`':
			k = l.scanBacktick(k) - 1
		case '$':
			if k+1 < len(s) && (s[k+1] == '(' || s[k+1] == '{') {
				k = l.scanNested(k+1, s[k+1], closing(s[k+1]), depth+1, true) - 1
			}
		}
	}
	if l.err == nil {
		l.fail(i, "unterminated double quote")
	}
	return len(s)
}

// scanBacktick returns the offset after the '`' closing the one at i.
func (l *shellLexer) scanBacktick(i int) int {
	s := l.s
	for k := i + 1; k < len(s); k++ {
		switch s[k] {
		case '\\':
			k++
		case '`':
			return k + 1
		}
	}
	l.fail(i, "unterminated backquote")
	return len(s)
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// leadingName is the shell variable name s starts with.
func leadingName(s string) string {
	n := 0
	for n < len(s) && (s[n] == '_' || isLetter(s[n]) || n > 0 && s[n] >= '0' && s[n] <= '9') {
		n++
	}
	return s[:n]
}

// isAssignment reports whether a word so far is `NAME=`, `NAME+=` or
// `NAME[i]=`: the start of an assignment.
func isAssignment(w string) bool {
	name := leadingName(w)
	if name == "" {
		return false
	}
	rest := w[len(name):]
	if strings.HasPrefix(rest, "[") {
		j := strings.IndexByte(rest, ']')
		if j < 0 {
			return false
		}
		rest = rest[j+1:]
	}
	return rest == "=" || rest == "+="
}

func isDigits(s string) bool {
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
