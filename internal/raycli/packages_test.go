package raycli

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
)

func TestZipDir(t *testing.T) {
	files := map[string][]byte{"probe.py": []byte("print(1)\n"), "sub/a.txt": []byte("a"), "b.py": nil}
	z1, err := ZipDir(files)
	if err != nil {
		t.Fatal(err)
	}
	z2, _ := ZipDir(map[string][]byte{"sub/a.txt": []byte("a"), "b.py": nil, "probe.py": []byte("print(1)\n")})
	if !bytes.Equal(z1, z2) || PackageURI(z1) != PackageURI(z2) {
		t.Error("the same files zip to different bytes")
	}
	if !regexp.MustCompile(`^gcs://_ray_pkg_[0-9a-f]{32}\.zip$`).MatchString(PackageURI(z1)) {
		t.Errorf("uri %s", PackageURI(z1))
	}
	zr, err := zip.NewReader(bytes.NewReader(z1), int64(len(z1)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		if !bytes.Equal(b, files[f.Name]) {
			t.Errorf("%s holds %q", f.Name, b)
		}
	}
	if strings.Join(names, " ") != "b.py probe.py sub/a.txt" {
		t.Errorf("entries %v", names)
	}
	for _, bad := range []string{"/abs", "../up", "a/../b", "", "a//b"} {
		if _, err := ZipDir(map[string][]byte{bad: nil}); err == nil {
			t.Errorf("%q zipped", bad)
		}
	}
}

func TestPackages(t *testing.T) {
	uri := "gcs://_ray_pkg_0000000000000000000000006b0b5252.zip"
	r := newReplay(t, map[string]string{
		"GET /api/packages/gcs/_ray_pkg_0000000000000000000000006b0b5252.zip": "package_missing.txt",
		"PUT /api/packages/gcs/_ray_pkg_0000000000000000000000006b0b5252.zip": "package_put.txt",
		"GET /api/packages/gcs/_ray_pkg_00000000000000000000000000000001.zip": "package_present.txt",
	})
	c := r.client()
	ctx := context.Background()
	if ok, err := c.PackageExists(ctx, uri); ok || err != nil {
		t.Errorf("missing package: %v %v", ok, err)
	}
	if ok, err := c.PackageExists(ctx, "gcs://_ray_pkg_00000000000000000000000000000001.zip"); !ok || err != nil {
		t.Errorf("present package: %v %v", ok, err)
	}
	if err := c.UploadPackage(ctx, uri, []byte("PK zip")); err != nil {
		t.Fatal(err)
	}
	if got := r.last(); got.Method != "PUT" || string(got.Body) != "PK zip" {
		t.Errorf("upload sent %s %q", got.Method, got.Body)
	}
	for _, bad := range []string{"gcs://x.zip", "s3://_ray_pkg_ab.zip", "gcs://_ray_pkg_ab.zip/../x"} {
		if _, err := c.PackageExists(ctx, bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
