package textedit

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// envReplaceAs makes the test binary a writer run as another user: its
// value is the file, then the old and the new text, separated by "|".
const envReplaceAs = "RLSOLVE_TEXTEDIT_REPLACE_AS"

// nobody is the user the writer runs as: not the file's owner, not root.
const nobody = 65534

// TestReplaceAsUser: a user who is not root writes a file as the kernel
// lets them. A file another user owns (writable by all) keeps its owner:
// the new file could not take it, so the file is written in place. A file
// in a folder the user cannot create files in is written in place too.
func TestReplaceAsUser(t *testing.T) {
	if v := os.Getenv(envReplaceAs); v != "" {
		p := strings.Split(v, "|")
		if err := Replace(p[0], []byte(p[1]), []byte(p[2]), WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("running the writer as another user needs root (CI runs this test as root)")
	}
	bin := shareBinary(t)
	for _, c := range []struct {
		name       string
		folderMode os.FileMode
	}{{"another user's file", 0o777}, {"read-only folder", 0o555}} {
		t.Run(c.name, func(t *testing.T) {
			dir := sharedDir(t)
			f := filepath.Join(dir, "c.yaml")
			writeFile(t, f, "a: 1\n", 0o666)
			must(t, os.Chmod(dir, c.folderMode))
			cmd := exec.Command(bin, "-test.run=^TestReplaceAsUser$")
			cmd.Env = append(os.Environ(), envReplaceAs+"="+f+"|a: 1\n|a: 2\n")
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("the writer failed: %v\n%s", err, out)
			}
			st, err := os.Stat(f)
			must(t, err)
			if s := st.Sys().(*syscall.Stat_t); s.Uid != 0 || readString(t, f) != "a: 2\n" {
				t.Errorf("owner %d, file %q: want root's file with the new text", s.Uid, readString(t, f))
			}
			onlyFiles(t, dir, "c.yaml")
		})
	}
}

// sharedDir is a temporary folder other users can reach.
func sharedDir(t *testing.T) string {
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if strings.HasPrefix(d, os.TempDir()) {
			must(t, os.Chmod(d, 0o755))
		}
	}
	return dir
}

// shareBinary copies the test binary where another user may run it.
func shareBinary(t *testing.T) string {
	bin := filepath.Join(sharedDir(t), "textedit.test")
	src, err := os.Open(os.Args[0])
	must(t, err)
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	must(t, err)
	_, err = io.Copy(dst, src)
	must(t, err)
	must(t, dst.Close())
	return bin
}
