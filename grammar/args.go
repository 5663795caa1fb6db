package grammar

import (
	"fmt"
	"os"
	"strings"
)

// SplitArgs splits a command line's arguments into config files and
// Hydra overrides, as `rlsolve check train.yaml cluster.num_nodes=2 +x=y
// ~z` writes them, and parses the overrides. An argument that names an
// existing file is a file whatever it looks like.
func SplitArgs(args []string) (files []string, ovs Overrides, err error) {
	var raw []string
	for _, a := range args {
		if _, err := os.Stat(a); err == nil || !IsOverride(a) {
			files = append(files, a)
			continue
		}
		raw = append(raw, a)
	}
	ovs, err = ParseOverrides(raw)
	return files, ovs, err
}

// ParseEnv reads `--env NAME=VALUE` assignments (NAME a shell variable
// name) into a map; nil for none.
func ParseEnv(list []string) (map[string]string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	env := map[string]string{}
	for _, e := range list {
		name, value, ok := strings.Cut(e, "=")
		if !ok || !IsShellName(name) {
			return nil, fmt.Errorf("--env %q: give NAME=VALUE, NAME a shell variable name", e)
		}
		env[name] = value
	}
	return env, nil
}
