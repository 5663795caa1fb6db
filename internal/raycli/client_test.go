package raycli

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestAddress(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"http://head:8265", "http://head:8265", ""},
		{"https://head:443/", "https://head:443", ""},
		{"ray://10.0.0.1:8265", "http://10.0.0.1:8265", ""},
		{"10.0.0.1:8300", "http://10.0.0.1:8300", ""},
		{"head", "http://head:8265", ""},
		{"http://[::1]:8265", "http://[::1]:8265", ""},
		{"http://proxy:80/ray/", "http://proxy:80/ray", ""},
		{"", "", "no Ray address"},
		{"ftp://head:21", "", `scheme "ftp"`},
		{"http://:8265", "", "HOST:PORT"},
		{"http://head:8265/?x=1", "", "HOST:PORT"},
		{"http://u:p@head:8265", "", "HOST:PORT"},
		{"http://head:8265:1", "", "write it as"},
	} {
		c, err := New(tc.in, Options{Environ: []string{}, Home: t.TempDir()})
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one saying %q", tc.in, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case c.Address() != tc.want:
			t.Errorf("%q: address %s, want %s", tc.in, c.Address(), tc.want)
		}
	}
}

// The token is looked up where Ray looks, in Ray's order, and sent as a
// bearer token.
func TestToken(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	os.MkdirAll(filepath.Join(home, ".ray"), 0o700)
	os.WriteFile(filepath.Join(home, ".ray", "auth_token"), []byte("home-token\n"), 0o600)
	pathFile := filepath.Join(dir, "tok")
	os.WriteFile(pathFile, []byte("  path-token \n"), 0o600)
	r := newReplay(t, map[string]string{"GET /api/version": "version.json"})
	for _, tc := range []struct {
		name  string
		opt   Options
		want  string
		error string
	}{
		{"option first", Options{Token: "opt", Environ: []string{"RAY_AUTH_TOKEN=env"}, Home: home}, "Bearer opt", ""},
		{"then RAY_AUTH_TOKEN", Options{Environ: []string{"RAY_AUTH_TOKEN=env", "RAY_AUTH_TOKEN_PATH=" + pathFile}, Home: home}, "Bearer env", ""},
		{"then the path", Options{Environ: []string{"RAY_AUTH_TOKEN=", "RAY_AUTH_TOKEN_PATH=" + pathFile}, Home: home}, "Bearer path-token", ""},
		{"then the home file", Options{Environ: []string{}, Home: home}, "Bearer home-token", ""},
		{"else none", Options{Environ: []string{}, Home: dir}, "", ""},
		{"a missing path is an error", Options{Environ: []string{"RAY_AUTH_TOKEN_PATH=" + filepath.Join(dir, "nope")}, Home: home}, "", "RAY_AUTH_TOKEN_PATH"},
	} {
		tc.opt.HTTP = r.srv.Client()
		c, err := New(r.srv.URL, tc.opt)
		if tc.error != "" {
			if err == nil || !strings.Contains(err.Error(), tc.error) {
				t.Errorf("%s: error %v, want one naming %s", tc.name, err, tc.error)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if _, err := c.Version(context.Background()); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := r.last(); got.Auth != tc.want || got.UA != "rlsolve" {
			t.Errorf("%s: Authorization %q User-Agent %q, want %q and rlsolve", tc.name, got.Auth, got.UA, tc.want)
		}
	}
}

func TestVersion(t *testing.T) {
	r := newReplay(t, map[string]string{"GET /api/version": "version.json"})
	v, err := r.client().CheckVersion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if v.Ray != "2.52.1" || v.Version != "4" || v.Commit == "" {
		t.Errorf("version %+v", v)
	}
	old := answering(t, http.StatusOK, `{"version": "4", "ray_version": "2.46.0", "ray_commit": "x"}`)
	_, err = old.CheckVersion(context.Background())
	if !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), "2.46.0 is older than 2.47.0") {
		t.Errorf("an old Ray: %v", err)
	}
}

func TestAtLeast(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want bool
	}{
		{"2.47.0", true}, {"2.47.1", true}, {"2.52.1", true}, {"3.0.0.dev0", true}, {"2.100.0", true},
		{"2.48.0rc1", true}, {"2.47", true},
		{"2.46.9", false}, {"1.99.0", false}, {"", false}, {"x.y", false}, {"2", false},
	} {
		if got := AtLeast(tc.v, MinVersion); got != tc.want {
			t.Errorf("AtLeast(%q) = %v, want %v", tc.v, got, tc.want)
		}
	}
}

// answering is a client of a server answering every request with status
// and body.
func answering(t *testing.T, status int, body string) *Client {
	t.Helper()
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	c, err := New(srv, Options{Environ: []string{}, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Refused tokens, missing tokens and an address nobody answers each give
// one error naming the address and what to check.
func TestErrors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, file, token string
		is                error
		want              []string
	}{
		{"wrong token", "auth_wrong.txt", "bad", ErrUnauthorized, []string{"HTTP 403: Forbidden: Invalid authentication token", "the token from RAY_AUTH_TOKEN was refused", "ray get-auth-token"}},
		{"no token", "auth_missing.txt", "", ErrUnauthorized, []string{"HTTP 401: Unauthorized: Missing authentication token", "none was found", "RAY_AUTH_TOKEN_PATH"}},
		{"not a dashboard", "not_dashboard.txt", "", ErrNotFound, []string{"HTTP 404", "a Ray dashboard"}},
	} {
		r := newReplay(t, map[string]string{"GET /api/v0/nodes": tc.file})
		c, _ := New(r.srv.URL, Options{Environ: []string{"RAY_AUTH_TOKEN=" + tc.token}, Home: t.TempDir()})
		_, _, err := c.Nodes(ctx)
		if !errors.Is(err, tc.is) {
			t.Errorf("%s: %v is not %v", tc.name, err, tc.is)
		}
		for _, w := range append(tc.want, c.Address()) {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v does not say %q", tc.name, err, w)
			}
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, _ := New(addr, Options{Environ: []string{}, Home: t.TempDir()})
	_, err = c.Version(ctx)
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "is the dashboard running on "+addr) ||
		!strings.Contains(err.Error(), "ray start --head") {
		t.Errorf("unreachable: %v", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.Address != "http://"+addr || e.Status != 0 {
		t.Errorf("unreachable: %#v", e)
	}
}

// An answer over the limit is refused, not read whole.
func TestBodyLimit(t *testing.T) {
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(`{"logs": "`))
		chunk := []byte(strings.Repeat("x", 1<<20))
		for range MaxBodyBytes>>20 + 1 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	c, _ := New(srv, Options{Environ: []string{}, Home: t.TempDir()})
	_, err := c.JobLogs(context.Background(), "big")
	if err == nil || !strings.Contains(err.Error(), "rlsolve reads no more") {
		t.Errorf("a huge answer: %v", err)
	}
}

// Entrypoint runs the given Python, or finds the supervisor's (a shell
// test: a fake /proc is not possible, so check the shape).
func TestEntrypoint(t *testing.T) {
	if got := Entrypoint("/v/bin/python", "probe.py", "a b"); got != "/v/bin/python probe.py 'a b'" {
		t.Errorf("given python: %s", got)
	}
	got := Entrypoint("", "probe.py")
	if !strings.HasSuffix(got, `exec "$py" probe.py`) || !strings.Contains(got, "/proc/$PPID/maps") || !strings.Contains(got, "py=python3") {
		t.Errorf("found python: %s", got)
	}
}

// Outside a Ray job (no _raylet.so in the parent's memory map), the found
// Python is python3 from PATH.
func TestEntrypointFallback(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 on PATH")
	}
	out, err := exec.Command("sh", "-c", Entrypoint("", "-c", "print('from python')")).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "from python" {
		t.Errorf("%s: %v", out, err)
	}
}
