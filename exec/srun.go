package exec

import (
	"bufio"
	"bytes"
	"io"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/rlsolve/rlsolve/diag"
	"github.com/rlsolve/rlsolve/internal/hostlist"
)

// srunParser splits srun's labelled output back into the tasks' streams.
// srun --label writes "N: " before each piece a task sends; slurmstepd
// sends a line of up to 1023 bytes plus its newline as one piece, and a
// longer line in pieces of 1024 bytes without one, each of which srun
// ends with a newline. So a piece of exactly 1024 bytes continues on the
// task's next piece, and the task's lines come back whole.
type srunParser struct {
	// component prefixes srun's own lines.
	component string
	writers   []*lineWriter
	sink      *lineSink
	stderr    bool
	// taskEnded, when set, hears of every task srun reports failed.
	taskEnded func(taskEnd)
	last      *lastLine
}

// taskEnd is a task's end as srun reports it.
type taskEnd struct {
	Task   int
	Host   string
	Code   int // -1 for a signal
	Signal syscall.Signal
	Text   string // what srun said, when it is neither
}

// srunPiece is slurmstepd's message size (MAX_MSG_LEN).
const srunPiece = 1024

var srunTaskRE = regexp.MustCompile(`^srun: error: ([^:\s]+): tasks? ([0-9,\-]+): (.*)$`)

// readSrun reads one of srun's output streams to its end.
func readSrun(r io.Reader, p *srunParser) {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, line...)
			continue
		}
		if len(long) > 0 {
			line = append(long, line...)
			long = long[:0]
		}
		if len(line) > 0 {
			p.line(bytes.TrimSuffix(line, []byte("\n")))
		}
		if err != nil {
			break
		}
	}
	for _, w := range p.writers {
		w.Close()
	}
}

func (p *srunParser) line(l []byte) {
	if task, payload, ok := parseLabel(l); ok && task < len(p.writers) {
		w := p.writers[task]
		if len(payload) == srunPiece {
			_, _ = w.Write(payload)
			return
		}
		_, _ = w.Write(append(payload, '\n'))
		return
	}
	// srun's own line.
	p.sink.write(p.stderr, append([]byte(diag.Printable(p.component)+": "), append(l, '\n')...))
	if !p.stderr {
		return
	}
	s := string(l)
	if p.last != nil && strings.HasPrefix(s, "srun: error:") {
		p.last.set(s)
	}
	m := srunTaskRE.FindStringSubmatch(s)
	if m == nil {
		return
	}
	code, sig, text := parseTaskEnd(m[3])
	tasks, err := hostlist.Ranges(m[2], len(p.writers))
	if err != nil || p.taskEnded == nil {
		return
	}
	for _, t := range tasks {
		if t >= len(p.writers) {
			continue
		}
		p.taskEnded(taskEnd{Task: t, Host: m[1], Code: code, Signal: sig, Text: text})
	}
}

// parseLabel splits "  12: text" into 12 and "text".
func parseLabel(l []byte) (int, []byte, bool) {
	i := 0
	for i < len(l) && l[i] == ' ' {
		i++
	}
	j := i
	for j < len(l) && l[j] >= '0' && l[j] <= '9' {
		j++
	}
	if j == i || j-i > 9 || j >= len(l) || l[j] != ':' {
		return 0, nil, false
	}
	n, _ := strconv.Atoi(string(l[i:j]))
	rest := l[j+1:]
	if len(rest) == 0 {
		return n, rest, true
	}
	if rest[0] != ' ' {
		return 0, nil, false
	}
	return n, rest[1:], true
}

// srunSignals maps strsignal() texts, which srun prints for a task a
// signal ended, back to signals.
var srunSignals = map[string]syscall.Signal{
	"Hangup": syscall.SIGHUP, "Interrupt": syscall.SIGINT, "Quit": syscall.SIGQUIT, "Illegal instruction": syscall.SIGILL,
	"Trace/breakpoint trap": syscall.SIGTRAP, "Aborted": syscall.SIGABRT, "Bus error": syscall.SIGBUS,
	"Floating point exception": syscall.SIGFPE, "Killed": syscall.SIGKILL, "User defined signal 1": syscall.SIGUSR1,
	"Segmentation fault": syscall.SIGSEGV, "User defined signal 2": syscall.SIGUSR2, "Broken pipe": syscall.SIGPIPE,
	"Alarm clock": syscall.SIGALRM, "Terminated": syscall.SIGTERM,
}

// parseTaskEnd reads "Exited with exit code 3" or a signal's description.
func parseTaskEnd(s string) (code int, sig syscall.Signal, text string) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "Exited with exit code "); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil {
			return n, 0, ""
		}
	}
	desc, _, _ := strings.Cut(s, " (core dumped)")
	if sg, ok := srunSignals[desc]; ok {
		return -1, sg, ""
	}
	return 1, 0, s
}
