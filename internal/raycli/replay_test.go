package raycli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// recorded reads testdata/NAME, written by testdata/record.sh from a real
// Ray 2.52: its first line is the HTTP status, the rest the body.
func recorded(t testing.TB, name string) (int, []byte) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	line, body, _ := bytes.Cut(b, []byte("\n"))
	status, err := strconv.Atoi(string(line))
	if err != nil {
		t.Fatalf("%s: first line %q is not a status", name, line)
	}
	return status, body
}

// recordedID is the submission id record.sh gave its long job.
func recordedID(t testing.TB) string {
	_, body := recorded(t, "job_submit.json")
	var r submitResponse
	if err := json.Unmarshal(body, &r); err != nil || r.SubmissionID == "" {
		t.Fatalf("job_submit.json: %v", err)
	}
	return r.SubmissionID
}

// seen is one request the replay server got.
type seen struct {
	Method, Path, Query, Auth, UA, ContentType string
	Body                                       []byte
}

// replay serves recorded answers: routes maps "METHOD /path" to a file
// under testdata (or to a handler), and every request is kept.
type replay struct {
	t      testing.TB
	routes map[string]string
	mu     sync.Mutex
	got    []seen
	srv    *httptest.Server
}

func newReplay(t testing.TB, routes map[string]string) *replay {
	r := &replay{t: t, routes: routes}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *replay) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.got = append(r.got, seen{req.Method, req.URL.Path, req.URL.RawQuery, req.Header.Get("Authorization"),
		req.Header.Get("User-Agent"), req.Header.Get("Content-Type"), body})
	r.mu.Unlock()
	name, ok := r.routes[req.Method+" "+req.URL.Path]
	if !ok {
		name = "not_dashboard.txt"
	}
	status, b := recorded(r.t, name)
	w.WriteHeader(status)
	w.Write(b)
}

// last is the last request the server got.
func (r *replay) last() seen {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.got) == 0 {
		r.t.Fatal("no request")
	}
	return r.got[len(r.got)-1]
}

// client is a client of the replay server with no token.
func (r *replay) client() *Client {
	c, err := New(r.srv.URL, Options{Environ: []string{}, Home: r.t.TempDir()})
	if err != nil {
		r.t.Fatal(err)
	}
	return c
}
