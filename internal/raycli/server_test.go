package raycli

import (
	"net/http"
	stdhttptest "net/http/httptest"
	"testing"
)

// newServer starts h and returns its address.
func newServer(t testing.TB, h http.Handler) string {
	srv := stdhttptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
