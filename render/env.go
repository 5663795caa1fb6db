package render

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rlsolve/rlsolve/model"
)

// WriteEnv writes worker j of component cp as lines a POSIX shell (sh,
// dash, bash, zsh in sh mode) evaluates to the environment launch gives
// that worker (model.MergeEnv over the shell's): `export K=V` for each
// variable, sorted, and for a path-like one (PATH, PYTHONPATH, ...) a call
// that merges the planned entries with the inherited ones as launch does.
// Values are quoted; nothing in them is expanded. MASTER_PORT and
// RLSOLVE_LAUNCH_ID are chosen at launch and are not part of a plan.
func WriteEnv(w io.Writer, in *Input, cp *model.ComponentPlan, j int) error {
	if err := in.check(); err != nil {
		return err
	}
	if j < 0 || j >= cp.Placements.Len() {
		return fmt.Errorf("render: %s has no worker %d", cp.Name, j)
	}
	p := cp.Placements.At(j)
	env := in.Workers.EnvOf(cp, &p)
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	// The merge mode first: it decides how the path-like variables
	// combine, as it does for launch whatever the order.
	if v, ok := env[model.PathMergeModeVar]; ok {
		fmt.Fprintf(&b, "export %s=%s\n", model.PathMergeModeVar, ShellQuote(v))
	}
	merged := false
	for _, k := range keys {
		switch {
		case k == model.PathMergeModeVar:
		case model.PathLikeEnv(k):
			if !merged {
				b.WriteString(mergePathFunc)
				merged = true
			}
			fmt.Fprintf(&b, "%s %s %s\n", mergePathName, k, ShellQuote(env[k]))
		default:
			fmt.Fprintf(&b, "export %s=%s\n", k, ShellQuote(env[k]))
		}
	}
	if merged {
		b.WriteString("unset -f " + mergePathName + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mergePathName is the shell function the env lines define (and remove)
// to merge a path-like variable.
const mergePathName = "rlsolve_merge_path"

// mergePathFunc is model.MergeEnv's rule for a path-like variable in
// POSIX sh (zsh too: no field splitting, no globbing): `rlsolve_merge_path
// NAME VALUE` exports NAME as VALUE when the shell has no NAME or the
// merge mode is "override"; else as VALUE's entries, then NAME's, each
// once, empty ones dropped (model.MergePath). It works on its positional
// parameters only: $2 is what is left to scan, $3 the result, $4 the
// entry at hand.
const mergePathFunc = mergePathName + `() {
	if eval "[ -n \"\${$1+set}\" ]" && [ "${` + model.PathMergeModeVar + `-}" != ` + model.PathMergeOverride + ` ]; then
		eval "set -- \"\$1\" \"\$2:\${$1}:\" ''"
		while [ -n "$2" ]; do
			set -- "$1" "${2#*:}" "$3" "${2%%:*}"
			case $4 in '') ;; *) case :$3: in *:"$4":*) ;; *) set -- "$1" "$2" "${3:+$3:}$4" ;; esac ;; esac
		done
		set -- "$1" "$3"
	fi
	export "$1=$2"
}
`

// ShellQuote quotes a value for a POSIX shell when it needs quoting: in
// single quotes, each ' written as '\”.
func ShellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == ',' || r == '.' || r == '_' || r == '-' || r == '/' || r == ':') {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
