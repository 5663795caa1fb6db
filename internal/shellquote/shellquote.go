// Package shellquote quotes words for a POSIX shell, so that what rlsolve
// prints (a path, a value) can be pasted into one as it is.
package shellquote

import "strings"

// Quote returns s as one shell word: unchanged when it holds only
// characters no shell treats specially, else in single quotes (a single
// quote inside becomes '\”).
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, special) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func special(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		r == ',' || r == '.' || r == '_' || r == '-' || r == '/' || r == ':' || r == '+' || r == '@' || r == '%')
}
