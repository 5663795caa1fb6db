package raycli

import (
	"strings"

	"github.com/rlsolve/rlsolve/internal/shellquote"
)

// rayPython is a job entrypoint's prefix that runs Python as the Ray on
// the head node does. The job supervisor (the entrypoint shell's parent,
// a Ray worker) is an interpreter that imports ray, but PATH need not lead
// to it: `/venv/bin/ray start` without an activated venv leaves a bare
// python3 first. So: the supervisor's interpreter, with the directory ray
// was loaded from (its _raylet.so in the supervisor's memory map) on
// PYTHONPATH; where /proc says nothing (not Linux), python3 from PATH.
const rayPython = `exe=$(readlink /proc/$PPID/exe 2>/dev/null); ` +
	`so=$(grep -o -m1 '/[^ ]*/ray/_raylet\.so' /proc/$PPID/maps 2>/dev/null); ` +
	`if [ -n "$exe" ] && [ -n "$so" ]; then py="$exe"; export PYTHONPATH="${so%/ray/_raylet.so}${PYTHONPATH:+:$PYTHONPATH}"; else py=python3; fi; ` +
	`exec "$py"`

// Entrypoint is a job's shell command that runs argv under Python
// (`python ARGS...`): python when given ("python3", "/venv/bin/python"),
// else the interpreter the head node's Ray runs on, found as rayPython says.
func Entrypoint(python string, argv ...string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shellquote.Quote(a)
	}
	args := strings.Join(q, " ")
	if python != "" {
		return shellquote.Quote(python) + " " + args
	}
	return rayPython + " " + args
}
