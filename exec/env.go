package exec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// MergeEnv applies a worker's variables over the inherited environment:
// model.MergeEnv, the rule `plan --output env` writes for a shell too.
func MergeEnv(base []string, set map[string]string, unset ...string) []string {
	return model.MergeEnv(base, set, unset...)
}

// envValue returns the value of key in a "K=V" list (the last one).
func envValue(env []string, key string) (string, bool) {
	val, found := "", false
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			val, found = v, true
		}
	}
	return val, found
}

// ErrNotFound is returned by LookPath when no executable matches.
var ErrNotFound = errors.New("executable file not found in PATH")

// LookPath finds prog as the worker will: a name with a slash is used as
// it is; a bare name is searched in the worker's own PATH (absolute
// entries only, like os/exec, which refuses the current directory).
func LookPath(prog string, env []string) (string, error) {
	if strings.Contains(prog, "/") {
		if err := executable(prog); err != nil {
			return "", fmt.Errorf("%s: %w", prog, err)
		}
		return prog, nil
	}
	path, _ := envValue(env, "PATH")
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, prog)
		if executable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", prog, ErrNotFound)
}

func executable(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fs.ErrNotExist
		}
		return err
	}
	if st.IsDir() {
		return errors.New("is a directory")
	}
	if st.Mode()&0o111 == 0 {
		return fs.ErrPermission
	}
	return nil
}
