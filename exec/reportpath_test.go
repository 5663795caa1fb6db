package exec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckReportPath: what would stop the report being written is found
// before the launch, and the check leaves nothing behind.
func TestCheckReportPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		filepath.Join(dir, "report.json"):       "",
		file:                                    "",
		dir:                                     "is a folder, not a file",
		filepath.Join(dir, "missing", "r.json"): "no such file or directory",
		filepath.Join(file, "r.json"):           "not a directory",
	} {
		err := CheckReportPath(path)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("CheckReportPath(%s) = %v, want %q", path, err, want)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("the check left %d files behind", len(left)-1)
	}
}
