package raycli

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"
)

// A package is a working_dir zip stored in Ray's GCS under
// "gcs://_ray_pkg_<hex>.zip" (python/ray/_private/runtime_env/packaging.py);
// the dashboard serves it at /api/packages/gcs/_ray_pkg_<hex>.zip
// (python/ray/dashboard/modules/job/job_head.py).
const maxPackageBytes = 100 << 20 // Ray's own GCS_STORAGE_MAX_SIZE default

var packageURI = regexp.MustCompile(`^gcs://(_ray_pkg_[0-9a-f]{1,64}\.zip)$`)

// PackageURI names zip by its content (the first 16 bytes of its SHA-256),
// so the same files upload once.
func PackageURI(zip []byte) string {
	sum := sha256.Sum256(zip)
	return "gcs://_ray_pkg_" + hex.EncodeToString(sum[:16]) + ".zip"
}

// packagePath is the dashboard path of a package URI.
func (c *Client) packagePath(op, uri string) (string, error) {
	m := packageURI.FindStringSubmatch(uri)
	if m == nil {
		return "", c.fail(op, 0, fmt.Sprintf("%q is not a package URI (gcs://_ray_pkg_<hex>.zip)", clip(uri)))
	}
	return "/api/packages/gcs/" + m[1], nil
}

// PackageExists reports whether the cluster holds the package.
func (c *Client) PackageExists(ctx context.Context, uri string) (bool, error) {
	op := "look for package " + uri
	p, err := c.packagePath(op, uri)
	if err != nil {
		return false, err
	}
	resp, err := c.do(ctx, request{op: op, method: http.MethodGet, path: p, ok: []int{http.StatusOK, http.StatusNotFound}})
	if err != nil {
		return false, err
	}
	return resp.status == http.StatusOK, nil
}

// UploadPackage stores zip under uri.
func (c *Client) UploadPackage(ctx context.Context, uri string, zip []byte) error {
	op := "upload package " + uri
	p, err := c.packagePath(op, uri)
	if err != nil {
		return err
	}
	if len(zip) > maxPackageBytes {
		return c.fail(op, 0, fmt.Sprintf("the package is %d bytes; Ray stores at most %d", len(zip), maxPackageBytes))
	}
	_, err = c.do(ctx, request{op: op, method: http.MethodPut, path: p, body: bytes.NewReader(zip), contentType: "application/octet-stream"})
	return err
}

// zipEpoch is every entry's time, so the same files make the same bytes.
var zipEpoch = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// ZipDir zips files (slash-separated relative names to contents) as a
// working_dir: entries sorted by name, fixed times and modes, so the bytes
// and PackageURI depend on the files only.
func ZipDir(files map[string][]byte) ([]byte, error) {
	names := make([]string, 0, len(files))
	for name := range files {
		if name == "" || strings.HasPrefix(name, "/") || path.Clean(name) != name || strings.HasPrefix(name, "../") || name == ".." {
			return nil, fmt.Errorf("zip entry %q: want a clean relative path", name)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, name := range names {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: zipEpoch}
		h.SetMode(0o644)
		f, err := w.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := f.Write(files[name]); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
