package diag

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rlsolve/rlsolve/model"
)

// Text writes each diagnostic in the rustc-like form of design.md: a header,
// a code frame per file with the primary span underlined by ^ and every
// label by -, then notes, why and help. A blank line follows each one.
// ANSI colour is used only when color is true; the caller decides (terminal,
// NO_COLOR).
func Text(w io.Writer, ds []model.Diagnostic, src Sources, color bool) {
	p := painter{on: color}
	for _, d := range ds {
		var b strings.Builder
		writeText(&b, d, src, p)
		b.WriteString("\n")
		io.WriteString(w, b.String())
	}
}

// Summary writes the one-line tally printed after the diagnostics, e.g.
// "cluster.yaml: 2 errors, 1 warning", "cluster.yaml: ok (1 warning)" or
// "cluster.yaml: ok". Without errors the input is valid, so the line says
// ok first even when warnings follow.
func Summary(w io.Writer, ds []model.Diagnostic, file string) { SummaryAllowed(w, ds, file, nil) }

// SummaryAllowed is Summary with the codes of the diagnostics the policy
// allowed away, counted per code so the user sees what was hidden:
// "cluster.yaml: ok (3 allowed: RLS-W0104 x2, RLS-W0105)".
func SummaryAllowed(w io.Writer, ds []model.Diagnostic, file string, allowed []string) {
	if file == "" {
		file = "<input>"
	}
	file = Printable(file)
	all := model.Diagnostics(ds)
	e, wn, n := all.Count(model.SeverityError), all.Count(model.SeverityWarning), all.Count(model.SeverityNote)
	var parts []string
	if e > 0 {
		parts = append(parts, plural(e, "error"))
	}
	if wn > 0 {
		parts = append(parts, plural(wn, "warning"))
	}
	if n > 0 {
		parts = append(parts, plural(n, "note"))
	}
	if len(allowed) > 0 {
		parts = append(parts, strconv.Itoa(len(allowed))+" allowed: "+allowedCodes(allowed))
	}
	switch {
	case e == 0 && len(parts) == 0:
		fmt.Fprintf(w, "%s: ok\n", file)
	case e == 0:
		fmt.Fprintf(w, "%s: ok (%s)\n", file, strings.Join(parts, ", "))
	default:
		fmt.Fprintf(w, "%s: %s\n", file, strings.Join(parts, ", "))
	}
}

// allowedCodes lists each allowed code once, in code order, with its count
// when it was allowed more than once: "RLS-W0104 x2, RLS-W0105".
func allowedCodes(codes []string) string {
	count := map[string]int{}
	var order []string
	for _, c := range codes {
		if count[c] == 0 {
			order = append(order, c)
		}
		count[c]++
	}
	sort.Strings(order)
	for i, c := range order {
		if count[c] > 1 {
			order[i] = c + " x" + strconv.Itoa(count[c])
		}
	}
	return strings.Join(order, ", ")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// mark is one annotated span of a code frame.
type mark struct {
	sp      model.Span
	msg     string
	primary bool
}

// block is the part of a frame that shows one file.
type block struct {
	file  string
	arrow string // position printed after -->
	// arrowSet is true once the primary span, which always wins, or the
	// earliest label has chosen arrow.
	arrowSet  bool
	arrowLine int
	lines     map[int]string
	marks     []mark
}

// writeText writes one diagnostic: its header, its code frame and the
// lines after the frame.
func writeText(b *strings.Builder, d model.Diagnostic, src Sources, p painter) {
	head := d.Severity.String()
	if d.Code != "" {
		head += "[" + d.Code + "]"
	}
	b.WriteString(p.sev(d.Severity, head) + p.bold(": "+Printable(d.Summary)) + "\n")
	f := frameOf(d, src)
	pad := strings.Repeat(" ", f.width())
	for _, bl := range f.blocks {
		bl.write(b, pad, d.Severity, p)
	}
	writeFooter(b, d, f.notes, pad, src, p)
}

// frame is a diagnostic's code frame: one block per file, in the order
// its spans first name them, and notes for the facts whose source line is
// not available.
type frame struct {
	src    Sources
	blocks []*block
	notes  []string
}

// frameOf places the diagnostic's primary span, then its labels, in a
// frame. A producer may leave Label.Span.File empty for "the same file".
func frameOf(d model.Diagnostic, src Sources) *frame {
	f := &frame{src: src}
	if d.Primary.Known() {
		f.add(mark{sp: norm(d.Primary), msg: d.PrimaryLabel, primary: true})
	} else {
		if d.Primary.File != "" {
			bl := f.block(d.Primary.File)
			bl.arrow, bl.arrowSet = d.Primary.String(), true
		}
		if d.PrimaryLabel != "" {
			f.notes = append(f.notes, d.PrimaryLabel)
		}
	}
	for _, l := range d.Labels {
		sp := l.Span
		if !sp.Known() {
			if l.Message != "" {
				f.notes = append(f.notes, l.Message)
			}
			continue
		}
		if sp.File == "" {
			sp.File = d.Primary.File
		}
		f.add(mark{sp: norm(sp), msg: l.Message})
	}
	return f
}

// block is the frame's block for file, made when first asked for.
func (f *frame) block(file string) *block {
	for _, bl := range f.blocks {
		if bl.file == file {
			return bl
		}
	}
	bl := &block{file: file, lines: map[int]string{}}
	f.blocks = append(f.blocks, bl)
	return bl
}

// add puts mark m in its file's block, or in a note when its source line
// is not available, and lets it choose the block's --> position.
func (f *frame) add(m mark) {
	bl := f.block(m.sp.File)
	if line, ok := f.src.Line(m.sp.File, m.sp.Line); ok {
		bl.lines[m.sp.Line] = line
		bl.marks = append(bl.marks, m)
	} else if m.msg != "" {
		// No source for this line: keep the fact, as a note.
		if m.primary {
			f.notes = append(f.notes, m.msg)
		} else {
			f.notes = append(f.notes, m.sp.String()+": "+m.msg)
		}
	}
	if m.primary || !bl.arrowSet || (bl.arrowLine > 0 && m.sp.Line < bl.arrowLine) {
		bl.arrow, bl.arrowSet = m.sp.String(), true
		bl.arrowLine = m.sp.Line
		if m.primary {
			bl.arrowLine = 0 // nothing replaces the primary position
		}
	}
}

// width is the width of the widest line number shown, so that every
// block's gutter lines up.
func (f *frame) width() int {
	width := 1
	for _, bl := range f.blocks {
		for n := range bl.lines {
			width = max(width, len(strconv.Itoa(n)))
		}
	}
	return width
}

// write writes the block: its --> position, then its source lines in
// order, each followed by its marks' underlines. pad is the gutter's width.
func (bl *block) write(b *strings.Builder, pad string, sev model.Severity, p painter) {
	b.WriteString(pad + p.gutter("-->") + " " + Printable(bl.arrow) + "\n")
	if len(bl.lines) == 0 {
		return
	}
	bar := p.gutter(pad + " |")
	b.WriteString(bar + "\n")
	nums := make([]int, 0, len(bl.lines))
	for n := range bl.lines {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	for _, n := range nums {
		ms := marksOn(bl.marks, n)
		line, ms := window(bl.lines[n], ms)
		b.WriteString(p.gutter(fmt.Sprintf("%*d |", len(pad), n)))
		if line != "" {
			b.WriteString(" " + display(line))
		}
		b.WriteString("\n")
		for _, m := range ms {
			b.WriteString(bar + " " + underline(line, m, sev, p) + "\n")
		}
	}
}

// writeFooter writes the lines after the frame: notes, why, why the
// diagnostic is an error, and help.
func writeFooter(b *strings.Builder, d model.Diagnostic, notes []string, pad string, src Sources, p painter) {
	lead := pad + " " + p.gutter("=") + " "
	for _, n := range notes {
		b.WriteString(lead + p.bold("note") + ": " + Printable(n) + "\n")
	}
	if d.Why != "" {
		b.WriteString(lead + p.bold("why") + ": " + Printable(d.Why) + "\n")
	}
	if d.Denied != "" {
		b.WriteString(lead + p.bold("note") + ": an error because it is denied by " + Printable(d.Denied) + "\n")
	}
	for _, f := range d.Help {
		b.WriteString(lead + p.bold("help") + ": " + Printable(helpLine(f, d.Primary.File, src)) + "\n")
	}
}

// window cuts a long source line to the part around its marks, with "…"
// where text was left out, and moves the marks to match, so that a frame
// stays readable whatever the line's length.
func window(line string, ms []mark) (string, []mark) {
	const limit, before = 200, 40
	if len(line) <= limit {
		return line, ms
	}
	lo := len(line)
	for _, m := range ms {
		lo = min(lo, m.sp.Col-1)
	}
	if lo >= len(line) || lo < 0 {
		lo = 0
	}
	start := max(0, lo-before)
	for start > 0 && !utf8.RuneStart(line[start]) {
		start--
	}
	end := min(len(line), start+limit)
	for end < len(line) && !utf8.RuneStart(line[end]) {
		end++
	}
	prefix, suffix := "", ""
	if start > 0 {
		prefix = "…"
	}
	if end < len(line) {
		suffix = "…"
	}
	shift := start - len(prefix)
	out := make([]mark, len(ms))
	for i, m := range ms {
		m.sp.Col -= shift
		if m.sp.EndLine == m.sp.Line {
			m.sp.EndCol = min(m.sp.EndCol-shift, len(prefix)+end-start+1)
		}
		out[i] = m
	}
	return prefix + line[start:end] + suffix, out
}

// marksOn returns the marks starting on line n, left to right, the primary
// first where two start at the same column.
func marksOn(ms []mark, n int) []mark {
	var out []mark
	for _, m := range ms {
		if m.sp.Line == n {
			out = append(out, m)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].sp.Col != out[j].sp.Col {
			return out[i].sp.Col < out[j].sp.Col
		}
		return out[i].primary && !out[j].primary
	})
	return out
}

// underline draws ^^^ or --- under the bytes [Col, EndCol) of line, clamped
// to the line; a span past the end points just after it. A span running onto
// later lines is underlined to the end of its first line.
func underline(line string, m mark, sev model.Severity, p painter) string {
	from := clamp(m.sp.Col-1, 0, len(line))
	to := len(line)
	if m.sp.EndLine == m.sp.Line {
		to = clamp(m.sp.EndCol-1, from, len(line))
	}
	n := max(cells(line[from:to]), 1)
	ch := "-"
	if m.primary {
		ch = "^"
	}
	s := strings.Repeat(ch, n)
	if m.msg != "" {
		s += " " + Printable(m.msg)
	}
	if m.primary {
		s = p.sev(sev, s)
	} else {
		s = p.gutter(s)
	}
	return strings.Repeat(" ", cells(line[:from])) + s
}

// cells is the number of columns text takes once display has run: one per
// rune, four per tab.
func cells(s string) int {
	n := 0
	for _, r := range s {
		if r == '\t' {
			n += 4
		} else {
			n++
		}
	}
	return n
}

// display makes a source line safe to print: tabs become four spaces and
// what Printable escapes becomes U+FFFD, one column as the underline
// counts it.
func display(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString("    ")
		case Unsafe(r):
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// helpLine is the fix's sentence followed, briefly, by its edits.
func helpLine(f model.Fix, primFile string, src Sources) string {
	var edits []string
	for _, e := range f.Edits {
		edits = append(edits, editLine(e, primFile, src))
	}
	switch {
	case len(edits) == 0:
		return f.Message
	case f.Message == "":
		return strings.Join(edits, "; ")
	default:
		return f.Message + " (" + strings.Join(edits, "; ") + ")"
	}
}

func editLine(e model.Edit, primFile string, src Sources) string {
	newText := brief(e.NewText)
	if !e.Span.Known() {
		return "use " + newText
	}
	sp := e.Span
	if sp.File == "" {
		sp.File = primFile
	}
	where := "line " + strconv.Itoa(sp.Line)
	if sp.File != primFile {
		where = sp.File + " " + where
	}
	if e.NewText == "" && sp.Col == 1 && sp.EndCol == 1 && sp.EndLine == sp.Line+1 {
		return "delete " + where // a whole line, its line ending included
	}
	old, ok := src.Text(norm(sp))
	switch {
	case !ok:
		return where + ": replace with " + newText
	case old == "":
		return where + ": insert " + newText
	case e.NewText == "":
		return where + ": delete " + brief(old)
	default:
		return where + ": replace " + brief(old) + " with " + newText
	}
}

// brief shows s as code (backticks, as in the messages), shortened so that a
// help line stays one line; text with a backtick or control characters is
// quoted Go-style instead.
func brief(s string) string {
	const limit = 40
	if r := []rune(s); len(r) > limit {
		s = string(r[:limit]) + "…"
	}
	if strings.ContainsAny(s, "`\n\r\t") {
		return strconv.Quote(s)
	}
	return "`" + s + "`"
}

// painter wraps text in ANSI colours when on, and passes it through when not.
type painter struct{ on bool }

func (p painter) wrap(code, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p painter) bold(s string) string   { return p.wrap("1", s) }
func (p painter) gutter(s string) string { return p.wrap("1;34", s) }

func (p painter) sev(sev model.Severity, s string) string {
	switch sev {
	case model.SeverityError:
		return p.wrap("1;31", s)
	case model.SeverityWarning:
		return p.wrap("1;33", s)
	default:
		return p.wrap("1;36", s)
	}
}

// TextWithoutNotes is Text of the errors and warnings of ds; it returns how
// many notes it left out, for a caller that counts them in one line (a
// launch, whose workers' output should not start below a screen of notes).
func TextWithoutNotes(w io.Writer, ds []model.Diagnostic, src Sources, color bool) (notes int) {
	var shown []model.Diagnostic
	for _, d := range ds {
		if d.Severity == model.SeverityNote {
			notes++
			continue
		}
		shown = append(shown, d)
	}
	Text(w, shown, src, color)
	return notes
}
