package shellquote

import (
	"os/exec"
	"testing"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/home/a/.local/state/rlsolve/logs/x": "/home/a/.local/state/rlsolve/logs/x",
		"":                                    "''",
		"a b":                                 "'a b'",
		"it's":                                `'it'\''s'`,
		"$HOME":                               "'$HOME'",
		"~/x":                                 "'~/x'",
		"a\nb":                                "'a\nb'",
		"*":                                   "'*'",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

// A quoted word reads back as itself in a real shell.
func TestQuoteRoundTrip(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, in := range []string{"a b", "it's", "$(id)", "`id`", "\\", "\"", "a\nb", "é ü", "-n"} {
		out, err := exec.Command(sh, "-c", "printf %s "+Quote(in)).Output()
		if err != nil || string(out) != in {
			t.Errorf("%q: sh read back %q (%v)", in, out, err)
		}
	}
}
