package wheel

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

func spec() Spec {
	return Spec{Name: "rlsolve", Version: "0.0.0.dev12", Tags: []string{"manylinux_2_17_x86_64", "musllinux_1_1_x86_64"},
		Summary: "s", Scripts: map[string]string{"rlsolve": "rlsolve.__main__:main"}, RequiresPython: ">=3.8",
		Files: []File{{Path: "rlsolve/bin/rlsolve", Data: []byte("\x7fELF..."), Exec: true}, {Path: "rlsolve/__init__.py", Data: []byte("x = 1\n")}},
		Time:  time.Date(2026, 11, 28, 1, 2, 4, 0, time.UTC)}
}

func write(t *testing.T, s Spec) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, s); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The archive as pip reads it: modes, RECORD's hashes and sizes, the
// metadata files, RECORD last.
func TestWrite(t *testing.T) {
	data := write(t, spec())
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	var names []string
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		files[f.Name], names = b, append(names, f.Name)
		mode := f.ExternalAttrs >> 16
		want := uint32(0o100644)
		if f.Name == "rlsolve/bin/rlsolve" {
			want = 0o100755
		}
		if mode != want || f.CreatorVersion>>8 != 3 {
			t.Errorf("%s: mode %o made on %d, want %o on Unix (3)", f.Name, mode, f.CreatorVersion>>8, want)
		}
		if !f.Modified.Equal(spec().Time) {
			t.Errorf("%s: time %v", f.Name, f.Modified)
		}
	}
	info := "rlsolve-0.0.0.dev12.dist-info/"
	if last := names[len(names)-1]; last != info+"RECORD" {
		t.Errorf("last entry %s, want RECORD", last)
	}
	record := string(files[info+"RECORD"])
	for _, n := range names {
		want := n + ",,"
		if n != info+"RECORD" {
			sum := sha256.Sum256(files[n])
			want = fmt.Sprintf("%s,sha256=%s,%d", n, base64.RawURLEncoding.EncodeToString(sum[:]), len(files[n]))
		}
		if !strings.Contains(record, want+"\n") {
			t.Errorf("RECORD lacks %q:\n%s", want, record)
		}
	}
	for name, want := range map[string]string{
		info + "WHEEL":            "Root-Is-Purelib: false\nTag: py3-none-manylinux_2_17_x86_64\nTag: py3-none-musllinux_1_1_x86_64\n",
		info + "METADATA":         "Metadata-Version: 2.1\nName: rlsolve\nVersion: 0.0.0.dev12\n",
		info + "entry_points.txt": "[console_scripts]\nrlsolve = rlsolve.__main__:main\n",
	} {
		if !strings.Contains(string(files[name]), want) {
			t.Errorf("%s lacks %q:\n%s", name, want, files[name])
		}
	}
	if got := spec().FileName(); got != "rlsolve-0.0.0.dev12-py3-none-manylinux_2_17_x86_64.musllinux_1_1_x86_64.whl" {
		t.Errorf("file name %s", got)
	}
}

// The same inputs give the same bytes, whatever order the files came in.
func TestReproducible(t *testing.T) {
	a := spec()
	b := spec()
	b.Files = []File{b.Files[1], b.Files[0]}
	if !bytes.Equal(write(t, a), write(t, b)) {
		t.Error("two writes of the same wheel differ")
	}
}

func TestRefused(t *testing.T) {
	for _, tc := range []struct {
		change func(*Spec)
		want   string
	}{
		{func(s *Spec) { s.Version = "v1.2.0" }, "PEP 440"},
		{func(s *Spec) { s.Version = "1.2.0-dev" }, "PEP 440"},
		{func(s *Spec) { s.Version = "01.2" }, "PEP 440"},
		{func(s *Spec) { s.Tags = nil }, "no platform tag"},
		{func(s *Spec) { s.Tags = []string{"linux-x86_64"} }, "platform tag"},
		{func(s *Spec) { s.Name = "RL-solve" }, "distribution name"},
		{func(s *Spec) { s.Files[0].Path = "../x" }, "relative"},
		{func(s *Spec) { s.Files[1].Path = s.Files[0].Path }, "twice"},
		{func(s *Spec) { s.Time = time.Unix(0, 0) }, "1980"},
	} {
		s := spec()
		tc.change(&s)
		err := Write(io.Discard, s)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one saying %q", s, err, tc.want)
		}
	}
	for _, v := range []string{"1.2.0", "0.0.0.dev208", "1!2.0rc1.post3.dev4", "2.0a1"} {
		s := spec()
		s.Version = v
		if err := Write(io.Discard, s); err != nil {
			t.Errorf("version %s refused: %v", v, err)
		}
	}
}
