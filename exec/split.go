package exec

import (
	"fmt"
	"strings"
)

// SplitArgs splits a command line into words the way a POSIX shell would
// quote them, and does nothing else: no variable, tilde, glob or command
// expansion, no operators. Words are separated by spaces, tabs and
// newlines; 'single quotes' keep everything literally; "double quotes"
// keep everything except \" and \\; outside quotes a backslash keeps the
// next character. $HOME, *, |, ; and > are ordinary characters.
func SplitArgs(s string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		in    bool // inside a word (an empty '' counts)
	)
	const (
		plain = iota
		single
		double
	)
	state := plain
	var quoteAt int
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch state {
		case single:
			if c == '\'' {
				state = plain
				continue
			}
			cur.WriteByte(c)
		case double:
			switch {
			case c == '"':
				state = plain
			case c == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
				i++
				cur.WriteByte(s[i])
			default:
				cur.WriteByte(c)
			}
		default:
			switch c {
			case ' ', '\t', '\n', '\r':
				if in {
					words = append(words, cur.String())
					cur.Reset()
					in = false
				}
			case '\'':
				state, quoteAt, in = single, i, true
			case '"':
				state, quoteAt, in = double, i, true
			case '\\':
				if i+1 == len(s) {
					return nil, fmt.Errorf("trailing backslash in %q", s)
				}
				i++
				if s[i] != '\n' { // backslash-newline joins lines
					cur.WriteByte(s[i])
					in = true
				}
			default:
				cur.WriteByte(c)
				in = true
			}
		}
	}
	if state != plain {
		q := "'"
		if state == double {
			q = `"`
		}
		return nil, fmt.Errorf("unterminated %s quote at byte %d of %q", q, quoteAt+1, s)
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}
