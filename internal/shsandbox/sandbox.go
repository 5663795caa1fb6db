// Package shsandbox evaluates a bash launch script without running it:
// mvdan.cc/sh/v3 interprets the script; every external command is
// intercepted and stubbed (commands.go), writes go to memory and reads are
// confined to a few folders (fs.go), and steps, output, files and time are
// bounded. What comes back is each external command the script would have
// run, its arguments expanded, and for the commands the caller asks about,
// where each argument's value was written (origins.go).
package shsandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// Limits bound what a script can make the sandbox do.
type Limits struct {
	MaxScript    int           // bytes of the script
	MaxDepth     int           // nesting of brackets in the script text
	MaxSteps     int           // commands run, loop turns and function calls
	MaxCallDepth int           // functions calling functions
	MaxOutput    int           // bytes the script writes to its stdout/stderr
	MaxFiles     int           // bytes of every file read or written
	MaxVars      int           // bytes held in variables
	MaxCalls     int           // external commands recorded
	Timeout      time.Duration // wall time, the last resort
}

// DefaultLimits fit every launch script of slime's repository many times.
var DefaultLimits = Limits{MaxScript: 512 << 10, MaxDepth: 200, MaxSteps: 100_000, MaxCallDepth: 64, MaxOutput: 4 << 20,
	MaxFiles: 16 << 20, MaxVars: 32 << 20, MaxCalls: 4096, Timeout: 20 * time.Second}

// Options describe the script and the stand-ins' answers.
type Options struct {
	Name string // the script's file name, for spans and $0
	// Dir is the script's folder: its working directory. Roots are the
	// folders whose files it may read (Dir is not added implicitly).
	Dir   string
	Roots []string
	Env   map[string]string // variables set before the script runs
	// The stand-ins' answers: GPUs of this node, CPUs, host name, address.
	GPUs, CPUs   int
	Hostname, IP string
	// Entry picks the commands whose arguments' origins are traced.
	Entry  func(argv []string) bool
	Limits Limits
}

// Error is a script the sandbox refuses or stops.
type Error struct {
	Kind string // "parse", "limit", "unsupported", "timeout"
	Span Span   // where, when known
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Result is what the script did.
type Result struct {
	Calls   []Call            // the external commands, in order
	Files   map[string][]byte // what it wrote (memory only)
	Sources map[string][]byte // the disk files it read
	Refused []Refusal
	Steps   int
	// Exit is the script's exit status; ExitAt the `exit` that ended it,
	// when one did. Tail is the end of what it printed.
	Exit   int
	ExitAt Span
	// LastAt is the last command the script ran (the one that failed,
	// when set -e stopped it).
	LastAt Span
	Tail   string
}

type sandbox struct {
	opt    Options
	fs     *memFS
	nodes  *nodeTable
	steps  atomic.Int64
	cancel context.CancelFunc
	mu     sync.Mutex
	calls  []Call
	exit   int
	exitAt Span
	lastAt Span
	out    *boundedWriter
	temps  int
	err    *Error
}

// StepCommand is the command the instrumented script runs to count a loop
// turn or a function call.
const StepCommand = "__rlsolve_step"

// Run evaluates the script src.
func Run(ctx context.Context, src []byte, opt Options) (*Result, error) {
	if opt.Limits.MaxSteps == 0 {
		opt.Limits = DefaultLimits
	}
	lim := opt.Limits
	if len(src) > lim.MaxScript {
		return nil, &Error{Kind: "limit", Span: Span{File: opt.Name}, Msg: fmt.Sprintf("the script is %d bytes; the sandbox evaluates at most %d", len(src), lim.MaxScript)}
	}
	if at, depth := nesting(src); depth > lim.MaxDepth {
		return nil, &Error{Kind: "limit", Span: spanAt(opt.Name, src, at), Msg: fmt.Sprintf("brackets and substitutions nest more than %d deep", lim.MaxDepth)}
	}
	file, err := parseScript(src, opt.Name)
	if err != nil {
		return nil, parseError(opt.Name, src, err)
	}
	s := &sandbox{opt: opt, fs: newMemFS(opt.Roots, lim.MaxFiles), nodes: &nodeTable{}}
	s.fs.dir = s.dir()
	s.fs.at = s.commandAt
	s.fs.sourcing = s.sourcing
	if e := s.nodes.instrument(file, opt.Name, src); e != nil {
		return nil, e
	}
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	s.cancel = cancel
	runErr := s.run(ctx, file)
	res := &Result{Calls: s.calls, Files: s.fs.Files(), Sources: s.fs.read, Refused: s.fs.refused, Steps: int(s.steps.Load()),
		Exit: s.exit, ExitAt: s.exitAt, LastAt: s.lastAt}
	if s.out != nil {
		res.Tail = s.out.tail()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.err != nil:
		return res, s.err
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return res, &Error{Kind: "timeout", Span: Span{File: opt.Name}, Msg: fmt.Sprintf("the script ran longer than %s", lim.Timeout)}
	case runErr != nil:
		return res, runErr
	}
	return res, nil
}

// run interprets the file; a panic inside the interpreter is an error.
func (s *sandbox) run(ctx context.Context, file *syntax.File) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &Error{Kind: "unsupported", Span: Span{File: s.opt.Name}, Msg: fmt.Sprintf("the shell interpreter cannot evaluate this script: %v", p)}
		}
	}()
	out := &boundedWriter{s: s}
	s.out = out
	r, err := interp.New(
		interp.Env(expand.ListEnviron(s.environ()...)),
		interp.StdIO(strings.NewReader(""), out, out),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return s.exec }),
		interp.CallHandler(s.call),
		interp.OpenHandler(s.fs.open),
		interp.StatHandler(s.fs.stat),
		interp.ReadDirHandler2(s.fs.readDir),
	)
	if err != nil {
		return &Error{Kind: "unsupported", Msg: err.Error()}
	}
	r.Dir = s.dir()
	err = r.Run(ctx, file)
	if st, ok := interp.IsExitStatus(err); ok || err == nil {
		s.mu.Lock()
		s.exit = int(st)
		s.mu.Unlock()
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil // reported by Run from s.err or the deadline
	}
	return &Error{Kind: "unsupported", Span: Span{File: s.opt.Name}, Msg: err.Error()}
}

func (s *sandbox) dir() string {
	if s.opt.Dir != "" {
		return s.opt.Dir
	}
	return TempDir
}

// environ is the script's starting environment: a plain user's, then
// Options.Env. Nothing of this process's environment leaks in.
func (s *sandbox) environ() []string {
	env := map[string]string{"HOME": "/home/rlsolve", "USER": "rlsolve", "LOGNAME": "rlsolve", "SHELL": "/bin/bash",
		"PATH": "/usr/local/bin:/usr/bin:/bin", "PWD": s.dir(), "BASH_SOURCE": s.opt.Name, "HOSTNAME": s.opt.Hostname}
	for k, v := range s.opt.Env {
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// commandAt is where the command running in ctx is written.
func (s *sandbox) commandAt(ctx context.Context) Span {
	defer func() { _ = recover() }() // a context without a HandlerContext
	n, ok := s.nodes.get(interp.HandlerCtx(ctx).Env.Get(atVar).String())
	if !ok || n.call == nil {
		return Span{}
	}
	return posSpan(n.file, n.call.Args[0].Pos(), n.call.End())
}

// sourcing sets BASH_SOURCE around a sourced file (model files find their
// siblings with `$(dirname "${BASH_SOURCE[0]}")`) and works around the
// parser's array-element `[` (fixups.go). Other reads pass unchanged.
func (s *sandbox) sourcing(ctx context.Context, p string, data []byte) []byte {
	var prev string
	name := ""
	func() {
		defer func() { _ = recover() }()
		env := interp.HandlerCtx(ctx).Env
		prev = env.Get("BASH_SOURCE").String()
		if n, ok := s.nodes.get(env.Get(atVar).String()); ok && n.call != nil {
			name = n.call.Args[0].Lit()
		}
	}()
	if name != "source" && name != "." {
		return data
	}
	out := "BASH_SOURCE=" + syntaxQuote(p) + "\n" + string(s.instrumented(p, data)) + "\nBASH_SOURCE=" + syntaxQuote(prev) + "\n"
	return []byte(out)
}

// instrumented is a sourced file instrumented as the script is (its
// values then point into it), printed back for the interpreter to parse;
// the file as it is (its `[` fixed) when that fails.
func (s *sandbox) instrumented(p string, data []byte) []byte {
	file, err := parseScript(data, p)
	if err != nil || s.nodes.instrument(file, p, data) != nil {
		return sourceable(p, data)
	}
	var buf bytes.Buffer
	if syntax.NewPrinter().Print(&buf, file) != nil {
		return sourceable(p, data)
	}
	return sourceable(p, buf.Bytes()) // the printer writes a restored `[` back as it was
}

// syntaxQuote single-quotes s for the shell.
func syntaxQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// where is the command running in ctx, else the script.
func (s *sandbox) where(ctx context.Context) Span {
	if at := s.commandAt(ctx); at.Known() {
		return at
	}
	return Span{File: s.opt.Name}
}

// fail records the first limit hit and stops the script.
func (s *sandbox) fail(e *Error) error {
	s.mu.Lock()
	if s.err == nil {
		s.err = e
	}
	s.mu.Unlock()
	s.cancel()
	return e
}

// step counts one command, loop turn or call and enforces the limits.
func (s *sandbox) step(ctx context.Context) error {
	n := s.steps.Add(1)
	lim := s.opt.Limits
	if n > int64(lim.MaxSteps) {
		return s.fail(&Error{Kind: "limit", Span: s.where(ctx), Msg: fmt.Sprintf("the script ran more than %d steps (commands, loop turns, function calls): an endless loop or runaway recursion", lim.MaxSteps)})
	}
	if n%4 == 0 { // variables can double on every step: check often
		size := 0
		interp.HandlerCtx(ctx).Env.Each(func(name string, vr expand.Variable) bool {
			size += len(name) + len(vr.Str)
			for _, x := range vr.List {
				size += len(x)
			}
			for _, x := range vr.Map {
				size += len(x)
			}
			return true
		})
		if size > lim.MaxVars {
			return s.fail(&Error{Kind: "limit", Span: s.where(ctx), Msg: fmt.Sprintf("the script's variables hold more than %d bytes", lim.MaxVars)})
		}
	}
	return ctx.Err()
}

// call is the interpreter's CallHandler: it sees every simple command,
// builtins and functions included, before it runs.
func (s *sandbox) call(ctx context.Context, args []string) ([]string, error) {
	if err := s.step(ctx); err != nil {
		return nil, err
	}
	if args[0] != StepCommand {
		if at := s.commandAt(ctx); at.Known() {
			s.mu.Lock()
			s.lastAt = at
			s.mu.Unlock()
		}
	}
	switch args[0] {
	case StepCommand:
		if d := interp.HandlerCtx(ctx).Env.Get(depthVar).String(); len(d) > 0 && atoiOr(d) > s.opt.Limits.MaxCallDepth {
			return nil, s.fail(&Error{Kind: "limit", Span: s.where(ctx), Msg: fmt.Sprintf("functions call each other more than %d deep: runaway recursion", s.opt.Limits.MaxCallDepth)})
		}
		return []string{"true"}, nil
	case "command", "type", "hash":
		// `command -v X` would search this machine's PATH: every
		// command exists in the sandbox.
		if ops := operands(args[1:]); len(ops) > 0 && (args[0] != "command" || len(ops) < len(args)-1) {
			return []string{"echo", "/usr/bin/" + ops[0]}, nil
		}
	case "cd", "pushd":
		if len(args) > 2 && args[1] == "--" {
			return append([]string{args[0]}, args[2:]...), nil // the interpreter's cd does not take `--`
		}
	case "exit":
		s.mu.Lock()
		s.exitAt = s.commandAt(ctx)
		s.mu.Unlock()
	case "wait":
		return []string{"true"}, nil // the interpreter cannot wait for given jobs; none ran
	case "exec":
		if len(args) > 1 {
			return args[1:], nil // run the command; stubs never replace this process
		}
	}
	return args, nil
}

// boundedWriter discards the script's output, counting it.
type boundedWriter struct {
	s    *sandbox
	n    atomic.Int64
	mu   sync.Mutex
	last []byte // the end of the output, for messages
}

const tailBytes = 400

func (w *boundedWriter) Write(b []byte) (int, error) {
	if w.n.Add(int64(len(b))) > int64(w.s.opt.Limits.MaxOutput) {
		return 0, w.s.fail(&Error{Kind: "limit", Span: Span{File: w.s.opt.Name}, Msg: fmt.Sprintf("the script wrote more than %d bytes of output", w.s.opt.Limits.MaxOutput)})
	}
	w.mu.Lock()
	w.last = append(w.last, b...)
	if len(w.last) > 2*tailBytes {
		keep := w.last[len(w.last)-tailBytes:]
		if i := bytes.IndexByte(keep, '\n'); i >= 0 {
			keep = keep[i+1:] // whole lines only
		}
		w.last = append([]byte(nil), keep...)
	}
	w.mu.Unlock()
	return len(b), nil
}

// tail is the last line of output (not the `set -x` trace), trimmed.
func (w *boundedWriter) tail() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var keep []string
	for _, l := range strings.Split(string(w.last), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "+") {
			keep = append(keep, l)
		}
	}
	if len(keep) > 1 {
		keep = keep[len(keep)-1:] // the message before the end, not a traced multi-line value
	}
	t := strings.Join(keep, " / ")
	if len(t) > tailBytes {
		t = t[len(t)-tailBytes:]
	}
	return t
}

var _ io.Writer = (*boundedWriter)(nil)

// nesting is the deepest bracket nesting in src, counted on the raw text
// before parsing (the parser recurses on it), and where it is reached.
func nesting(src []byte) (at, depth int) {
	d := 0
	for i, c := range src {
		switch c {
		case '(', '{':
			d++
			if d > depth {
				at, depth = i, d
			}
		case ')', '}':
			d = max(d-1, 0)
		}
	}
	return at, depth
}

func parseError(name string, src []byte, err error) *Error {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		sp := spanAt(name, src, int(pe.Pos.Offset()))
		return &Error{Kind: "parse", Span: sp, Msg: "the script cannot be parsed: " + pe.Text}
	}
	return &Error{Kind: "parse", Span: Span{File: name}, Msg: "the script cannot be parsed: " + err.Error()}
}

func atoiOr(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' || n > 1<<20 {
			return n
		}
		n = n*10 + int(c-'0')
	}
	return n
}
