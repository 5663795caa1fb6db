package exec

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// proc is one process as /proc/PID/stat describes it.
type proc struct {
	pid, ppid, pgrp int
	state           byte
}

// live reports whether the process runs (zombies and dead ones do not).
func (p proc) live() bool { return p.state != 'Z' && p.state != 'X' }

// procTable reads every process of /proc (none elsewhere).
func procTable() map[int]proc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	t := make(map[int]proc, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			t[pid] = p
		}
	}
	return t
}

// readProc reads /proc/PID/stat.
func readProc(pid int) (proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, false
	}
	// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return proc{}, false
	}
	f := strings.Fields(string(b[i+2:]))
	if len(f) < 3 || f[0] == "" {
		return proc{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return proc{}, false
	}
	return proc{pid: pid, ppid: ppid, pgrp: pgrp, state: f[0][0]}, true
}

// descendants lists the live processes whose parent chain reaches root.
func descendants(t map[int]proc, root int) []int {
	kids := map[int][]int{}
	for _, p := range t {
		kids[p.ppid] = append(kids[p.ppid], p.pid)
	}
	var out []int
	seen := map[int]bool{root: true}
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, k := range kids[pid] {
			if seen[k] {
				continue
			}
			seen[k] = true
			queue = append(queue, k)
			if t[k].live() {
				out = append(out, k)
			}
		}
	}
	return out
}

// marked lists the live processes whose environment carries
// RLSOLVE_LAUNCH_ID=id (every descendant of a worker that kept it).
func marked(t map[int]proc, id string) []int {
	if id == "" {
		return nil
	}
	marker := []byte(LaunchIDVar + "=" + id + "\x00")
	var out []int
	for pid, p := range t {
		if !p.live() || pid <= 1 {
			continue
		}
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil {
			continue
		}
		if bytes.HasPrefix(env, marker) || bytes.Contains(env, append([]byte{0}, marker...)) {
			out = append(out, pid)
		}
	}
	return out
}

// Survivors lists the live processes (zombies excluded) that belong to a
// launch: those whose environment carries RLSOLVE_LAUNCH_ID=id, and those
// in one of the process groups pgids. It reads /proc; elsewhere it finds
// nothing. It never lists this process or its parent.
func Survivors(id string, pgids map[int]bool) []int {
	t := procTable()
	self, parent := os.Getpid(), os.Getppid()
	out := marked(t, id)
	for pid, p := range t {
		if pgids[p.pgrp] && p.live() && !slices.Contains(out, pid) {
			out = append(out, pid)
		}
	}
	return slices.DeleteFunc(out, func(pid int) bool { return pid == self || pid == parent })
}

// sweep ends the processes find lists (asked again each round, so that a
// fork racing the sweep is caught too): SIGTERM, then SIGKILL after
// grace, then it waits up to a second for them to go. It returns how many
// distinct processes it found.
func sweep(find func() []int, grace time.Duration) int {
	seen := map[int]bool{}
	deadline := time.Now().Add(grace)
	killing := false
	for {
		left := find()
		if len(left) == 0 {
			return len(seen)
		}
		for _, pid := range left {
			if !seen[pid] || killing {
				_ = syscall.Kill(pid, termOrKill(killing))
			}
			seen[pid] = true
		}
		if time.Now().After(deadline) {
			if killing {
				return len(seen)
			}
			killing = true
			deadline = time.Now().Add(time.Second)
			continue
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func termOrKill(kill bool) syscall.Signal {
	if kill {
		return syscall.SIGKILL
	}
	return syscall.SIGTERM
}
