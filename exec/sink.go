package exec

import (
	"bytes"
	"sync"
	"time"
)

// lineSink passes whole lines on to stdout and stderr without making the
// workers wait for them: a console that stops reading (`| less`, Ctrl-S, a
// stopped launch) must not stall the workers or their log files. Lines
// are queued, up to sinkBuffer bytes, and written in order by one
// goroutine, so that with 2>&1 no line is ever cut by another. A full
// queue makes the caller wait while the writes go on; once the terminal
// has taken nothing for stuckAfter, lines are dropped instead (for the
// terminal only: the logs have them) and counted, until the writes move
// again. A stream whose write fails (a closed pipe: `launch ... | head`,
// a terminal gone) is no longer written. The zero value with out and err
// set is ready; close ends it.
type lineSink struct {
	out, err Writer

	mu      sync.Mutex
	started bool
	pending []byte
	segs    []sinkSeg // pending's streams, in order
	lines   int       // lines in pending
	busy    int       // lines in the write under way
	spare   []byte
	// writing says a write is under way, since writeStart.
	writing    bool
	writeStart time.Time
	dead       [2]bool
	dropped    int
	closing    bool
	wake       chan struct{}
	progress   chan struct{} // closed (and replaced) after each write
	done       chan struct{}
}

// sinkSeg is a run of pending bytes for one stream, ending at end.
type sinkSeg struct {
	stderr bool
	end    int
}

const (
	// sinkBuffer is how much output waits for a slow terminal (more than
	// a line of MaxLine and its prefix).
	sinkBuffer = 8 << 20
	// stuckAfter is how long the terminal may take nothing before lines
	// are dropped rather than waited for.
	stuckAfter = 2 * time.Second
	// sinkPiece bounds one write to the terminal (whole lines).
	sinkPiece = 64 << 10
)

// write queues b, whole lines, for stdout or stderr.
func (s *lineSink) write(stderr bool, b []byte) {
	i, w := 0, s.out
	if stderr {
		i, w = 1, s.err
	}
	if len(b) == 0 || w == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.start()
	if s.dead[i] || s.closing {
		return
	}
	for len(s.pending) > 0 && len(s.pending)+len(b) > sinkBuffer {
		if s.stuck() || s.closing {
			s.dropped += bytes.Count(b, []byte{'\n'})
			return
		}
		ch := s.progress
		s.mu.Unlock()
		select {
		case <-ch:
		case <-time.After(stuckAfter / 4):
		}
		s.mu.Lock()
	}
	if s.dead[i] || s.closing {
		return
	}
	s.pending = append(s.pending, b...)
	if n := len(s.segs); n > 0 && s.segs[n-1].stderr == stderr {
		s.segs[n-1].end = len(s.pending)
	} else {
		s.segs = append(s.segs, sinkSeg{stderr: stderr, end: len(s.pending)})
	}
	s.lines += bytes.Count(b, []byte{'\n'})
	s.poke()
}

// start starts the writer, once (s.mu held).
func (s *lineSink) start() {
	if s.started {
		return
	}
	s.started = true
	s.wake = make(chan struct{}, 1)
	s.progress = make(chan struct{})
	s.done = make(chan struct{})
	go s.loop()
}

func (s *lineSink) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// stuck reports whether the piece being written has taken stuckAfter
// (s.mu held).
func (s *lineSink) stuck() bool {
	return s.writing && time.Since(s.writeStart) >= stuckAfter
}

// loop writes what is queued until close.
func (s *lineSink) loop() {
	defer close(s.done)
	for {
		s.mu.Lock()
		for len(s.pending) == 0 && !s.closing {
			s.mu.Unlock()
			<-s.wake
			s.mu.Lock()
		}
		if len(s.pending) == 0 {
			s.mu.Unlock()
			return
		}
		buf, segs := s.pending, s.segs
		s.pending, s.segs, s.spare = s.spare[:0], nil, nil
		s.busy, s.lines = s.lines, 0
		s.writing, s.writeStart = true, time.Now()
		s.mu.Unlock()
		s.writeSegs(buf, segs)
		s.mu.Lock()
		s.writing, s.busy = false, 0
		if cap(buf) <= 2*sinkBuffer {
			s.spare = buf[:0]
		}
		close(s.progress)
		s.progress = make(chan struct{})
		s.mu.Unlock()
	}
}

// writeSegs writes a batch, each stream's part in pieces of whole lines
// up to sinkPiece bytes: a piece written is progress (writeStart moves),
// so that only a terminal that takes nothing for stuckAfter is stuck.
func (s *lineSink) writeSegs(buf []byte, segs []sinkSeg) {
	from := 0
	for _, sg := range segs {
		i, w := 0, s.out
		if sg.stderr {
			i, w = 1, s.err
		}
		for from < sg.end {
			end := sg.end
			if end-from > sinkPiece {
				if k := bytes.LastIndexByte(buf[from:from+sinkPiece], '\n'); k >= 0 {
					end = from + k + 1
				} else if k := bytes.IndexByte(buf[from+sinkPiece:sg.end], '\n'); k >= 0 {
					end = from + sinkPiece + k + 1
				}
			}
			s.mu.Lock()
			dead := s.dead[i]
			s.writeStart = time.Now()
			s.mu.Unlock()
			if !dead {
				if _, err := w.Write(buf[from:end]); err != nil {
					s.mu.Lock()
					s.dead[i] = true
					s.mu.Unlock()
				}
			}
			from = end
		}
	}
}

// close writes what is queued, unless the terminal is stuck (a write under
// way for stuckAfter): then what is left is dropped. It returns how many
// lines were not shown because the terminal did not take them.
func (s *lineSink) close() int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	if !s.started {
		s.mu.Unlock()
		return 0
	}
	s.closing = true
	s.poke()
	for {
		if s.stuck() {
			s.dropped += s.lines + s.busy
			s.lines, s.busy, s.pending, s.segs = 0, 0, nil, nil
			n := s.dropped
			s.mu.Unlock()
			return n
		}
		ch := s.progress
		s.mu.Unlock()
		select {
		case <-s.done:
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.dropped
		case <-ch:
		case <-time.After(stuckAfter / 4):
		}
		s.mu.Lock()
	}
}
