package diag

import "fmt"

// ColorModes are --color's values, the default first.
var ColorModes = []string{"auto", "always", "never"}

// CheckColorMode is nil for one of ColorModes.
func CheckColorMode(mode string) error {
	for _, m := range ColorModes {
		if m == mode {
			return nil
		}
	}
	return fmt.Errorf("must be auto, always or never, not %q", mode)
}

// UseColor decides whether code frames get ANSI escapes: always and never
// say so; auto colours a terminal unless NO_COLOR is set (any value,
// no-color.org) or TERM is dumb (Emacs shells, editors' consoles, which
// print escapes as text). getenv is os.LookupEnv.
func UseColor(mode string, getenv func(string) (string, bool), terminal bool) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if _, set := getenv("NO_COLOR"); set {
		return false
	}
	if term, _ := getenv("TERM"); term == "dumb" {
		return false
	}
	return terminal
}
