package exec

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func nothing(string, ...any) {}

// A run's directory is new: the same id twice is refused, never reused;
// latest points at the newest run.
func TestRunDirIsNew(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "logs")
	a, err := makeRunDir(parent, "run-a", nothing)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	if _, err := makeRunDir(parent, "run-a", nothing); !errors.Is(err, os.ErrExist) {
		t.Errorf("the same run directory twice: %v", err)
	}
	b, err := makeRunDir(parent, "run-b", nothing)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	if got, _ := os.Readlink(filepath.Join(parent, LatestLink)); got != "run-b" {
		t.Errorf("latest -> %q", got)
	}
	if st, err := os.Stat(a.path); err != nil || !st.IsDir() || st.Mode().Perm() != 0o750 {
		t.Errorf("%s: %v %v", a.path, st.Mode(), err)
	}
}

// Links planted where launch writes are never written through: the run's
// directory, a log file, latest.
func TestRunDirPlantedLinks(t *testing.T) {
	root := t.TempDir()
	parent := filepath.Join(root, "logs")
	victim := filepath.Join(root, "victim")
	if err := os.MkdirAll(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(victim, "secret")
	if err := os.WriteFile(secret, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The run's directory itself, planted as a link to the victim.
	if err := os.Symlink(victim, filepath.Join(parent, "run-x")); err != nil {
		t.Fatal(err)
	}
	if d, err := makeRunDir(parent, "run-x", nothing); err == nil {
		d.close()
		t.Error("a planted link as the run's directory was used")
	}
	// latest planted as a link to the victim: the link is replaced, the
	// victim is left alone.
	if err := os.Symlink(victim, filepath.Join(parent, LatestLink)); err != nil {
		t.Fatal(err)
	}
	d, err := makeRunDir(parent, "run-y", nothing)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	if got, _ := os.Readlink(filepath.Join(parent, LatestLink)); got != "run-y" {
		t.Errorf("latest -> %q", got)
	}
	// A log file name planted as a link (a race inside the directory):
	// created exclusively, without following it.
	if err := os.Symlink(secret, filepath.Join(d.path, "actor-0.log")); err != nil {
		t.Fatal(err)
	}
	if _, err := openLogs(d.f, []string{"actor-0.log"}); err == nil {
		t.Error("a planted link was opened as a log file")
	}
	if _, err := createIn(d.f, "actor-0.log", 0o640); err == nil {
		t.Error("createIn followed a planted link")
	}
	if data, _ := os.ReadFile(secret); string(data) != "keep me\n" {
		t.Errorf("the link's target was written: %q", data)
	}
	if ents, _ := os.ReadDir(victim); len(ents) != 1 {
		t.Errorf("the victim directory got files: %v", ents)
	}
	// latest as a real directory: the run goes on, with a note.
	parent2 := filepath.Join(root, "logs2")
	if err := os.MkdirAll(filepath.Join(parent2, LatestLink), 0o755); err != nil {
		t.Fatal(err)
	}
	var notes []string
	d2, err := makeRunDir(parent2, "run-z", func(f string, a ...any) { notes = append(notes, f) })
	if err != nil || len(notes) != 1 {
		t.Errorf("latest as a directory: %v, notes %q", err, notes)
	}
	d2.close()
}

// Names that differ only in replaced characters get distinct log files.
func TestLogNamesUnique(t *testing.T) {
	ws := []*Worker{{Component: "a b", Rank: 0}, {Component: "a_b", Rank: 0}, {Component: "a/b", Rank: 0}, {Component: "a_b", Rank: 1}}
	got := strings.Join(logNames(ws), " ")
	if got != "a_b-0.log a_b~2-0.log a_b~3-0.log a_b-1.log" {
		t.Errorf("logNames = %s", got)
	}
}

func TestDefaultLogDir(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_STATE_HOME": "/x/state", "HOME": "/home/u"}, "/x/state/rlsolve/logs"},
		{map[string]string{"XDG_STATE_HOME": "relative", "HOME": "/home/u"}, "/home/u/.local/state/rlsolve/logs"},
		{map[string]string{"HOME": "/home/u"}, "/home/u/.local/state/rlsolve/logs"},
		{map[string]string{}, "error"},
	} {
		got, err := DefaultLogDir(func(k string) string { return tc.env[k] })
		if err != nil {
			got = "error"
		}
		if got != tc.want {
			t.Errorf("%v: %s, want %s", tc.env, got, tc.want)
		}
	}
}

// Two launches at once into the same log directory: each its own run
// directory, every line of each in its own files; an earlier run's logs
// are left as they were.
func TestConcurrentLaunchLogs(t *testing.T) {
	o := loadPlan(t, "many.yaml", "")
	parent := t.TempDir()
	earlier := filepath.Join(parent, "20000101-000000-00000000")
	if err := os.MkdirAll(earlier, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(earlier, "a-0.log"), []byte("an earlier run\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	reps := make([]*Report, 2)
	for i := range reps {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			job := newTestJob(t, o.Result, map[string][]string{"a": workerArgv(t, "lines", "10")})
			rep, err := Local{}.Launch(context.Background(), job, Options{Environ: baseEnv, LogDir: parent})
			if err != nil || rep.ExitCode() != 0 {
				t.Errorf("launch %d: %v %v", i, err, rep)
				return
			}
			reps[i] = rep
		}(i)
	}
	wg.Wait()
	if reps[0] == nil || reps[1] == nil {
		return
	}
	if reps[0].LogDir == reps[1].LogDir {
		t.Fatalf("both launches wrote into %s", reps[0].LogDir)
	}
	for _, rep := range reps {
		for r := 0; r < 8; r++ {
			data, err := os.ReadFile(filepath.Join(rep.LogDir, "a-"+string(rune('0'+r))+".log"))
			if err != nil {
				t.Fatal(err)
			}
			// START and 10 numbered lines, all of worker a:r.
			if n := strings.Count(string(data), "\n"); n != 11 || strings.Count(string(data), " a:"+string(rune('0'+r))+" ") != 10 {
				t.Errorf("%s/a-%d.log: %d lines:\n%s", rep.LogDir, r, n, data)
			}
		}
	}
	if data, _ := os.ReadFile(filepath.Join(earlier, "a-0.log")); string(data) != "an earlier run\n" {
		t.Errorf("the earlier run's log became %q", data)
	}
}
