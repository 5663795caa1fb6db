package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlsolve/rlsolve/grammar"
	"github.com/rlsolve/rlsolve/internal/textedit"
	"github.com/rlsolve/rlsolve/model"
)

// maxSharedConfigs bounds the YAML files `--fix-shared` reads to find the
// configs that compose a shared file.
const maxSharedConfigs = 2000

// SharedError is a fix to a shared file refused: configs that compose
// the file too would gain an error from it.
type SharedError struct {
	// Files are the shared files the fix edits; Configs the configs that
	// would newly fail, each with the error it would gain.
	Files, Configs []string
}

func (e *SharedError) Error() string {
	return fmt.Sprintf("nothing was written: the fix to %s would make check fail for %d other config(s) that compose it: %s",
		strings.Join(e.Files, ", "), len(e.Configs), strings.Join(e.Configs, "; "))
}

// verifyShared checks the fix's edits of files other than the config
// against every config under the config's folder that composes one of
// them: the fix is refused when any of them gains an error.
func verifyShared(file string, edits []model.Edit, read map[string][]byte, opt Options) error {
	files, by := textedit.ByFile(edits)
	overlay := map[string][]byte{}
	var shared []string
	for _, f := range files {
		if sameFile(f, file) {
			continue
		}
		edited, err := textedit.Apply(read[f], by[f])
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		overlay[canonical(f)] = edited
		shared = append(shared, f)
	}
	if len(shared) == 0 {
		return nil
	}
	configs, err := yamlUnder(filepath.Dir(file))
	if err != nil {
		return err
	}
	opt.verifying, opt.Overrides = true, grammar.Overrides{}
	var broken []string
	for _, c := range configs {
		if sameFile(c, file) {
			continue
		}
		if why := newlyFails(c, overlay, opt); why != "" {
			broken = append(broken, c+" ("+why+")")
		}
	}
	if len(broken) > 0 {
		return &SharedError{Files: shared, Configs: broken}
	}
	return nil
}

// newlyFails checks config c with and without the edited files; it says
// which error the edits add ("" when none, or when c does not compose
// any of them).
func newlyFails(c string, overlay map[string][]byte, opt Options) string {
	data, d := grammar.ReadFile(c, opt.Limits)
	if d != nil || !composes(c, data, overlay, opt) {
		return ""
	}
	before := CheckBytes(c, data, opt)
	opt.readFile = func(name string) ([]byte, error) {
		if edited, ok := overlay[canonical(name)]; ok {
			return edited, nil
		}
		return os.ReadFile(name)
	}
	after := CheckBytes(c, data, opt)
	seen := map[string]int{}
	for _, d := range before.Diagnostics {
		if d.Severity == model.SeverityError {
			seen[d.Code]++
		}
	}
	for _, d := range after.Diagnostics {
		if d.Severity != model.SeverityError {
			continue
		}
		if seen[d.Code] == 0 {
			return fmt.Sprintf("%s at %s: %s", d.Code, d.Primary, d.Summary)
		}
		seen[d.Code]--
	}
	return ""
}

// composes reports whether the config's defaults list reads one of the
// overlay's files.
func composes(c string, data []byte, overlay map[string][]byte, opt Options) bool {
	found := false
	grammar.LoadConfigWith(c, data, grammar.ConfigOptions{Limits: opt.Limits, ReadFile: func(name string) ([]byte, error) {
		if _, ok := overlay[canonical(name)]; ok {
			found = true
		}
		return os.ReadFile(name)
	}})
	return found
}

// errTooManyConfigs stops the walk of yamlUnder.
var errTooManyConfigs = errors.New("too many files")

// yamlUnder lists the .yaml files under dir and its subfolders, as Hydra
// finds configs there (hidden folders left out).
func yamlUnder(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil // an unreadable folder holds no config rlsolve can check
		case d.IsDir() && p != dir && strings.HasPrefix(d.Name(), "."):
			return filepath.SkipDir
		case d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".yaml"):
			if out = append(out, p); len(out) > maxSharedConfigs {
				return errTooManyConfigs
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("nothing was written: %s holds more than %d YAML files, too many to check the fix against every config that composes the shared file", dir, maxSharedConfigs)
	}
	return out, nil
}

// canonical is path as an absolute path without symbolic links, so that
// two names of one file compare equal.
func canonical(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// sameFile reports whether two names are one file.
func sameFile(a, b string) bool {
	if a == b {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
