package diag

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Printable is s made safe to print on a terminal: control characters
// (C0, DEL and C1: an escape sequence can move the cursor, rewrite lines
// or set the window title), line and paragraph separators, invisible
// direction overrides and byte order marks (text that reads other than it
// is), and bytes that are not UTF-8 are written as Go escapes (\n, \x1b,
// \u202e, \xff); everything else is kept. Every text output of rlsolve
// prints names from the input through it: the diagnostics here and the
// tables of render. JSON and SARIF escape as JSON does.
func Printable(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b []byte
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = appendHex(b, `\x`, int(s[i]), 2)
		case !Unsafe(r):
			b = append(b, s[i:i+n]...)
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r < 0x80:
			b = appendHex(b, `\x`, int(r), 2)
		default:
			b = appendHex(b, `\u`, int(r), 4)
		}
		i += n
	}
	return string(b)
}

// PrintableLines is Printable line by line: the line breaks of a text of
// several lines (a message with its help) are kept.
func PrintableLines(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for line := range strings.Lines(s) {
		body, nl := strings.CutSuffix(line, "\n")
		b.WriteString(Printable(body))
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Unsafe reports whether r must not reach a terminal as it is (see
// Printable).
func Unsafe(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x2028, r == 0x2029, r == 0xFEFF:
		return true
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
		return true
	}
	return false
}

// needsEscape reports whether Printable changes s: printable ASCII, the
// usual case, is passed over byte by byte.
func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || Unsafe(r) {
			return true
		}
		i += n
	}
	return false
}

func appendHex(b []byte, prefix string, v, digits int) []byte {
	b = append(b, prefix...)
	h := strconv.FormatInt(int64(v), 16)
	for k := len(h); k < digits; k++ {
		b = append(b, '0')
	}
	return append(b, h...)
}
