package main

import (
	"bufio"
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/internal/raytest"
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

// TestScriptRay runs the scripts of testdata/ray against the Ray test
// cluster (scripts/ray-test-cluster.sh), at $RAY (and $RAYHOSTPORT for the
// ray:// form), with $NODES nodes; skipped without one.
func TestScriptRay(t *testing.T) {
	cl := raytest.Require(t)
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/ray",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			env.Setenv("RAY", cl.Address)
			env.Setenv("RAYHOSTPORT", strings.TrimPrefix(cl.Address, "http://"))
			env.Setenv("NODES", strconv.Itoa(cl.Nodes))
			env.Setenv("MORE", strconv.Itoa(cl.Nodes+1))
			// The cluster runs with token auth; its start exports the token.
			env.Setenv("RAY_AUTH_TOKEN", os.Getenv("RAY_AUTH_TOKEN"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"exits": cmdExits},
	})
}
