package exec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestSplitArgs(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"python train.py --lr 1e-4", []string{"python", "train.py", "--lr", "1e-4"}},
		{"  a\t b\n c  ", []string{"a", "b", "c"}},
		{`python -c 'print("hi there")'`, []string{"python", "-c", `print("hi there")`}},
		{`echo "a \"quoted\" \\ word" 'it''s'`, []string{"echo", `a "quoted" \ word`, "its"}},
		{`a\ b c\'d`, []string{"a b", "c'd"}},
		{`x '' "" y`, []string{"x", "", "", "y"}},
		{`$HOME ~ *.py a|b c;d >out $(rm -rf /) ` + "`id`", []string{"$HOME", "~", "*.py", "a|b", "c;d", ">out", "$(rm", "-rf", "/)", "`id`"}},
		{`"$HOME" '$(id)'`, []string{"$HOME", "$(id)"}},
		{`"a\nb"`, []string{`a\nb`}},
		{"a\\\nb", []string{"ab"}},
		{"", nil},
		{"   ", nil},
	}
	for _, c := range cases {
		got, err := SplitArgs(c.in)
		if err != nil || fmt.Sprintf("%q", got) != fmt.Sprintf("%q", c.want) {
			t.Errorf("SplitArgs(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{`'open`, `"open`, `trailing\`, `a "b c`} {
		if got, err := SplitArgs(in); err == nil {
			t.Errorf("SplitArgs(%q) = %q, want an error", in, got)
		}
	}
}

func TestMergeEnv(t *testing.T) {
	base := []string{"PATH=/usr/bin:/bin", "PYTHONPATH=/a:/b", "HOME=/root", "CUDA_VISIBLE_DEVICES=0,1,2,3", "DUP=1", "DUP=2", "NOEQUALS"}
	got := MergeEnv(base, map[string]string{"PYTHONPATH": "/new:/a", "HOME": "/home/x", "NEW": "v", "LD_LIBRARY_PATH": "/lib"}, "CUDA_VISIBLE_DEVICES")
	want := []string{"DUP=2", "HOME=/home/x", "LD_LIBRARY_PATH=/lib", "NEW=v", "PATH=/usr/bin:/bin", "PYTHONPATH=/new:/a:/b"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("MergeEnv = %q\nwant %q", got, want)
	}
	// A planned value wins over an unset; override mode replaces paths.
	got = MergeEnv(base, map[string]string{"CUDA_VISIBLE_DEVICES": "5", "PATH": "/opt/bin", "RLINF_PATH_ENV_MERGE_MODE": "override"}, "CUDA_VISIBLE_DEVICES")
	if v, _ := envValue(got, "CUDA_VISIBLE_DEVICES"); v != "5" {
		t.Errorf("CUDA_VISIBLE_DEVICES = %q", v)
	}
	if v, _ := envValue(got, "PATH"); v != "/opt/bin" {
		t.Errorf("override PATH = %q", v)
	}
}

func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "prog")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plain"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=relative:" + dir + ":/usr/bin"}
	if p, err := LookPath("prog", env); err != nil || p != exe {
		t.Errorf("LookPath(prog) = %q, %v", p, err)
	}
	if _, err := LookPath("plain", env); err == nil {
		t.Error("a file without x bits was found")
	}
	if _, err := LookPath(filepath.Join(dir, "plain"), env); err == nil || !strings.Contains(err.Error(), "permission") {
		t.Errorf("LookPath(non-executable) = %v", err)
	}
	if _, err := LookPath("no-such-program-rlsolve", env); err == nil {
		t.Error("found a program that does not exist")
	}
}

func TestInterpreterArgv(t *testing.T) {
	for _, c := range []struct {
		argv   []string
		interp string
		want   string
	}{
		{[]string{"python", "x.py"}, "/venv/bin/python", "[/venv/bin/python x.py]"},
		{[]string{"python3", "-m", "m"}, "/venv/bin/python", "[/venv/bin/python -m m]"},
		{[]string{"python", "x.py"}, "", "[python x.py]"},
		{[]string{"/usr/bin/python3", "x.py"}, "/venv/bin/python", "[/usr/bin/python3 x.py]"},
		{[]string{"torchrun", "python"}, "/venv/bin/python", "[torchrun python]"},
	} {
		if got := fmt.Sprint(InterpreterArgv(c.argv, c.interp)); got != c.want {
			t.Errorf("InterpreterArgv(%q, %q) = %s, want %s", c.argv, c.interp, got, c.want)
		}
	}
}

func TestLineWriter(t *testing.T) {
	out := &output{}
	logf, err := os.Create(filepath.Join(t.TempDir(), "w.log"))
	if err != nil {
		t.Fatal(err)
	}
	log := &workerLog{f: logf, path: logf.Name()}
	sink := &lineSink{out: out}
	w := newLineWriter("a/1: ", sink, false, log)
	w.max = 8
	for _, piece := range []string{"he", "llo\nwor", "ld\n\n", "0123456789abcdefXYZ", "\nlast"} {
		_, _ = w.Write([]byte(piece))
	}
	w.Close()
	sink.close()
	want := "a/1: hello\na/1: world\na/1: \na/1: 01234567\na/1: 89abcdef\na/1: XYZ\na/1: last\n"
	if out.String() != want || out.broken > 0 {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	_ = log.close()
	data, _ := os.ReadFile(logf.Name())
	if string(data) != "hello\nworld\n\n01234567\n89abcdef\nXYZ\nlast\n" {
		t.Errorf("log %q", data)
	}
}

func TestLogName(t *testing.T) {
	for in, want := range map[string]string{"actor": "actor-3.log", "../etc": ".._etc-3.log", "a b/c": "a_b_c-3.log", "..": "_..-3.log", "": "_-3.log"} {
		if got := logName(in, 3); got != want {
			t.Errorf("logName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseLabel(t *testing.T) {
	for in, want := range map[string]string{
		"0: hello":         "0 hello true",
		" 7: x":            "7 x true",
		"12: ":             "12  true",
		"12:":              "12  true",
		"3:x":              "0  false",
		"srun: error: n1":  "0  false",
		": x":              "0  false",
		"1234567890: long": "0  false",
	} {
		n, p, ok := parseLabel([]byte(in))
		if got := fmt.Sprintf("%d %s %v", n, p, ok); got != want {
			t.Errorf("parseLabel(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"Exited with exit code 3":          "3 0 ",
		"Killed":                           fmt.Sprintf("-1 %d ", syscall.SIGKILL),
		"Segmentation fault (core dumped)": fmt.Sprintf("-1 %d ", syscall.SIGSEGV),
		"Out Of Memory":                    "1 0 Out Of Memory",
	} {
		code, sig, text := parseTaskEnd(in)
		if got := fmt.Sprintf("%d %d %s", code, sig, text); got != want {
			t.Errorf("parseTaskEnd(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSrunParser feeds srun's labelled output the way srun 22.05 writes it
// (lines of 1024+ bytes in 1024-byte pieces, each ended by srun) and gets
// the tasks' lines back whole; srun's own lines report task ends.
func TestSrunParser(t *testing.T) {
	out := &output{}
	sink := &lineSink{out: out, err: out}
	var ends []taskEnd
	p := &srunParser{component: "actor", sink: sink, stderr: true, taskEnded: func(t taskEnd) { ends = append(ends, t) }, last: &lastLine{},
		writers: []*lineWriter{newLineWriter("actor/0: ", sink, true, nil), newLineWriter("actor/1: ", sink, true, nil)}}
	long := strings.Repeat("x", 2500)
	exact := strings.Repeat("y", 1024)
	feed := []string{
		"0: " + long[:1024], "1: short", "0: " + long[1024:2048], "1: " + exact, "0: " + long[2048:], "1: ",
		"srun: error: n2: tasks 0-1: Exited with exit code 3", "srun: error: n1: task 1: Killed",
	}
	for _, l := range feed {
		p.line([]byte(l))
	}
	sink.close()
	want := "actor/1: short\nactor/0: " + long + "\nactor/1: " + exact + "\n" +
		"actor: srun: error: n2: tasks 0-1: Exited with exit code 3\nactor: srun: error: n1: task 1: Killed\n"
	if out.String() != want {
		t.Errorf("got\n%q\nwant\n%q", out.String(), want)
	}
	var got []string
	for _, e := range ends {
		got = append(got, fmt.Sprintf("%d %s %d %s", e.Task, e.Host, e.Code, signalName(e.Signal)))
	}
	if fmt.Sprint(got) != "[0 n2 3 signal 0 1 n2 3 signal 0 1 n1 -1 SIGKILL]" {
		t.Errorf("events %q", got)
	}
	if p.last.get() != "srun: error: n1: task 1: Killed" {
		t.Errorf("last = %q", p.last.get())
	}
}

func TestReport(t *testing.T) {
	r := &Report{Total: 4, Elapsed: time.Second, LogDir: "logs/x"}
	if r.ExitCode() != 0 || !strings.Contains(r.Summary(), "all 4 worker(s) exited with status 0") {
		t.Errorf("%d %s", r.ExitCode(), r.Summary())
	}
	r.First = &WorkerResult{Component: "actor", Rank: 2, Host: "n1", Started: true, ExitCode: -1, Signal: syscall.SIGSEGV, At: time.Second}
	if r.ExitCode() != 139 || !strings.Contains(r.Summary(), "actor/2 on n1 failed first, after 1s: killed by SIGSEGV; exit status 139") {
		t.Errorf("%d %s", r.ExitCode(), r.Summary())
	}
	r.First = &WorkerResult{Component: "actor", Rank: 2, Err: "no such file"}
	if r.ExitCode() != 127 || !strings.Contains(r.Summary(), "could not start: no such file") {
		t.Errorf("%d %s", r.ExitCode(), r.Summary())
	}
	r = &Report{Total: 3, Interrupted: syscall.SIGINT}
	if r.ExitCode() != 130 || !strings.Contains(r.Summary(), "interrupted by SIGINT") {
		t.Errorf("%d %s", r.ExitCode(), r.Summary())
	}
	if (&WorkerResult{Component: "env", Rank: -1}).Name() != "env (srun)" {
		t.Error("srun result name")
	}
}

// Launch's own failures exit in 120-125, apart from every worker status;
// a worker status inside that range is passed as 120.
func TestExitCodes(t *testing.T) {
	worker := func(code int) *WorkerResult {
		return &WorkerResult{Component: "actor", Rank: 1, Started: true, ExitCode: code}
	}
	for _, tc := range []struct {
		name    string
		rep     Report
		code    int
		outcome string
	}{
		{"ok", Report{}, 0, "ok"},
		{"worker 1", Report{First: worker(1)}, 1, "worker_failed"},
		{"worker 2", Report{First: worker(2)}, 2, "worker_failed"},
		{"worker 119", Report{First: worker(119)}, 119, "worker_failed"},
		{"worker 122", Report{First: worker(122)}, ExitWorkerInRange, "worker_failed"},
		{"worker 126", Report{First: worker(126)}, 126, "worker_failed"},
		{"worker SIGSEGV", Report{First: &WorkerResult{Started: true, ExitCode: -1, Signal: syscall.SIGSEGV}}, 139, "worker_failed"},
		{"interrupted", Report{Interrupted: syscall.SIGHUP}, 129, "interrupted"},
		{"usage", Report{Err: Errorf(ExitUsage, "bad")}, 122, "launch_error"},
		{"lost", Report{Lost: "the guardian died", First: worker(3)}, ExitLost, "lost"},
	} {
		if got := tc.rep.ExitCode(); got != tc.code || tc.rep.Outcome() != tc.outcome {
			t.Errorf("%s: exit %d %s, want %d %s", tc.name, got, tc.rep.Outcome(), tc.code, tc.outcome)
		}
		if c := tc.rep.ExitCode(); tc.outcome == "worker_failed" && c >= ExitInvalid && c <= ExitInternal {
			t.Errorf("%s: a worker's failure exits in launch's own range (%d)", tc.name, c)
		}
	}
}

// The JSON report: versioned, with whose status it is and every worker.
func TestReportJSON(t *testing.T) {
	r := &Report{ID: "x", Backend: "local", Total: 2, LogDir: "/l/x", Interrupted: syscall.SIGHUP, Forwarded: syscall.SIGTERM,
		Workers: []WorkerResult{
			{Component: "actor", Rank: 0, Host: "n1", Started: true, ExitCode: 0, Stopped: true, At: 1500 * time.Millisecond, Log: "/l/x/actor-0.log"},
			{Component: "actor", Rank: 1, Host: "n1", Started: true, ExitCode: -1, Signal: syscall.SIGKILL, Stopped: true, Killed: true},
		}, Killed: 1, Notes: []string{"a note"}}
	path := filepath.Join(t.TempDir(), "report.json")
	if err := WriteReport(path, r); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"format_version": "1"`, `"exit_status": 129`, `"outcome": "interrupted"`, `"interrupted_by": "SIGHUP"`,
		`"forwarded_as": "SIGTERM"`, `"status": 137`, `"signal": "SIGKILL"`, `"exit_code": null`, `"exit_code": 0`, `"ended_after_s": 1.5`,
		`"log": "/l/x/actor-0.log"`, `"killed": true`, `"notes": [`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("report lacks %s:\n%s", want, data)
		}
	}
	// A failed launch's report says so.
	r = &Report{Backend: "local", Err: Errorf(ExitStart, "no guardian")}
	if err := WriteReport(path, r); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path)
	if !strings.Contains(string(data), `"outcome": "launch_error"`) || !strings.Contains(string(data), `"exit_status": 123`) ||
		!strings.Contains(string(data), `"error": "no guardian"`) || !strings.Contains(string(data), `"workers": []`) {
		t.Errorf("failed launch report:\n%s", data)
	}
	if !strings.Contains(r.Summary(), "exit status 123") {
		t.Errorf("summary %q", r.Summary())
	}
}
