package exec

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"sync"
	"syscall"
)

// guardConn is launch's side of the guardian: the ops it sends, the events
// it reads, and the workers' output it passes on to launch's own.
type guardConn struct {
	cmd    *osexec.Cmd
	mu     sync.Mutex // ctl
	ctl    *os.File
	enc    *json.Encoder
	events chan guardEvent // closed when the guardian's events end
	relays sync.WaitGroup
	exited chan struct{} // closed once the guardian is reaped
	err    error         // how it ended
}

// startGuard starts the guardian (argv: the launch binary and
// GuardCommand) in its own process group (a terminal's signals are
// launch's), in env, and sends it the run.
func startGuard(argv, env []string, spec *guardSpec, dir *runDir, sink *lineSink) (*guardConn, error) {
	if len(argv) == 0 {
		return nil, errors.New("no guardian program")
	}
	var parent, child []*os.File // launch's ends, the guardian's
	closeAll := func(fs []*os.File) {
		for _, f := range fs {
			_ = f.Close()
		}
	}
	pipe := func(childReads bool) error {
		r, w, err := os.Pipe()
		if err != nil {
			return err
		}
		if childReads {
			parent, child = append(parent, w), append(child, r)
		} else {
			parent, child = append(parent, r), append(child, w)
		}
		return nil
	}
	// control, events, stdout, stderr
	for _, childReads := range []bool{true, false, false, false} {
		if err := pipe(childReads); err != nil {
			closeAll(parent)
			closeAll(child)
			return nil, fmt.Errorf("guardian pipes: %w", err)
		}
	}
	cmd := osexec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = child[0], child[1], os.Stderr
	cmd.ExtraFiles = []*os.File{child[2], child[3]}
	if dir != nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, dir.f)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err := cmd.Start()
	closeAll(child)
	if err != nil {
		closeAll(parent)
		return nil, fmt.Errorf("starting the guardian (%s): %w", argv[0], err)
	}
	g := &guardConn{cmd: cmd, ctl: parent[0], enc: json.NewEncoder(parent[0]), events: make(chan guardEvent, 64), exited: make(chan struct{})}
	go func() {
		g.err = cmd.Wait()
		close(g.exited)
	}()
	go g.readEvents(parent[1])
	g.relays.Add(2)
	go g.relay(parent[2], sink, false)
	go g.relay(parent[3], sink, true)
	if err := g.send(spec); err != nil {
		return g, fmt.Errorf("sending the run to the guardian: %w", err)
	}
	return g, nil
}

// send writes one JSON line to the guardian.
func (g *guardConn) send(v any) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ctl == nil {
		return os.ErrClosed
	}
	return g.enc.Encode(v)
}

func (g *guardConn) op(op guardOp) { _ = g.send(op) } // a dead guardian shows as its events ending

func (g *guardConn) closeCtl() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ctl != nil {
		_ = g.ctl.Close()
		g.ctl = nil
	}
}

// wait waits for the guardian's output and exit (its events are read by
// the run's translator).
func (g *guardConn) wait() {
	g.relays.Wait()
	<-g.exited
}

func (g *guardConn) readEvents(r *os.File) {
	defer close(g.events)
	defer r.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	for {
		var ev guardEvent
		if err := dec.Decode(&ev); err != nil {
			return
		}
		g.events <- ev
	}
}

// relay passes the guardian's stream of whole lines on, whole lines at a
// time (a read may end inside a line).
func (g *guardConn) relay(r *os.File, sink *lineSink, stderr bool) {
	defer g.relays.Done()
	defer r.Close()
	buf := make([]byte, 256<<10)
	carry := 0
	for {
		n, err := r.Read(buf[carry:])
		n += carry
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			sink.write(stderr, buf[:i+1])
			carry = copy(buf, buf[i+1:n])
		} else {
			carry = n
		}
		if carry == len(buf) { // a long line: room for it (MaxLine and its prefix)
			if len(buf) >= 4*MaxLine {
				sink.write(stderr, append(buf[:carry:carry], '\n'))
				carry = 0
			} else {
				buf = append(buf, make([]byte, len(buf))...)
			}
		}
		if err != nil {
			if carry > 0 && err == io.EOF {
				sink.write(stderr, append(buf[:carry:carry], '\n'))
			}
			return
		}
	}
}
