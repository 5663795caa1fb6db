package grammar

import (
	"fmt"
	"path"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// A pasted launch command wraps slime's arguments: `ray job submit
// --address ... -- python3 train.py ARGS`, `python -m MODULE ARGS`,
// `torchrun --nproc-per-node 8 train_async.py ARGS`, `ENV=x python3 -u
// train.py ARGS`. slime's arguments are the words after the Python program
// (a `*.py` word, or the module after `-m`); the wrapper's own flags,
// before it, are not slime's. Without a program the words are the flags
// themselves (a flag string), after a wrapper's `--` if there is one.

// slimeArgv is where slime's arguments were found.
type slimeArgv struct {
	words []shellWord
	// program is the Python program's word, when the text runs one.
	program *shellWord
	// commands is how many commands the text holds.
	commands int
	// last is the program's command's last word, and cut the command on
	// the next line when it looks like more of its arguments: a `\` is
	// missing, and the shell runs them as a command of their own.
	last *shellWord
	cut  *shellCommand
}

// slimeArgs picks slime's arguments out of the commands: those of the
// command that runs a Python program (the first that also gives a
// placement flag, else the first), else every word.
func slimeArgs(cmds []shellCommand) slimeArgv {
	out := slimeArgv{commands: len(cmds)}
	chosen := -1
	for ci, c := range cmds {
		k := programIndex(c.Words)
		if k < 0 {
			continue
		}
		if chosen < 0 || !hasPlacementFlag(cmds[chosen].Words) && hasPlacementFlag(c.Words[k+1:]) {
			chosen = ci
		}
	}
	if chosen >= 0 {
		ws := cmds[chosen].Words
		k := programIndex(ws)
		out.program = &ws[k]
		out.words = ws[k+1:]
		out.last = &ws[len(ws)-1]
		if next := chosen + 1; next < len(cmds) && cmds[chosen].Sep == "\n" && looksLikeArgs(cmds[next].Words[0]) {
			out.cut = &cmds[next]
		}
		return out
	}
	var all []shellWord
	for _, c := range cmds {
		all = append(all, c.Words...)
	}
	for i, w := range all {
		if w.Text == "--" && !w.Hole {
			all = all[i+1:] // the wrapper's `--`: slime's flags follow
			break
		}
	}
	out.words = all
	return out
}

// programIndex is the index of the Python program a command runs (a
// `*.py` word, or the module after `-m`), or -1. Words after the
// wrapper's `--` are searched first. A `*.py` word after a placement flag
// is that flag string's value (`--custom-generate-function-path gen.py`),
// not a program.
func programIndex(ws []shellWord) int {
	from := 0
	for i, w := range ws {
		if w.Text == "--" {
			from = i + 1
			break
		}
	}
	for _, start := range []int{from, 0} {
		for i := start; i < len(ws); i++ {
			t := ws[i].Text
			switch {
			case hasPlacementFlag(ws[i : i+1]):
				i = len(ws)
			case t == "-m" && i+1 < len(ws):
				return i + 1
			case strings.HasPrefix(t, "-") || isAssignment(leadingAssignment(t)):
			case strings.HasSuffix(path.Base(t), ".py"):
				return i
			}
		}
	}
	return -1
}

// leadingAssignment is `NAME=` when w starts an assignment.
func leadingAssignment(w string) string {
	name, _, ok := strings.Cut(w, "=")
	if !ok {
		return ""
	}
	return name + "="
}

// looksLikeArgs reports whether a command's first word is an argument
// rather than a program: a flag, or words the shell expands into flags.
func looksLikeArgs(w shellWord) bool {
	return strings.HasPrefix(w.Text, "--") || mayHoldFlags(w)
}

func hasPlacementFlag(ws []shellWord) bool {
	for _, w := range ws {
		name, _, _ := strings.Cut(w.Text, "=")
		if _, _, ok := model.SlimeKeyByFlag(name); ok {
			return true
		}
	}
	return false
}

// notes reports what was not read: words the shell would expand into
// flags (a warning: they may hold placement flags), and the arguments that
// do not affect placement (a note).
func (p *slimeParser) notes(args slimeArgv) {
	if n := len(p.unexpanded); n > 0 {
		first := p.unexpanded[0]
		at := p.wordSpan(first, 0, -1)
		names := make([]string, 0, n)
		for _, w := range p.unexpanded {
			if len(w.Unknown) > 0 {
				names = append(names, w.Unknown[0].Name)
			}
		}
		if len(names) == 0 {
			names = append(names, "a variable")
		}
		d := model.Diagnostic{Code: model.WarnSlimeUnexpanded, Severity: model.SeverityWarning,
			Summary: fmt.Sprintf("slime's command expands %s (%s), which the script never sets: bash passes nothing there, so rlsolve plans without it; if it holds placement flags (such as --rollout-num-gpus-per-engine) in the real run, slime's layout differs",
				quoteList(names), p.loc.where(at)),
			Primary: at, PrimaryLabel: "never set",
			Why:  "rlsolve evaluates the script without the environment it would run in.",
			Help: []model.Fix{{Message: fmt.Sprintf("give its value: `--env %s=...`, or set it in the script", names[0])}},
		}
		for _, w := range p.unexpanded[1:min(n, 6)] {
			d.Labels = append(d.Labels, model.Label{Span: p.wordSpan(w, 0, -1), Message: "never set"})
		}
		for _, name := range names {
			p.cfg.Unexpanded = append(p.cfg.Unexpanded, "$"+name)
		}
		p.diags = append(p.diags, d)
	}
	if args.cut != nil {
		p.missingContinuation(args)
	}
	if len(p.ignored) == 0 {
		return
	}
	shown := p.ignored
	if len(shown) > 6 {
		shown = shown[:6]
	}
	more := ""
	if len(p.ignored) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(p.ignored)-len(shown))
	}
	read := ""
	if args.program != nil {
		read = fmt.Sprintf("read slime's flags after `%s` (%s); ", args.program.Text, p.loc.where(p.wordSpan(*args.program, 0, -1)))
	}
	p.diags = append(p.diags, model.Diagnostic{Code: model.NoteSlimeIgnored, Severity: model.SeverityNote,
		Summary:      fmt.Sprintf("%signored %d argument(s) that do not affect placement: %s%s", read, len(p.ignored), quoteList(shown), more),
		Primary:      p.ignSpan,
		PrimaryLabel: "not a placement flag",
	})
}

// missingContinuation warns that the line after the command looks like more
// of its arguments: without a `\` the shell runs it as a separate command.
func (p *slimeParser) missingContinuation(args slimeArgv) {
	first := args.cut.Words[0]
	at := p.wordSpan(first, 0, -1)
	end := p.loc.span(args.last.End, args.last.End)
	end.EndLine, end.EndCol = end.Line, end.Col
	d := model.Diagnostic{Code: model.WarnSlimeSplitCommand, Severity: model.SeverityWarning,
		Summary: fmt.Sprintf("the command ends at %s without a `\\`, so the shell runs `%s` and the %d word(s) after it as a separate command: slime does not get them",
			p.loc.where(end), first.Text, len(args.cut.Words)-1),
		Primary: at, PrimaryLabel: "a separate command",
		Labels: []model.Label{{Span: p.wordSpan(*args.last, 0, -1), Message: "the command ends here"}},
		Why:    "A newline ends a shell command unless the line ends with `\\`; rlsolve reads what slime receives, as the shell would run it.",
		Help:   []model.Fix{{Message: "end the line with ` \\` if these are slime's arguments"}},
	}
	if p.loc.at == nil {
		d.Help[0].Edits = []model.Edit{{Span: end, NewText: " \\"}}
	}
	p.diags = append(p.diags, d)
}
