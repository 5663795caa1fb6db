package python

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDriver runs the driver's unit tests (testdata/test_driver.py) with a
// stand-in ray package (testdata/fakeray) on PYTHONPATH: node order,
// bundle sort, each worker's env and actor options, MASTER_PORT from rank
// 0, the stop sequence, the report line. Real Ray is the exec package's
// live tests' concern.
func TestDriver(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("RLSOLVE_REQUIRE_PYTHON") != "" {
			t.Fatalf("python3 is required (RLSOLVE_REQUIRE_PYTHON is set): %v", err)
		}
		t.Skip("python3 is not on PATH: the driver's unit tests need it")
	}
	// Opened here, so that go test's cache knows the Python files it ran.
	_ = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".py") {
			_, _ = os.ReadFile(path)
		}
		return nil
	})
	abs, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, filepath.Join("testdata", "test_driver.py"), "-v")
	cmd.Env = append(os.Environ(), "PYTHONPATH="+filepath.Join(abs, "testdata", "fakeray")+string(os.PathListSeparator)+abs,
		"PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the driver's unit tests failed: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// TestEmbedded: the binary carries the driver and the probe.
func TestEmbedded(t *testing.T) {
	for _, name := range []string{"driver.py", "probe.py"} {
		if b, err := Files.ReadFile(name); err != nil || len(b) == 0 {
			t.Errorf("%s is not embedded: %v", name, err)
		}
	}
}
