package exec

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// family is a worker with descendants, for the tests that kill launch: it
// starts a child in its own process group that sleeps, and a daemon (a new
// session, without RLSOLVE_LAUNCH_ID) that keeps printing on the worker's
// stdout; it prints "FAMILY pid child daemon", then "L NAME i" every 10ms
// (n lines, forever when n is 0). On SIGTERM it prints "got SIGTERM" and
// two checkpoint lines and exits 0. Every line it (or the daemon) wrote
// whole to stdout is then appended to DIR/NAME.truth: the lines the logs
// must hold.
func family(n int, dir string) int {
	name := strings.ReplaceAll(os.Getenv("WORKER_NAME"), ":", "-")
	truth, err := os.OpenFile(filepath.Join(dir, name+".truth"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	say := func(format string, args ...any) {
		line := fmt.Sprintf(format, args...) + "\n"
		if _, err := os.Stdout.Write([]byte(line)); err == nil {
			_, _ = truth.Write([]byte(line))
		}
	}
	self, _ := os.Executable()
	child, err1 := os.StartProcess(self, []string{self, "__worker__", "sleep"}, &os.ProcAttr{
		Files: []*os.File{nil, nil, os.Stderr}, Sys: &syscall.SysProcAttr{Setpgid: true}})
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, LaunchIDVar+"=") })
	daemon, err2 := os.StartProcess(self, []string{self, "__worker__", "chatter", name + "-daemon", dir}, &os.ProcAttr{
		Env: env, Files: []*os.File{nil, os.Stdout, os.Stderr}, Sys: &syscall.SysProcAttr{Setsid: true}})
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, err1, err2)
		return 1
	}
	say("FAMILY %d %d %d", os.Getpid(), child.Pid, daemon.Pid)
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	tick := time.NewTicker(10 * time.Millisecond)
	for i := 0; n == 0 || i < n; i++ {
		select {
		case <-term:
			say("got SIGTERM")
			say("checkpoint %s 1", name)
			say("checkpoint %s 2", name)
			return 0
		case <-tick.C:
			say("L %s %d", name, i)
		}
	}
	return 0
}

// chatter is the family's daemon: it prints until it is killed.
func chatter(name, dir string) int {
	truth, err := os.OpenFile(filepath.Join(dir, name+".truth"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return 1
	}
	for i := 0; ; i++ {
		line := "C " + name + " " + strconv.Itoa(i) + "\n"
		if _, err := os.Stdout.Write([]byte(line)); err == nil {
			_, _ = truth.Write([]byte(line))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
