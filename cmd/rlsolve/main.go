// Command rlsolve checks, plans and explains GPU-cluster placements for
// reinforcement-learning training (RLinf and slime layouts).
package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/rlsolve/rlsolve/diag"
)

// Exit codes (design.md): 0 ok, 1 invalid config or no feasible placement,
// 2 usage or I/O error, 3 internal error or solver budget exceeded.
const (
	exitOK       = 0
	exitInvalid  = 1
	exitUsage    = 2
	exitInternal = 3
)

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, msg: fmt.Sprintf(format, args...)}
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(os.Stderr, "rlsolve: internal error: %v\n%s\nPlease report this with the input that caused it.\n", r, debug.Stack())
			code = exitInternal
		}
	}()
	root := newRoot()
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(os.Stderr, "rlsolve: "+diag.PrintableLines(ee.msg))
		}
		return ee.code
	}
	// cobra's own errors are usage errors (unknown flag, wrong arguments).
	fmt.Fprintln(os.Stderr, "rlsolve: "+diag.PrintableLines(err.Error()))
	fmt.Fprintln(os.Stderr, "Run 'rlsolve --help' for usage.")
	return exitUsage
}
