package diag

import "testing"

func TestUseColor(t *testing.T) {
	env := func(vars ...string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			for i := 0; i+1 < len(vars); i += 2 {
				if vars[i] == k {
					return vars[i+1], true
				}
			}
			return "", false
		}
	}
	for _, c := range []struct {
		name     string
		mode     string
		env      func(string) (string, bool)
		terminal bool
		want     bool
	}{
		{"auto on a terminal", "auto", env("TERM", "xterm-256color"), true, true},
		{"auto into a pipe", "auto", env(), false, false},
		{"NO_COLOR, even empty", "auto", env("NO_COLOR", ""), true, false},
		{"TERM=dumb", "auto", env("TERM", "dumb"), true, false},
		{"always beats NO_COLOR and a pipe", "always", env("NO_COLOR", "1"), false, true},
		{"never on a terminal", "never", env(), true, false},
	} {
		if got := UseColor(c.mode, c.env, c.terminal); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if CheckColorMode("sometimes") == nil || CheckColorMode("never") != nil {
		t.Error("CheckColorMode takes auto, always and never only")
	}
}
