package exec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// pathLikeKeys are merged with the inherited value instead of replacing it
// (semantics §6.3, RLinf's RLINF_PATH_ENV_MERGE_MODE=append, the default).
var pathLikeKeys = map[string]bool{
	"PYTHONPATH": true, "LD_LIBRARY_PATH": true, "PATH": true, "LIBRARY_PATH": true,
	"CMAKE_PREFIX_PATH": true, "PKG_CONFIG_PATH": true, "CPATH": true,
}

// MergeEnv applies a worker's variables over the inherited environment, as
// RLinf's Cluster.allocate does: later wins, except that path-like keys
// (PATH, PYTHONPATH, LD_LIBRARY_PATH, ...) that already exist get the new
// entries first, then the existing ones, without duplicates, unless
// RLINF_PATH_ENV_MERGE_MODE is "override". Keys in unset are removed
// unless set gives them. The result is sorted by key.
func MergeEnv(base []string, set map[string]string, unset ...string) []string {
	m := make(map[string]string, len(base)+len(set))
	for _, kv := range base {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		m[k] = v // later duplicates win, as in os/exec
	}
	for _, k := range unset {
		if _, ok := set[k]; !ok {
			delete(m, k)
		}
	}
	mode := m["RLINF_PATH_ENV_MERGE_MODE"]
	if v, ok := set["RLINF_PATH_ENV_MERGE_MODE"]; ok {
		mode = v
	}
	for k, v := range set {
		if old, exists := m[k]; exists && pathLikeKeys[k] && mode != "override" {
			m[k] = mergePath(v, old)
			continue
		}
		m[k] = v
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// mergePath is incoming entries first, then existing ones, each once.
func mergePath(incoming, existing string) string {
	seen := map[string]bool{}
	var parts []string
	for _, s := range []string{incoming, existing} {
		for _, p := range strings.Split(s, ":") {
			if p == "" || seen[p] {
				continue
			}
			seen[p] = true
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ":")
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
