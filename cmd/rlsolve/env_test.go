package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rlsolve/rlsolve/internal/longtest"
)

// envDumpArg makes the test binary a worker that prints its environment
// as one JSON line (launch prefixes it with component/rank).
const envDumpArg = "__envdump__"

func dumpEnv() int {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	b, err := json.Marshal(env)
	if err != nil {
		return 1
	}
	fmt.Printf("%s\n", b)
	return 0
}

// shellVars are kept by the shell itself (bash sets _ and SHLVL, a shell
// may reset PWD): not the plan's, not compared.
var shellVars = []string{"_", "SHLVL", "PWD", "OLDPWD"}

// launchOnly are chosen when launch runs: not part of a plan.
var launchOnly = []string{"MASTER_PORT", "RLSOLVE_LAUNCH_ID"}

// TestEnvLinesAreLaunchEnv: for every worker of every RLinf example (and
// a config with path-like variables, merged and not), the environment a
// shell gets from `eval "$(rlsolve plan ... --output env ...)"` is the one
// `rlsolve launch` gives the worker, variable by variable, in sh and in
// bash, from an inherited environment with duplicate and empty PATH
// entries. Apart: MASTER_PORT and RLSOLVE_LAUNCH_ID (chosen at launch),
// and MASTER_ADDR, which the local backend sets to 127.0.0.1 when the
// plan's is not an address of this machine (it says so in a note).
// Slime layouts are started by Ray, not by launch: not compared.
func TestEnvLinesAreLaunchEnv(t *testing.T) {
	if testing.Short() {
		t.Skip("launches every example's workers")
	}
	longtest.Skip(t, "launches every example's workers")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var shells []string // sh, and bash and dash when sh is neither
	for _, name := range []string{"sh", "bash", "dash"} {
		p, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(p); err == nil && !slices.ContainsFunc(shells, func(s string) bool {
			r, _ := filepath.EvalSymlinks(s)
			return r == real
		}) {
			shells = append(shells, p)
		}
	}
	if len(shells) == 0 {
		t.Skip("no POSIX shell")
	}
	type input struct{ file, inventory string }
	inputs := []input{{file: filepath.Join("testdata", "env", "paths.yaml")}}
	files, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*", "train.yaml"))
	for _, f := range files {
		inv := filepath.Join(filepath.Dir(f), "inventory.yaml")
		if _, err := os.Stat(inv); err != nil {
			inv = ""
		}
		inputs = append(inputs, input{f, inv})
	}
	// The inherited environment: PATH with a duplicate and an empty entry,
	// LD_LIBRARY_PATH set but empty, PYTHONPATH sharing an entry with the
	// plan's, no merge mode.
	t.Setenv("PATH", os.Getenv("PATH")+"::/usr/bin:/usr/bin")
	t.Setenv("LD_LIBRARY_PATH", "")
	t.Setenv("PYTHONPATH", "/base/lib:/srv/a")
	t.Setenv("RLINF_PATH_ENV_MERGE_MODE", "")
	os.Unsetenv("RLINF_PATH_ENV_MERGE_MODE")
	compared, plans := 0, 0
	for _, in := range inputs {
		args := []string{in.file}
		if in.inventory != "" {
			args = append(args, "--inventory", in.inventory)
		}
		if code, _, _ := runCLIOutput(t, append([]string{"check"}, args...)...); code != 0 {
			continue // the invalid examples
		}
		plans++
		launched := launchEnvs(t, self, args)
		for who, got := range launched {
			comp, rank, _ := strings.Cut(who, "/")
			code, lines, stderr := runCLIOutput(t, append([]string{"plan", "--output", "env", "--component", comp, "--rank", rank}, args...)...)
			if code != 0 {
				t.Fatalf("plan %s --output env for %s: exit %d\n%s", in.file, who, code, stderr)
			}
			want := maps.Clone(got)
			for _, k := range append(launchOnly, shellVars...) {
				delete(want, k)
			}
			planned := plannedAddr(lines)
			if addr := want["MASTER_ADDR"]; addr != planned && !(addr == "127.0.0.1" && !localAddr(planned)) {
				t.Errorf("%s %s: launch's MASTER_ADDR %q, planned %q", in.file, who, addr, planned)
			}
			delete(want, "MASTER_ADDR")
			for _, sh := range shells {
				env := shellEnv(t, sh, lines, self)
				for _, k := range append(shellVars, "MASTER_ADDR") {
					delete(env, k)
				}
				if diff := envDiff(want, env); diff != "" {
					t.Errorf("%s %s, %s: the env lines give another environment than launch:\n%s\nlines:\n%s", in.file, who, sh, diff, lines)
				}
			}
			compared++
		}
	}
	if plans < 6 || compared < 300 {
		t.Errorf("compared %d workers of %d plans; the examples have more", compared, plans)
	}
	t.Logf("compared %d workers of %d plans in %d shells", compared, plans, len(shells))
}

// launchEnvs launches every worker of a config with the local backend,
// each printing its environment, and returns them by component/rank.
func launchEnvs(t *testing.T, self string, args []string) map[string]map[string]string {
	t.Helper()
	code, out, stderr := runCLIOutput(t, append([]string{"launch", "--oversubscribe", "--log-dir", t.TempDir(), "--run", "*=" + strconv.Quote(self) + " " + envDumpArg}, args...)...)
	if code != 0 {
		t.Fatalf("launch %v: exit %d\n%s", args, code, stderr)
	}
	envs := map[string]map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		who, js, ok := strings.Cut(line, ": ")
		env := map[string]string{}
		if !ok || json.Unmarshal([]byte(js), &env) != nil {
			t.Fatalf("launch printed %q", line)
		}
		for _, k := range launchOnly {
			if env[k] == "" {
				t.Errorf("%s: launch gave no %s", who, k)
			}
		}
		envs[who] = env
	}
	return envs
}

// shellEnv evaluates the env lines in a shell that inherits this
// process's environment, then runs the worker that prints what it got.
func shellEnv(t *testing.T, shell, lines, self string) map[string]string {
	t.Helper()
	cmd := exec.Command(shell, "-c", `eval "$1" && exec "$2" `+envDumpArg, "sh", lines, self)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", shell, err, lines)
	}
	env := map[string]string{}
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatalf("%s printed %q", shell, out)
	}
	return env
}

// plannedAddr is the MASTER_ADDR the env lines export ("" when none).
func plannedAddr(lines string) string {
	for _, l := range strings.Split(lines, "\n") {
		if v, ok := strings.CutPrefix(l, "export MASTER_ADDR="); ok {
			return v
		}
	}
	return ""
}

// localAddr reports whether addr is an address of this machine.
func localAddr(addr string) bool {
	ip := net.ParseIP(addr)
	if ip == nil {
		return addr == "localhost"
	}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

// envDiff lists the variables two environments disagree on.
func envDiff(want, got map[string]string) string {
	var b strings.Builder
	keys := slices.Sorted(maps.Keys(want))
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		w, wok := want[k]
		g, gok := got[k]
		if w != g || wok != gok {
			fmt.Fprintf(&b, "  %s: launch %q (set %v), shell %q (set %v)\n", k, w, wok, g, gok)
		}
	}
	return b.String()
}
