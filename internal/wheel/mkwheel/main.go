// Command mkwheel packs a built rlsolve binary and the Python package of
// python/rlsolve into a platform wheel (scripts/wheel.sh runs it once per
// platform): the binary at rlsolve/bin/, a console_scripts entry, RECORD
// with every file's hash, entries timed at the commit's time.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rlsolve/rlsolve/internal/wheel"
)

func main() {
	binary := flag.String("binary", "", "the built rlsolve `FILE`")
	exe := flag.String("exe", "rlsolve", "the binary's `NAME` inside rlsolve/bin/ (rlsolve.exe on Windows)")
	pkg := flag.String("package", "python/rlsolve", "the Python package's `DIR` (its *.py files are packed)")
	readme := flag.String("readme", "", "Markdown `FILE` for the long description")
	version := flag.String("version", "", "the PEP 440 `VERSION`")
	tags := flag.String("tags", "", "platform `TAGS`, dot-separated (manylinux_2_17_x86_64.musllinux_1_2_x86_64)")
	epoch := flag.Int64("epoch", 315964800, "every entry's time, in `SECONDS` since 1970 (the commit's time makes the wheel reproducible)")
	out := flag.String("out", ".", "the `DIR` the wheel is written to")
	flag.Parse()
	path, err := build(*binary, *exe, *pkg, *readme, *version, *tags, *epoch, *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkwheel:", err)
		os.Exit(1)
	}
	fmt.Println(path)
}

func build(binary, exe, pkg, readme, version, tags string, epoch int64, out string) (string, error) {
	if binary == "" || version == "" || tags == "" {
		return "", fmt.Errorf("-binary, -version and -tags are required")
	}
	files, err := packageFiles(pkg)
	if err != nil {
		return "", err
	}
	bin, err := os.ReadFile(binary)
	if err != nil {
		return "", err
	}
	files = append(files, wheel.File{Path: "rlsolve/bin/" + exe, Data: bin, Exec: true})
	spec := wheel.Spec{Name: "rlsolve", Version: version, Tags: strings.Split(tags, "."),
		Summary:        "Check, plan and explain GPU-cluster placements for RL training (RLinf, slime) before the cluster starts",
		Scripts:        map[string]string{"rlsolve": "rlsolve.__main__:main"},
		RequiresPython: ">=3.8", Files: files, Time: time.Unix(epoch, 0).UTC()}
	if readme != "" {
		d, err := os.ReadFile(readme)
		if err != nil {
			return "", err
		}
		spec.Description = string(d)
	}
	var b bytes.Buffer
	if err := wheel.Write(&b, spec); err != nil {
		return "", err
	}
	path := filepath.Join(out, spec.FileName())
	// A temporary file renamed into place: a failed run leaves no torn wheel.
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
		return "", err
	}
	return path, os.Rename(tmp, path)
}

// packageFiles are the package's *.py files (no caches, no tests).
func packageFiles(dir string) ([]wheel.File, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.py"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s holds no *.py files", dir)
	}
	sort.Strings(names)
	var files []wheel.File
	for _, n := range names {
		d, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		files = append(files, wheel.File{Path: "rlsolve/" + filepath.Base(n), Data: d})
	}
	return files, nil
}
