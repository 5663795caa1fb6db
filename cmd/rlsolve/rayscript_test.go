package main

import (
	"bufio"
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdRayDashboard is `ray-dashboard ROUTES`: serve a Ray dashboard's
// recorded answers for the rest of the script, at $RAY. ROUTES has one
// "METHOD PATH FILE" line per route (PATH without the query); FILE holds
// the status on its first line and the body after it, as
// internal/raycli/testdata/record.sh writes them. Anything else is 404.
func cmdRayDashboard(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: ray-dashboard ROUTES")
	}
	routes := map[string][]byte{}
	sc := bufio.NewScanner(strings.NewReader(ts.ReadFile(args[0])))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 3 {
			ts.Fatalf("route %q: want METHOD PATH FILE", sc.Text())
		}
		b, err := os.ReadFile(ts.MkAbs(f[2]))
		ts.Check(err)
		routes[f[0]+" "+f[1]] = b
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := routes[r.Method+" "+r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		line, body, _ := bytes.Cut(b, []byte("\n"))
		status, err := strconv.Atoi(string(line))
		if err != nil {
			status = http.StatusInternalServerError
		}
		w.WriteHeader(status)
		w.Write(body)
	}))
	ts.Defer(srv.Close)
	ts.Setenv("RAY", srv.URL)
}
