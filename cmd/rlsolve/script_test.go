package main

import (
	"errors"
	rlexec "github.com/rlsolve/rlsolve/exec"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary act as the rlsolve command inside scripts:
// `exec rlsolve ...` runs run() in a subprocess, exit code included. Run
// with envDumpArg, it is the worker of the environment tests instead.
func TestMain(m *testing.M) {
	if len(os.Args) == 2 && os.Args[1] == envDumpArg {
		os.Exit(dumpEnv())
	}
	// Launches run in-process start their guardian as this binary.
	if len(os.Args) >= 2 && os.Args[1] == rlexec.GuardCommand {
		os.Exit(run(os.Args[1:]))
	}
	testscript.Main(m, map[string]func(){
		"rlsolve": func() { os.Exit(run(os.Args[1:])) },
	})
}

// TestScript runs the end-to-end CLI scripts in testdata/script. Each script
// starts in a fresh $WORK holding its own files plus a copy of the
// repository's examples/ folder, so scripts can check the shipped examples
// (and their READMEs) as they are.
func TestScript(t *testing.T) {
	examples, err := filepath.Abs(filepath.Join("..", "..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			// Diagnostics must be plain text whatever the terminal.
			env.Setenv("NO_COLOR", "1")
			return copyTree(examples, filepath.Join(env.WorkDir, "examples"))
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":         cmdExits,
			"unescape":      cmdUnescape,
			"readme-output": cmdReadmeOutput,
			"ray-dashboard": cmdRayDashboard,
		},
	})
}

// cmdExits is `exits CODE [-within DURATION] program [args...]`: run the
// program like exec, and require exactly that exit code (and, with -within,
// that it finishes in time). exec only tells zero from non-zero, while the
// CLI's contract distinguishes 1 (invalid config) from 2 (usage or I/O).
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("exits does not support !")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exits CODE [-within DURATION] program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	args = args[1:]
	var within time.Duration
	if args[0] == "-within" && len(args) >= 3 {
		within, err = time.ParseDuration(args[1])
		ts.Check(err)
		args = args[2:]
	}
	start := time.Now()
	err = ts.Exec(args[0], args[1:]...)
	took := time.Since(start)
	got := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("running %s: %v", args[0], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[0], got, want)
	}
	if within > 0 && took > within {
		ts.Fatalf("%s took %v, want at most %v", args[0], took, within)
	}
}

// cmdUnescape is `unescape SRC DST`: write DST from SRC with Go escapes
// (\r, \t, \xff, \ufeff) decoded on every line. It makes byte-exact inputs
// (BOMs, CRLF, tabs, invalid UTF-8) readable in a txtar file. Double quotes
// in SRC are literal.
func cmdUnescape(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: unescape SRC DST")
	}
	lines := strings.SplitAfter(ts.ReadFile(args[0]), "\n")
	var out strings.Builder
	for _, line := range lines {
		body, nl := strings.CutSuffix(line, "\n")
		s, err := strconv.Unquote(`"` + strings.ReplaceAll(body, `"`, `\"`) + `"`)
		if err != nil {
			ts.Fatalf("unescape %s: line %q: %v", args[0], body, err)
		}
		out.WriteString(s)
		if nl {
			out.WriteString("\n")
		}
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(out.String()), 0o666))
}

// cmdReadmeOutput is `readme-output README [N] DST`: copy the command
// output an example's README shows (the lines between the `$ rlsolve ...`
// line and the `$ echo $?` line of its code block; with N, of its N-th
// `$ rlsolve` command, counted from 1) to DST, to compare with cmp.
func cmdReadmeOutput(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 && len(args) != 3 {
		ts.Fatalf("usage: readme-output README [N] DST")
	}
	want := 0 // every command's output
	if len(args) == 3 {
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 {
			ts.Fatalf("readme-output: N must be a command's number from 1, not %q", args[1])
		}
		want, args = n, []string{args[0], args[2]}
	}
	var out []string
	in, cmd := false, 0
	for _, line := range strings.Split(ts.ReadFile(args[0]), "\n") {
		switch {
		case strings.HasPrefix(line, "$ rlsolve "):
			cmd++
			in = want == 0 || cmd == want
		case strings.HasPrefix(line, "$ echo $?"):
			in = false
		case in:
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		ts.Fatalf("%s shows no `$ rlsolve` output", args[0])
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(strings.Join(out, "\n")+"\n"), 0o666))
}

// copyTree copies the regular files under src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o777)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o666)
	})
}
