package model

import (
	"sort"
	"strings"
)

// How a worker's planned variables combine with the environment it
// inherits (semantics §6.3): RLinf's Cluster.allocate with
// RLINF_PATH_ENV_MERGE_MODE=append, its default. Launch applies this rule
// to start a worker, and `plan --output env` writes shell lines that apply
// it, so that both give the worker the same environment.

// PathMergeModeVar chooses the rule for path-like variables: "override"
// replaces the inherited value; anything else (or unset) merges.
const PathMergeModeVar = "RLINF_PATH_ENV_MERGE_MODE"

// PathMergeOverride is the PathMergeModeVar value that turns merging off.
const PathMergeOverride = "override"

// pathLikeEnv are the variables whose planned value is merged with the
// inherited one instead of replacing it.
var pathLikeEnv = []string{"CMAKE_PREFIX_PATH", "CPATH", "LD_LIBRARY_PATH", "LIBRARY_PATH", "PATH", "PKG_CONFIG_PATH", "PYTHONPATH"}

// PathLikeEnv reports whether key is a path-like variable (PATH,
// PYTHONPATH, LD_LIBRARY_PATH, ...).
func PathLikeEnv(key string) bool {
	i := sort.SearchStrings(pathLikeEnv, key)
	return i < len(pathLikeEnv) && pathLikeEnv[i] == key
}

// MergePath is the value of a path-like variable planned as incoming when
// the worker inherits existing: incoming's entries first, then existing's,
// each once, empty entries dropped.
func MergePath(incoming, existing string) string {
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

// MergeEnv applies a worker's variables (set) over the inherited
// environment (base, "K=V" entries; a later duplicate wins, as in
// os/exec): set wins, except that a path-like key the base already has
// (even empty) becomes MergePath(planned, inherited), unless the merge
// mode (set's PathMergeModeVar, else base's) is "override". Keys in unset
// are removed unless set gives them. The result is sorted by key.
func MergeEnv(base []string, set map[string]string, unset ...string) []string {
	m := make(map[string]string, len(base)+len(set))
	for _, kv := range base {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		m[k] = v
	}
	for _, k := range unset {
		if _, ok := set[k]; !ok {
			delete(m, k)
		}
	}
	mode := m[PathMergeModeVar]
	if v, ok := set[PathMergeModeVar]; ok {
		mode = v
	}
	for k, v := range set {
		if old, exists := m[k]; exists && PathLikeEnv(k) && mode != PathMergeOverride {
			m[k] = MergePath(v, old)
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
