package raycli

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// tailServer sends chunks over the tail WebSocket of job "j", then closes
// normally (or holds the stream open when hold).
func tailServer(t *testing.T, chunks []string, hold bool) *Client {
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/jobs/j/logs/tail" {
			http.Error(w, "Job x does not exist", http.StatusNotFound)
			return
		}
		if r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "Forbidden: Invalid authentication token", http.StatusForbidden)
			return
		}
		conn, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer conn.CloseNow()
		for _, c := range chunks {
			conn.Write(r.Context(), websocket.MessageText, []byte(c))
		}
		if hold {
			<-r.Context().Done()
			return
		}
		conn.Close(websocket.StatusNormalClosure, "")
	}))
	c, err := New(srv, Options{Token: "tok", Environ: []string{}, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestTailJobLogs(t *testing.T) {
	chunks := []string{"hello\nwor", "ld\n", strings.Repeat("x", 100_000) + "\n"}
	c := tailServer(t, chunks, false)
	var got []string
	err := c.TailJobLogs(context.Background(), "j", func(s string) error { got = append(got, s); return nil })
	if err != nil || strings.Join(got, "|") != strings.Join(chunks, "|") {
		t.Errorf("tail: %d chunks, %v", len(got), err)
	}
	stop := errors.New("enough")
	if err := c.TailJobLogs(context.Background(), "j", func(string) error { return stop }); err != stop {
		t.Errorf("fn's error: %v", err)
	}
	if err := c.TailJobLogs(context.Background(), "missing", func(string) error { return nil }); !errors.Is(err, ErrNotFound) {
		t.Errorf("a missing job: %v", err)
	}
	bad, _ := New(c.Address(), Options{Token: "wrong", Environ: []string{}, Home: t.TempDir()})
	if err := bad.TailJobLogs(context.Background(), "j", func(string) error { return nil }); !errors.Is(err, ErrUnauthorized) {
		t.Errorf("a wrong token: %v", err)
	}
}

// Cancelling the context ends a stream that is still open.
func TestTailJobLogsCancel(t *testing.T) {
	c := tailServer(t, []string{"first\n"}, true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		done <- c.TailJobLogs(ctx, "j", func(string) error { cancel(); return nil })
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled tail: %v", err)
		}
	case <-time.After(time.Minute): // a hang, not a timing assertion
		t.Fatal("the tail did not end when cancelled")
	}
}
