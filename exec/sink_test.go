package exec

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// stuckWriter is a terminal that stops reading: every Write blocks until
// the test ends.
type stuckWriter struct {
	release chan struct{}
	once    sync.Once
}

func (w *stuckWriter) Write(p []byte) (int, error) {
	<-w.release
	return len(p), nil
}

func (w *stuckWriter) free() { w.once.Do(func() { close(w.release) }) }

// TestStuckTerminal: a stdout that stops reading (`| less`, Ctrl-S) while
// 64 workers print 300,032 lines: every line reaches the log files, the
// launch ends, and it says how many lines the terminal did not get.
func TestStuckTerminal(t *testing.T) {
	o := loadPlan(t, "many.yaml", "")
	const n = 4688 // lines per worker: 64 × 4,688 = 300,032
	job := newTestJob(t, o.Result, allRun(o.Result, workerArgv(t, "lines", strconv.Itoa(n))))
	stuck := &stuckWriter{release: make(chan struct{})}
	defer stuck.free()
	errOut := &output{}
	rep, err := Local{Oversubscribe: true}.Launch(context.Background(), job, Options{Stdout: stuck, Stderr: errOut, Environ: baseEnv, LogDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ExitCode() != 0 {
		t.Fatalf("%s", rep.Summary())
	}
	total := 0
	for _, w := range job.workers() {
		data, err := os.ReadFile(filepath.Join(rep.LogDir, logName(w.Component, w.Rank)))
		if err != nil {
			t.Fatal(err)
		}
		got := bytes.Count(data, []byte("\n"))
		total += got
		if got != n+1 || !bytes.Contains(data, []byte(fmt.Sprintf("\nL %s:%d %d ", w.Component, w.Rank, n-1))) {
			t.Errorf("%s's log has %d lines, want %d", w.Name(), got, n+1)
		}
	}
	if total != 64*(n+1) {
		t.Errorf("%d lines in the logs, want %d", total, 64*(n+1))
	}
	note := ""
	for _, s := range rep.Notes {
		if strings.Contains(s, "lines not shown on the terminal") {
			note = s
		}
	}
	if !strings.HasSuffix(note, "all in the log files") {
		t.Errorf("no note of the lines the terminal missed: %q", rep.Notes)
	}
	if k, _ := strconv.Atoi(strings.Fields(note + " x")[0]); k <= 0 || k > 64*(n+1) {
		t.Errorf("note %q: want a count of lines", note)
	}
}

// TestSinkReader: a terminal that reads gets every line, however much
// more than the queue holds comes at once; nothing is dropped.
func TestSinkReader(t *testing.T) {
	out := &output{}
	s := &lineSink{out: out, err: out}
	line := []byte(strings.Repeat("y", 1000) + "\n")
	for range 20000 { // 20 MB: more than the queue holds
		s.write(false, line)
	}
	if dropped := s.close(); dropped != 0 {
		t.Errorf("%d lines dropped for a terminal that reads", dropped)
	}
	if got := out.count(string(line)); got != 20000 {
		t.Errorf("%d lines written, want 20000", got)
	}
}

// TestSinkStuck: once a write has been under way for stuckAfter, lines
// are dropped and counted, and close does not wait for the terminal.
func TestSinkStuck(t *testing.T) {
	stuck := &stuckWriter{release: make(chan struct{})}
	defer stuck.free()
	s := &lineSink{out: stuck}
	line := []byte(strings.Repeat("z", 1023) + "\n")
	const lines = 3 * sinkBuffer / 1024
	for range lines {
		s.write(false, line)
	}
	if dropped := s.close(); dropped != lines {
		t.Errorf("%d lines counted as not shown, want %d", dropped, lines)
	}
}
