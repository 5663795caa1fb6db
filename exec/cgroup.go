package exec

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// cgroup is a run's own cgroup (v2): every worker is started in it, so that
// ending the run is ending the cgroup, whatever the workers started.
type cgroup struct {
	path string
}

// newCgroup makes the run's cgroup, rlsolve-ID, under this process's own
// cgroup v2, when that is there and delegated to us (root, or a delegated
// systemd unit). Otherwise it says why not; the launch then relies on the
// guardian being a subreaper.
func newCgroup(id string) (*cgroup, error) {
	parent, err := ownCgroupDir()
	if err != nil {
		return nil, err
	}
	if err := unix.Access(filepath.Join(parent, "cgroup.procs"), unix.W_OK); err != nil {
		return nil, fmt.Errorf("cgroup %s is not delegated to this user: %w", parent, err)
	}
	dir := filepath.Join(parent, "rlsolve-"+id)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot make a cgroup under %s: %w", parent, err)
	}
	cg := &cgroup{path: dir}
	if err := unix.Access(filepath.Join(dir, "cgroup.procs"), unix.W_OK); err != nil {
		_ = os.Remove(dir)
		return nil, fmt.Errorf("cgroup %s is not writable: %w", dir, err)
	}
	return cg, nil
}

// ownCgroupDir is the directory of this process's cgroup v2.
func ownCgroupDir() (string, error) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", fmt.Errorf("no cgroup information: %w", err)
	}
	rel := ""
	found := false
	for _, line := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			rel, found = p, true
		}
	}
	if !found {
		return "", errors.New("no cgroup v2 hierarchy (cgroup v1 only)")
	}
	mount, root, err := cgroup2Mount()
	if err != nil {
		return "", err
	}
	// The mount shows the hierarchy from its root on: our cgroup must be
	// under it.
	sub, ok := strings.CutPrefix(rel, root)
	if !ok || (sub != "" && root != "/" && !strings.HasPrefix(sub, "/")) {
		return "", fmt.Errorf("this process's cgroup %s is not under the cgroup v2 mount %s", rel, mount)
	}
	return filepath.Join(mount, sub), nil
}

// cgroup2Mount finds the cgroup v2 file system in /proc/self/mountinfo:
// its mount point and the hierarchy path its root shows.
func cgroup2Mount() (mount, root string, err error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", "", fmt.Errorf("no mount information: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		// id parent dev root mountpoint options [optional...] - fstype source superopts
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		f := strings.Fields(pre)
		if len(f) < 5 {
			continue
		}
		return unescapeMount(f[4]), unescapeMount(f[3]), nil
	}
	return "", "", errors.New("cgroup v2 is not mounted")
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// procs lists the processes in the cgroup.
func (c *cgroup) procs() []int {
	if c == nil {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(c.path, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// add moves a process into the cgroup (when it could not be started there).
func (c *cgroup) add(pid int) error {
	return os.WriteFile(filepath.Join(c.path, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0)
}

// kill ends every process in the cgroup at once: cgroup.kill (Linux 5.14),
// else frozen and killed one by one.
func (c *cgroup) kill() {
	if c == nil {
		return
	}
	if os.WriteFile(filepath.Join(c.path, "cgroup.kill"), []byte("1"), 0) == nil {
		return
	}
	freeze := filepath.Join(c.path, "cgroup.freeze")
	frozen := os.WriteFile(freeze, []byte("1"), 0) == nil
	for _, pid := range c.procs() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	if frozen {
		_ = os.WriteFile(freeze, []byte("0"), 0)
	}
}

// remove kills what is left in the cgroup and removes it, trying for up
// to 5s (killed processes take a moment to leave it, more on a loaded
// machine).
func (c *cgroup) remove() error {
	if c == nil {
		return nil
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if len(c.procs()) > 0 {
			c.kill()
		} else {
			err := os.Remove(c.path)
			if err == nil || errors.Is(err, os.ErrNotExist) {
				return nil
			}
			if !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
				return err
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cgroup %s still holds processes %v", c.path, c.procs())
		}
		time.Sleep(5 * time.Millisecond)
	}
}
