package topology

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

// The probe's facts are kept on this machine per Ray node id, so that a
// launch after `topology --ray` (or after another launch) on the same
// raylets needs no probe job of its own, the slowest part of its preflight.
// They cannot go stale: a raylet's RLINF_NODE_RANK, Python and GPUs are
// fixed while it runs, and a raylet started again has a new node id.

// ProbeCacheDir is where rlsolve keeps the facts ("" when the machine has
// no cache directory: then every discovery probes).
func ProbeCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "rlsolve", "ray-nodes")
}

// nodeIDPattern is what a Ray node id looks like (56 hex digits in Ray
// 2.x): anything else is not used as a file name.
var nodeIDPattern = regexp.MustCompile(`^[0-9a-fA-F]{8,128}$`)

// maxCachedFacts bounds one node's file.
const maxCachedFacts = 16 << 10

// cachedFacts returns the facts of every node in ids, or false when the
// cache lacks one (a node it never probed, or a file it cannot read).
func cachedFacts(dir string, ids []string) (map[string]RayFacts, bool) {
	if dir == "" || len(ids) == 0 {
		return nil, false
	}
	out := map[string]RayFacts{}
	for _, id := range ids {
		f, ok := readFacts(dir, id)
		if !ok {
			return nil, false
		}
		out[id] = f
	}
	return out, true
}

func readFacts(dir, id string) (RayFacts, bool) {
	var f RayFacts
	if !nodeIDPattern.MatchString(id) {
		return f, false
	}
	file, err := os.Open(filepath.Join(dir, id+".json"))
	if err != nil {
		return f, false
	}
	defer file.Close()
	b, err := io.ReadAll(io.LimitReader(file, maxCachedFacts+1))
	if err != nil || len(b) > maxCachedFacts || json.Unmarshal(b, &f) != nil || f.IP == "" {
		return f, false
	}
	f, err = cleanFacts(id, f)
	return f, err == nil
}

// storeFacts keeps the facts of the nodes that answered the probe (one
// that did not is probed again next time). Failures only cost a probe
// later: they are not reported.
func storeFacts(dir string, facts map[string]RayFacts) {
	if dir == "" || os.MkdirAll(dir, 0o700) != nil {
		return
	}
	pruneFacts(dir, time.Now().Add(-cacheKeep))
	for id, f := range facts {
		if !nodeIDPattern.MatchString(id) || f.Error != "" && f.NVML == "" || f.IP == "" {
			continue
		}
		b, err := json.Marshal(f)
		if err != nil {
			continue
		}
		// Written whole, then renamed: a reader never sees half a file.
		tmp, err := os.CreateTemp(dir, "."+id+"-*")
		if err != nil {
			return
		}
		_, werr := tmp.Write(b)
		if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(dir, id+".json")) != nil {
			os.Remove(tmp.Name())
		}
	}
}

// cacheKeep is how long a node's facts are kept unread: the directory
// holds one file per raylet ever probed, and raylets come and go.
const cacheKeep = 30 * 24 * time.Hour

// pruneFacts removes the files last written before cutoff (a file read is
// not rewritten: a node in use for longer is probed again, once).
func pruneFacts(dir string, cutoff time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && info.ModTime().Before(cutoff) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
