package grammar

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlsolve/rlsolve/internal/shsandbox"
	"github.com/rlsolve/rlsolve/model"
)

// A --slime value is shell text: a flag string, a pasted command, or a
// whole launch script (`--slime @scripts/run-qwen3-4B.sh`). It is
// evaluated in shsandbox (nothing runs; commands are stubbed, writes stay
// in memory) and slime's arguments are read from the command that runs
// slime's program; every argument keeps where its value was written.

// ScriptOptions say what the sandbox may read and what it answers.
type ScriptOptions struct {
	// Dir is the script's folder ("" for a pasted string: no disk reads).
	Dir string
	// Env are variables the user gave (--env NAME=VALUE).
	Env map[string]string
	// GPUs, Hostname and IP answer nvidia-smi -L and hostname (a node of
	// the inventory); 0 and "" take 8 GPUs and node0.
	GPUs         int
	Hostname, IP string
}

// shellWord is one argument of slime's command.
type shellWord struct {
	Text string
	// Offs holds, per byte of Text, its offset in the parsed text, when
	// the value is written there byte for byte; [Off, End) is where it
	// was written (an array element, an assignment, the word itself).
	Offs     []int
	Off, End int
	// Ext is where the value was written when that is another file (a
	// sourced one).
	Ext *model.Span
	// Hole is a variable the script never sets, expanded to nothing.
	Hole bool
	// Unknown are the unset variables the value depends on.
	Unknown []shsandbox.Unknown
}

// shellCommand is one command the script ran.
type shellCommand struct {
	Words []shellWord
	// Sep is "\n" when the next command starts on a later line.
	Sep string
}

// scriptResult is the evaluation of a --slime text.
type scriptResult struct {
	cmds  []shellCommand
	files map[string][]byte
	roots []string
	err   *shsandbox.Error
	res   *shsandbox.Result
}

// evalScript runs s in the sandbox.
func evalScript(file, s string, opt ScriptOptions) scriptResult {
	so := shsandbox.Options{Name: file, Env: opt.Env, GPUs: opt.GPUs, CPUs: 64, Hostname: opt.Hostname, IP: opt.IP,
		Entry: func([]string) bool { return true }, Limits: shsandbox.DefaultLimits}
	if so.GPUs <= 0 {
		so.GPUs = 8
	}
	if so.Hostname == "" {
		so.Hostname, so.IP = "node0", "10.0.0.1"
	}
	if opt.Dir != "" {
		// The script runs from its own folder under its absolute name, so
		// `$(dirname "$0")` and relative paths resolve wherever rlsolve
		// runs; spans keep the name the user gave.
		so.Roots = scriptRoots(opt.Dir)
		if len(so.Roots) > 0 {
			so.Dir = so.Roots[0]
			so.Name = filepath.Join(so.Dir, filepath.Base(file))
		}
	}
	res, err := shsandbox.Run(context.Background(), []byte(s), so)
	if res != nil && so.Name != file {
		renameSpans(res, so.Name, so.Dir, file)
	}
	if e, ok := err.(*shsandbox.Error); ok && e.Span.File == so.Name {
		e.Span.File = file
	}
	out := scriptResult{roots: so.Roots, res: res}
	if e, ok := err.(*shsandbox.Error); ok {
		out.err = e
	} else if err != nil {
		out.err = &shsandbox.Error{Kind: "unsupported", Span: shsandbox.Span{File: file}, Msg: err.Error()}
	}
	if res == nil {
		return out
	}
	out.files = res.Files
	for i, c := range res.Calls {
		cmd := shellCommand{}
		for _, f := range c.Fields {
			cmd.Words = append(cmd.Words, fieldWord(file, s, f))
		}
		if i+1 < len(res.Calls) && res.Calls[i+1].Span.Line > c.Span.EndLine {
			cmd.Sep = "\n"
		}
		out.cmds = append(out.cmds, cmd)
	}
	return out
}

// renameSpans names the files under the script's folder dir as the user
// named the script: the script itself, and the files it sources beside it.
func renameSpans(res *shsandbox.Result, name, dir, file string) {
	fix := func(sp *shsandbox.Span) {
		if sp.File == name {
			sp.File = file
		} else if rel, ok := strings.CutPrefix(sp.File, dir+string(filepath.Separator)); ok {
			sp.File = filepath.Join(filepath.Dir(file), rel)
		}
	}
	for i := range res.Refused {
		fix(&res.Refused[i].At)
	}
	fix(&res.ExitAt)
	fix(&res.LastAt)
	for i := range res.Calls {
		c := &res.Calls[i]
		fix(&c.Span)
		for j := range c.Fields {
			fix(&c.Fields[j].Span)
			for k := range c.Fields[j].Unknown {
				fix(&c.Fields[j].Unknown[k].Span)
			}
		}
	}
}

// scriptRoots are the folders a script may read: its own, and the slime
// checkout it lies in (the nearest folder above holding train.py), whose
// scripts/models/*.sh the examples source.
func scriptRoots(dir string) []string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	roots := []string{abs}
	for d, i := abs, 0; i < 4; d, i = filepath.Dir(d), i+1 {
		if st, err := os.Stat(filepath.Join(d, "train.py")); err == nil && st.Mode().IsRegular() {
			if d != abs {
				roots = append(roots, d)
			}
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return roots
}

// fieldWord is a traced argument as the flag parser reads it.
func fieldWord(file, s string, f shsandbox.Field) shellWord {
	w := shellWord{Text: f.Text, Hole: f.Hole, Unknown: f.Unknown}
	sp := f.Span
	if sp.File != file {
		ext := modelSpan(sp)
		w.Ext = &ext
		return w
	}
	w.Off, w.End = sp.Off, sp.End
	if len(f.Offs) == len(f.Text) && sp.End <= len(s) {
		w.Offs = f.Offs
	}
	return w
}

func modelSpan(sp shsandbox.Span) model.Span {
	return model.Span{File: sp.File, Line: sp.Line, Col: sp.Col, EndLine: sp.EndLine, EndCol: sp.EndCol}
}

// isLetter, leadingName and isAssignment read shell names.
func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func leadingName(s string) string {
	n := 0
	for n < len(s) && (s[n] == '_' || isLetter(s[n]) || n > 0 && s[n] >= '0' && s[n] <= '9') {
		n++
	}
	return s[:n]
}

// IsShellName reports whether s is a shell variable name.
func IsShellName(s string) bool { return s != "" && leadingName(s) == s }

// isAssignment reports whether a word is `NAME=`: an `env NAME=VALUE`
// argument before the program.
func isAssignment(w string) bool {
	name := leadingName(w)
	return name != "" && strings.HasPrefix(w[len(name):], "=")
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
