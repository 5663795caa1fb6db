package textedit

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestReplaceKeepsOwner: as root, a file of another user and group stays
// theirs, its setuid bit too (changing the owner clears it).
func TestReplaceKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("RLSOLVE_REQUIRE_ROOT") != "" {
			t.Fatal("RLSOLVE_REQUIRE_ROOT is set but the test does not run as root")
		}
		t.Skip("giving a file to another user needs root (CI runs this test as root; RLSOLVE_REQUIRE_ROOT=1 makes this a failure)")
	}
	f := filepath.Join(t.TempDir(), "c.yaml")
	writeFile(t, f, "a: 1\n", 0o600)
	must(t, os.Chown(f, 12345, 23456))
	must(t, os.Chmod(f, 0o755|fs.ModeSetuid))
	must(t, Replace(f, []byte("a: 1\n"), []byte("a: 2\n"), WriteOptions{}))
	st, err := os.Stat(f)
	must(t, err)
	s := st.Sys().(*syscall.Stat_t)
	if s.Uid != 12345 || s.Gid != 23456 || st.Mode()&modeBits != 0o755|fs.ModeSetuid {
		t.Errorf("owner %d:%d, mode %v; want 12345:23456, -rwsr-xr-x", s.Uid, s.Gid, st.Mode())
	}
}

// TestReplaceKeepsXattrs: user.* attributes survive the rename.
func TestReplaceKeepsXattrs(t *testing.T) {
	f := filepath.Join(t.TempDir(), "c.yaml")
	writeFile(t, f, "a: 1\n", 0o644)
	if err := unix.Setxattr(f, "user.rlsolve.test", []byte("kept"), 0); err != nil {
		t.Skipf("the temporary folder's file system takes no user.* attributes: %v", err)
	}
	must(t, Replace(f, []byte("a: 1\n"), []byte("a: 2\n"), WriteOptions{}))
	buf := make([]byte, 16)
	n, err := unix.Getxattr(f, "user.rlsolve.test", buf)
	if err != nil || string(buf[:n]) != "kept" {
		t.Errorf("user.rlsolve.test: %q, %v", buf[:n], err)
	}
	if got := readString(t, f); got != "a: 2\n" {
		t.Errorf("file %q", got)
	}
}

// TestReplaceReadOnlyFolder: where no file can be created beside the
// target, it is written in place.
func TestReplaceReadOnlyFolder(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "c.yaml")
	writeFile(t, f, "a: 1\n", 0o644)
	if os.Geteuid() == 0 {
		// Root creates files in a read-only folder: fail as the kernel
		// does for anyone else.
		hook(t, &createTemp, func(dir, pattern string) (*os.File, error) {
			return nil, &fs.PathError{Op: "open", Path: filepath.Join(dir, pattern), Err: syscall.EACCES}
		})
	} else {
		must(t, os.Chmod(dir, 0o555))
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
	}
	must(t, Replace(f, []byte("a: 1\n"), []byte("a: 2\n"), WriteOptions{}))
	if got := readString(t, f); got != "a: 2\n" {
		t.Errorf("file %q", got)
	}
	onlyFiles(t, dir, "c.yaml")
}

// envSignalWriter makes the test binary the writer TestReplaceSIGTERM
// kills: it prints the temporary file's name and waits for the signal.
const envSignalWriter = "RLSOLVE_TEXTEDIT_SIGNAL_WRITER"

// TestReplaceSIGTERM: a write stopped by SIGTERM or SIGINT after its
// temporary file was made leaves the target as it was and no temporary
// file; the signal still ends the process.
func TestReplaceSIGTERM(t *testing.T) {
	if f := os.Getenv(envSignalWriter); f != "" {
		TestHookTempWritten = func(tmp string) {
			fmt.Println("temp", tmp)
			select {}
		}
		err := Replace(f, []byte("a: 1\n"), []byte("a: 2\n"), WriteOptions{})
		t.Fatalf("the write returned (%v); it should have been killed", err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			f := filepath.Join(dir, "c.yaml")
			writeFile(t, f, "a: 1\n", 0o644)
			cmd := exec.Command(os.Args[0], "-test.run=^TestReplaceSIGTERM$")
			cmd.Env = append(os.Environ(), envSignalWriter+"="+f)
			out, err := cmd.StdoutPipe()
			must(t, err)
			must(t, cmd.Start())
			line, err := bufio.NewReader(out).ReadString('\n')
			tmp, ok := strings.CutPrefix(strings.TrimSpace(line), "temp ")
			if err != nil || !ok {
				cmd.Process.Kill()
				t.Fatalf("the writer said %q, %v", line, err)
			}
			if _, err := os.Stat(tmp); err != nil {
				t.Fatalf("no temporary file while writing: %v", err)
			}
			must(t, cmd.Process.Signal(sig))
			err = cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != sig {
				t.Errorf("the writer ended with %v, want killed by %v", err, sig)
			}
			if got := readString(t, f); got != "a: 1\n" {
				t.Errorf("file %q", got)
			}
			onlyFiles(t, dir, "c.yaml")
		})
	}
}
