package exec

import (
	"bytes"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Survivors lists the live processes (zombies excluded) that belong to a
// launch: those whose environment carries RLSOLVE_LAUNCH_ID=id (every
// worker's descendant that kept its environment), and those in one of
// the process groups pgids. It reads /proc; elsewhere it finds nothing.
func Survivors(id string, pgids map[int]bool) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self, parent := os.Getpid(), os.Getppid()
	marker := []byte(LaunchIDVar + "=" + id + "\x00")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self || pid == parent || pid <= 1 {
			continue
		}
		state, pgrp, ok := procStat(pid)
		if !ok || state == 'Z' || state == 'X' {
			continue
		}
		// A process group id can be reused after its leader is gone: with a
		// launch id, only processes carrying the launch's marker are ours.
		if id == "" {
			if pgids[pgrp] {
				out = append(out, pid)
			}
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		if bytes.HasPrefix(env, marker) || bytes.Contains(env, append([]byte{0}, marker...)) {
			out = append(out, pid)
		}
	}
	return out
}

// procStat reads a process's state and process group from /proc/PID/stat.
func procStat(pid int) (state byte, pgrp int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+2:]))
	if len(f) < 3 {
		return 0, 0, false
	}
	pg, err := strconv.Atoi(f[2])
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], pg, true
}

// sweep ends what a launch left running: SIGTERM, then SIGKILL after
// grace. It returns how many processes it found.
func sweep(id string, pgids map[int]bool, grace time.Duration) int {
	found := Survivors(id, pgids)
	if len(found) == 0 {
		return 0
	}
	seen := map[int]bool{}
	for _, pid := range found {
		seen[pid] = true
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for {
		left := Survivors(id, pgids)
		for _, pid := range left {
			if !seen[pid] { // started meanwhile (a fork racing the sweep)
				seen[pid] = true
				_ = syscall.Kill(pid, syscall.SIGTERM)
			}
		}
		if len(left) == 0 {
			return len(seen)
		}
		if time.Now().After(deadline) {
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			deadline = time.Now().Add(time.Second)
			grace = 0
		}
		time.Sleep(10 * time.Millisecond)
		if grace == 0 && time.Now().After(deadline) {
			return len(seen)
		}
	}
}

// freePorts binds n TCP ports on all interfaces (as RLinf's find_free_port
// binds ("", 0)), all at once so they differ, and releases them.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", ":0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// isLocalAddr reports whether addr (an IP or a host name) names this
// machine, without asking DNS.
func isLocalAddr(addr string) bool {
	if addr == "localhost" {
		return true
	}
	if ip := net.ParseIP(addr); ip != nil {
		if ip.IsLoopback() || ip.IsUnspecified() {
			return true
		}
		addrs, err := net.InterfaceAddrs()
		if err != nil {
			return false
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
				return true
			}
		}
		return false
	}
	h, err := os.Hostname()
	if err != nil {
		return false
	}
	short, _, _ := strings.Cut(h, ".")
	return addr == h || addr == short
}
