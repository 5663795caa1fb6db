package exec

import (
	"bytes"
	"fmt"
	"os"
	"sync"

	"github.com/rlsolve/rlsolve/diag"
)

// MaxLine is the longest output line kept whole; a longer line is passed
// on in pieces of MaxLine bytes, each on a line of its own.
const MaxLine = 1 << 20

// workerLog is one worker's log file, shared by its stdout and stderr.
type workerLog struct {
	mu   sync.Mutex
	f    *os.File
	path string
	err  error
}

func (l *workerLog) write(b []byte) {
	if l == nil || len(b) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil || l.err != nil {
		return
	}
	if _, err := l.f.Write(b); err != nil {
		l.err = err
	}
}

func (l *workerLog) close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return l.err
	}
	err := l.f.Close()
	l.f = nil
	if l.err != nil {
		return l.err
	}
	return err
}

// openLogs creates one log file per worker in the run directory (nil
// when the run keeps no logs; "" names no file).
func openLogs(dir *os.File, names []string) ([]*workerLog, error) {
	logs := make([]*workerLog, len(names))
	if dir == nil {
		return logs, nil
	}
	for i, name := range names {
		if name == "" {
			continue
		}
		f, err := createIn(dir, name, 0o640)
		if err != nil {
			for _, l := range logs[:i] {
				_ = l.close()
			}
			return nil, fmt.Errorf("log file: %w", err)
		}
		logs[i] = &workerLog{f: f, path: f.Name()}
	}
	return logs, nil
}

// lineWriter turns one output stream of one worker into whole lines:
// prefixed on the sink, plain in the worker's log. It is used by one
// goroutine at a time.
type lineWriter struct {
	prefix []byte
	sink   *lineSink
	stderr bool
	log    *workerLog
	carry  []byte // the unfinished last line
	out    []byte // prefixed lines waiting for the sink
	raw    []byte // plain lines waiting for the log
	max    int
}

// The prefix, made of names from the config, is printed escaped
// (diag.Printable); the worker's own text is passed on as it is.
func newLineWriter(prefix string, sink *lineSink, stderr bool, log *workerLog) *lineWriter {
	return &lineWriter{prefix: []byte(diag.Printable(prefix)), sink: sink, stderr: stderr, log: log, max: MaxLine}
}

// Write takes any piece of the stream; only complete lines go out.
func (w *lineWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.carry = append(w.carry, p...)
			// A line of exactly max bytes waits for its newline rather than
			// leaving an empty piece behind.
			for len(w.carry) > w.max {
				w.addLine(w.carry[:w.max])
				w.carry = append(w.carry[:0], w.carry[w.max:]...)
			}
			break
		}
		if len(w.carry) > 0 {
			w.carry = append(w.carry, p[:i]...)
			w.addLine(w.carry)
			w.carry = w.carry[:0]
		} else {
			w.addLine(p[:i])
		}
		p = p[i+1:]
	}
	w.flush()
	return n, nil
}

func (w *lineWriter) addLine(line []byte) {
	for len(line) > w.max {
		w.addLine(line[:w.max])
		line = line[w.max:]
	}
	w.out = append(w.out, w.prefix...)
	w.out = append(w.out, line...)
	w.out = append(w.out, '\n')
	if w.log != nil {
		w.raw = append(w.raw, line...)
		w.raw = append(w.raw, '\n')
	}
	if len(w.out) >= 256<<10 {
		w.flush()
	}
}

// flush writes the log first: the log files never wait for the terminal.
func (w *lineWriter) flush() {
	w.log.write(w.raw)
	w.sink.write(w.stderr, w.out)
	if cap(w.out) > 1<<20 {
		w.out, w.raw = nil, nil
	}
	w.out, w.raw = w.out[:0], w.raw[:0]
}

// Close passes on an unfinished last line (with a newline).
func (w *lineWriter) Close() {
	if len(w.carry) > 0 {
		w.addLine(w.carry)
		w.carry = nil
	}
	w.flush()
}
