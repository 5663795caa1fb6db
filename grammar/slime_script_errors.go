package grammar

import (
	"fmt"
	"strings"

	"github.com/rlsolve/rlsolve/internal/shsandbox"
	"github.com/rlsolve/rlsolve/model"
)

// scriptError reports a script the sandbox could not evaluate.
func (p *slimeParser) scriptError(e *shsandbox.Error) {
	at := modelSpan(e.Span)
	if !at.Known() {
		at = p.cfg.Span
	}
	label := map[string]string{"parse": "cannot be parsed", "limit": "a limit", "timeout": "a limit"}[e.Kind]
	if label == "" {
		label = "not evaluated"
	}
	d := p.errorf(model.CodeSlimeScript, at, label, "the slime launch script cannot be evaluated: %s", e.Msg)
	d.Why = "rlsolve evaluates the script in a sandbox (no command runs, files are written in memory), bounded in steps, output and time."
	d.Help = []model.Fix{{Message: "fix the script, or give the command it runs with its values written out"}}
}

// refused reports reads the sandbox refused: the script's values may hang
// on them. It reports whether there were any.
func (p *slimeParser) refused(ev scriptResult) bool {
	if ev.res == nil || len(ev.res.Refused) == 0 {
		return false
	}
	r := ev.res.Refused[0]
	more := ""
	if n := len(ev.res.Refused); n > 1 {
		more = fmt.Sprintf(" (and %d more paths)", n-1)
	}
	at := p.cfg.Span
	if r.At.Known() {
		at = modelSpan(r.At)
	}
	d := p.errorf(model.CodeSlimeScript, at, "reads outside", "the slime launch script reads %s, which rlsolve's sandbox refuses: %s%s", r.Path, r.Why, more)
	d.Why = "the sandbox reads only the script's folder and the slime checkout it lies in, so evaluating a script never reads this machine's other files."
	d.Help = []model.Fix{{Message: "copy what it reads beside the script, or set the value it would read with --env NAME=VALUE"}}
	return true
}

// runsNoProgram reports a script that never runs slime's program: it
// exits first (a variable it requires is unset, a command it checks for
// failed under set -e), or launches slime some other way. A flag string
// (its first word a flag) or a wrapper with `--` runs none and is fine.
func (p *slimeParser) runsNoProgram(ev scriptResult, args slimeArgv) bool {
	if args.program != nil {
		return false
	}
	for _, c := range ev.cmds {
		for i, w := range c.Words {
			wrapper := w.Text == "--" && i+1 < len(c.Words) && strings.HasPrefix(c.Words[i+1].Text, "-")
			if i == 0 && strings.HasPrefix(w.Text, "-") || wrapper {
				return false
			}
		}
	}
	if len(ev.cmds) == 0 && ev.res != nil && ev.res.Exit == 0 {
		return false // an empty text: the defaults
	}
	at, label := p.cfg.Span, "runs no train.py"
	why := ""
	if r := ev.res; r != nil && r.ExitAt.Known() {
		at, label = modelSpan(r.ExitAt), "exits here"
		why = fmt.Sprintf("it exits with status %d at %s before launching slime", r.Exit, spanWhere(at))
	} else if r != nil && r.Exit != 0 {
		why = fmt.Sprintf("it stops with status %d before launching slime (a command failed under `set -e`, or `set -u` met an unset variable)", r.Exit)
		if r.LastAt.Known() {
			at, label = modelSpan(r.LastAt), "the last command it ran"
		}
	}
	if r := ev.res; r != nil && r.Tail != "" {
		why += fmt.Sprintf("; its last output: %q", r.Tail)
	}
	d := p.errorf(model.CodeSlimeScript, at, label, "the slime launch script runs no slime program (train.py, train_async.py, python -m ...)%s", prefixed("; ", why))
	d.Why = "rlsolve reads slime's flags from the command that runs slime's program; commands are stubbed (no output, status 0), variables the environment would give are unset."
	d.Help = []model.Fix{{Message: "give the variables it needs with --env NAME=VALUE"}}
	return true
}

func prefixed(pre, s string) string {
	if s == "" {
		return ""
	}
	return pre + s
}
