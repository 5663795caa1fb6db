package textedit

import (
	"fmt"
	"path/filepath"
	"sort"

	"github.com/rlsolve/rlsolve/model"
)

// ApplyFiles makes the edits in the files their spans name. read holds
// each file's bytes as they were when the edits were computed: the edits
// are made to those bytes, and a file is written only while it still holds
// them (see Replace). Every file is locked and compared before any is
// written, so that a file changed by another program leaves all of them
// untouched. It returns the files written, in the order the edits first
// name them. Nothing is written when an edit does not apply.
func ApplyFiles(edits []model.Edit, read map[string][]byte, opt WriteOptions) ([]string, error) {
	files, by := ByFile(edits)
	out := make(map[string][]byte, len(files))
	for _, f := range files {
		if f == "" {
			return nil, fmt.Errorf("an edit names no file")
		}
		data, ok := read[f]
		if !ok {
			return nil, fmt.Errorf("%s: rlsolve did not keep the text its edits were computed from", f)
		}
		edited, err := Apply(data, by[f])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out[f] = edited
	}
	hs, err := holdAll(files, read, opt)
	defer releaseAll(hs)
	if err != nil {
		return nil, err
	}
	for i, f := range files {
		if err := hs[f].write(out[f]); err != nil {
			return files[:i], err
		}
	}
	return files, nil
}

// holdAll locks and compares every file, in the order of their targets'
// names, so that two rlsolve runs that write the same files cannot wait
// for each other.
func holdAll(files []string, read map[string][]byte, opt WriteOptions) (map[string]*held, error) {
	order := make([]string, len(files))
	targets := map[string]string{}
	for i, f := range files {
		t, err := filepath.EvalSymlinks(f)
		if err != nil {
			return nil, err
		}
		if other, ok := targets[t]; ok {
			return nil, fmt.Errorf("%s and %s are the same file; its edits cannot be made twice", other, f)
		}
		targets[t] = f
		order[i] = t
	}
	sort.Strings(order)
	hs := map[string]*held{}
	for _, t := range order {
		f := targets[t]
		h, err := hold(f, read[f], opt)
		if err != nil {
			return hs, err
		}
		hs[f] = h
	}
	return hs, nil
}

func releaseAll(hs map[string]*held) {
	for _, h := range hs {
		h.release()
	}
}
