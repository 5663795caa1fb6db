package shsandbox

import (
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// The interpreter hands its handlers expanded arguments, not the syntax
// they came from. To trace a value back to where it was written, the
// script is instrumented before it runs, with assignments only (so no
// command's arguments or exit status change):
//
//   - every command with arguments gets the prefix assignment
//     `__RLS_AT=<id>`: its handlers read the id from the environment and
//     so know the command's syntax;
//   - every assignment `X=...` (also `local`, `export`, `declare`) gets a
//     companion `__RLS_O_X=" <id>"` (`+=` for `X+=...`): when a command
//     runs, the companion names the assignments X's value came from;
//   - loop bodies, function bodies and assignments that expand something
//     start with StepCommand, counted like any command;
//   - `cmd &` runs in the foreground, and `a | b` as `(a) > F; (b) < F`
//     with F in memory: the interpreter runs both at once otherwise, and
//     its subshells then share variables across goroutines.

const (
	atVar     = "__RLS_AT"
	originPfx = "__RLS_O_"
	depthVar  = "__RLS_DEPTH"
)

// node is one instrumented piece of syntax.
type node struct {
	file   string
	src    []byte
	call   *syntax.CallExpr
	assign *syntax.Assign
}

type nodeTable struct {
	mu    sync.Mutex
	nodes []node
	pipes int
}

func (t *nodeTable) add(n node) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.nodes = append(t.nodes, n)
	return strconv.Itoa(len(t.nodes) - 1)
}

func (t *nodeTable) get(id string) (node, bool) {
	i, err := strconv.Atoi(strings.TrimSpace(id))
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil || i < 0 || i >= len(t.nodes) {
		return node{}, false
	}
	return t.nodes[i], true
}

func litWord(s string) *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: s}}}
}

// litAssign is NAME='value' (quoted, so that a printed copy of the
// script, as a sourced file is run, reads back the same).
func litAssign(name, value string, appendTo bool) *syntax.Assign {
	v := &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: value}}}
	return &syntax.Assign{Name: &syntax.Lit{Value: name}, Value: v, Append: appendTo}
}

// depthStmt is `local __RLS_DEPTH=$((__RLS_DEPTH+1))`: a function's call
// depth, restored when it returns, read by the step after it.
func depthStmt() *syntax.Stmt {
	inc := &syntax.ArithmExp{X: &syntax.BinaryArithm{Op: syntax.Add, X: litWord(depthVar), Y: litWord("1")}}
	a := &syntax.Assign{Name: &syntax.Lit{Value: depthVar}, Value: &syntax.Word{Parts: []syntax.WordPart{inc}}}
	return &syntax.Stmt{Cmd: &syntax.DeclClause{Variant: &syntax.Lit{Value: "local"}, Args: []*syntax.Assign{a}}}
}

func stepStmt() *syntax.Stmt {
	return &syntax.Stmt{Cmd: &syntax.CallExpr{Args: []*syntax.Word{litWord(StepCommand)}}}
}

// instrument rewrites file in place; it refuses what the sandbox cannot
// confine (process substitution makes real FIFOs).
func (t *nodeTable) instrument(file *syntax.File, name string, src []byte) *Error {
	var bad *Error
	syntax.Walk(file, func(n syntax.Node) bool {
		if bad != nil {
			return false
		}
		switch x := n.(type) {
		case *syntax.ProcSubst:
			bad = &Error{Kind: "unsupported", Span: nodeSpan(name, src, x), Msg: "process substitution (<(...) or >(...)) is not evaluated by rlsolve's sandbox"}
			return false
		case *syntax.Stmt:
			// A background job would run beside the script, sharing its
			// variables with the interpreter's goroutines; every job is a
			// stub, so it runs in the foreground, in order.
			x.Background, x.Coprocess = false, false
			t.serialPipe(x)
		case *syntax.CallExpr:
			t.call(x, name, src)
		case *syntax.DeclClause:
			if x.Variant.Value != "readonly" {
				x.Args = t.origins(x.Args, name, src)
			}
		case *syntax.File:
			x.Stmts = stepped(x.Stmts)
		case *syntax.Block:
			x.Stmts = stepped(x.Stmts)
		case *syntax.Subshell:
			x.Stmts = stepped(x.Stmts)
		case *syntax.IfClause:
			x.Then = stepped(x.Then)
		case *syntax.CaseItem:
			x.Stmts = stepped(x.Stmts)
		case *syntax.WhileClause:
			x.Do = append([]*syntax.Stmt{stepStmt()}, stepped(x.Do)...)
		case *syntax.ForClause:
			x.Do = append([]*syntax.Stmt{stepStmt()}, stepped(x.Do)...)
		case *syntax.FuncDecl:
			if b, ok := x.Body.Cmd.(*syntax.Block); ok {
				b.Stmts = append([]*syntax.Stmt{depthStmt(), stepStmt()}, b.Stmts...)
			}
		}
		return true
	})
	return bad
}

func (t *nodeTable) call(x *syntax.CallExpr, name string, src []byte) {
	if len(x.Args) > 0 {
		if lit := x.Args[0].Lit(); lit == StepCommand {
			return
		}
		id := t.add(node{file: name, src: src, call: x})
		x.Assigns = append([]*syntax.Assign{litAssign(atVar, id, false)}, x.Assigns...)
		return
	}
	x.Assigns = t.origins(x.Assigns, name, src)
}

// origins adds each assignment's companion after it.
func (t *nodeTable) origins(as []*syntax.Assign, name string, src []byte) []*syntax.Assign {
	out := make([]*syntax.Assign, 0, 2*len(as))
	for _, a := range as {
		out = append(out, a)
		if a.Name == nil || a.Naked || strings.HasPrefix(a.Name.Value, "__RLS_") {
			continue
		}
		id := t.add(node{file: name, src: src, assign: a})
		out = append(out, litAssign(originPfx+a.Name.Value, " "+id, a.Append || a.Index != nil))
	}
	return out
}

// stepped puts a step before each assignment that expands something (a
// loop can be written with assignments alone), unless it reads `$?`,
// which the step would change.
func stepped(stmts []*syntax.Stmt) []*syntax.Stmt {
	var out []*syntax.Stmt
	for _, st := range stmts {
		if c, ok := st.Cmd.(*syntax.CallExpr); ok && len(c.Args) == 0 && expands(c) && !readsStatus(c) {
			out = append(out, stepStmt())
		}
		out = append(out, st)
	}
	return out
}

func expands(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp:
			found = true
		}
		return !found
	})
	return found
}

func readsStatus(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if p, ok := n.(*syntax.ParamExp); ok && p.Param != nil && p.Param.Value == "?" {
			found = true
		}
		return !found
	})
	return found
}

// serialPipe rewrites a pipeline statement into its stages run one after
// the other through a file in memory. Each stage is a subshell, as in a
// pipeline; the file's redirection comes first, so a stage's own
// redirections still win.
func (t *nodeTable) serialPipe(st *syntax.Stmt) {
	b, ok := st.Cmd.(*syntax.BinaryCmd)
	if !ok || b.Op != syntax.Pipe && b.Op != syntax.PipeAll {
		return
	}
	t.mu.Lock()
	t.pipes++
	f := TempDir + "/pipe-" + strconv.Itoa(t.pipes)
	t.mu.Unlock()
	out := []*syntax.Redirect{{Op: syntax.RdrOut, Word: litWord(f)}}
	if b.Op == syntax.PipeAll {
		out = append(out, &syntax.Redirect{Op: syntax.DplOut, N: &syntax.Lit{Value: "2"}, Word: litWord("1")})
	}
	left := &syntax.Stmt{Cmd: &syntax.Subshell{Stmts: []*syntax.Stmt{b.X}}, Redirs: out}
	right := &syntax.Stmt{Cmd: &syntax.Subshell{Stmts: []*syntax.Stmt{b.Y}}, Redirs: []*syntax.Redirect{{Op: syntax.RdrIn, Word: litWord(f)}}}
	st.Cmd = &syntax.Block{Stmts: []*syntax.Stmt{left, right}}
}
