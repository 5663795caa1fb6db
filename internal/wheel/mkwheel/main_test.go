package main

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// build packs the package's *.py files (nothing else) and the binary,
// named by version and tags, into the output folder.
func TestBuild(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "pkg")
	if err := os.MkdirAll(filepath.Join(pkg, "__pycache__"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"__init__.py": "", "_api.py": "x = 1\n", "README.md": "# r\n", "__pycache__/_api.cpython-311.pyc": "junk"} {
		if err := os.WriteFile(filepath.Join(pkg, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "rlsolve")
	if err := os.WriteFile(bin, []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	path, err := build(bin, "rlsolve", pkg, filepath.Join(pkg, "README.md"), "1.2.3", "manylinux_2_17_x86_64", 1700000000, dir)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "rlsolve-1.2.3-py3-none-manylinux_2_17_x86_64.whl" {
		t.Errorf("wheel %s", path)
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	got := strings.Join(names, " ")
	want := "rlsolve/__init__.py rlsolve/_api.py rlsolve/bin/rlsolve rlsolve-1.2.3.dist-info/METADATA rlsolve-1.2.3.dist-info/WHEEL rlsolve-1.2.3.dist-info/entry_points.txt rlsolve-1.2.3.dist-info/RECORD"
	if got != want {
		t.Errorf("entries\n%s\nwant\n%s", got, want)
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("the temporary file is left: %v", err)
	}
	if _, err := build(bin, "rlsolve", dir, "", "1.2.3", "manylinux_2_17_x86_64", 1700000000, dir); err == nil || !strings.Contains(err.Error(), "no *.py") {
		t.Errorf("a folder without Python files: %v", err)
	}
	if _, err := build(bin, "rlsolve", pkg, "", "v1", "manylinux_2_17_x86_64", 1700000000, dir); err == nil {
		t.Error("a version that is not PEP 440 was packed")
	}
}
