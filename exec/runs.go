package exec

import (
	"fmt"
	"strings"

	"github.com/rlsolve/rlsolve/internal/fuzzy"
	"github.com/rlsolve/rlsolve/model"
)

// RunSpec is one program to run: the components it is for ("*" for every
// component not named otherwise) and its argument vector.
type RunSpec struct {
	Names []string
	Argv  []string
}

// ParseRun reads one `--run COMPONENT=CMD` value: a,b=CMD names several
// components; CMD is split like a shell would quote it, never run by one
// (SplitArgs).
func ParseRun(s string) (RunSpec, error) {
	keys, command, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(keys) == "" {
		return RunSpec{}, fmt.Errorf("--run %q: want COMPONENT='program args'", s)
	}
	argv, err := SplitArgs(command)
	if err != nil {
		return RunSpec{}, fmt.Errorf("--run %s: %w", keys, err)
	}
	if len(argv) == 0 {
		return RunSpec{}, fmt.Errorf("--run %s: no program", keys)
	}
	var names []string
	for _, k := range strings.Split(keys, ",") {
		names = append(names, strings.TrimSpace(k))
	}
	return RunSpec{Names: names, Argv: argv}, nil
}

// MatchRuns gives the plan's components their programs: named ones first,
// then '*' to every other. It returns the programs by component and the
// components left without one, in plan order. file names the config in
// errors.
func MatchRuns(plan *model.Plan, specs []RunSpec, file string) (runs map[string][]string, skipped []string, err error) {
	all := plan.Names()
	runs = map[string][]string{}
	var star []string
	for _, s := range specs {
		for _, n := range s.Names {
			switch {
			case n == "*":
				if star != nil {
					return nil, nil, fmt.Errorf("'*' is given two programs")
				}
				star = s.Argv
			case plan.Component(n) == nil:
				return nil, nil, UnknownComponent(plan, n, file)
			case runs[n] != nil:
				return nil, nil, fmt.Errorf("component %s is given two programs", n)
			default:
				runs[n] = s.Argv
			}
		}
	}
	for _, n := range all {
		switch {
		case runs[n] != nil:
		case star != nil:
			runs[n] = star
		default:
			skipped = append(skipped, n)
		}
	}
	return runs, skipped, nil
}

// UnknownComponent is the error for a component name the plan lacks: the
// components it has, and the nearest one when a name is close.
func UnknownComponent(plan *model.Plan, name, file string) error {
	all := plan.Names()
	hint := ""
	if near := fuzzy.Nearest(name, all); near != "" {
		hint = fmt.Sprintf("; did you mean %s?", near)
	}
	return fmt.Errorf("no component %q in %s (components: %s)%s", name, file, strings.Join(all, ", "), hint)
}
