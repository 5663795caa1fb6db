// Package hostlist reads the range lists of Slurm and Linux, the one parser
// for them in rlsolve: number lists such as "0-3,5" (srun's task lists, a
// Linux CPU list) and host lists such as "n[01-04,09]", "gpu1,gpu2" or
// "10.0.0.[1-8]" (Slurm's node lists, an inventory's hostnames and ips).
// Every expansion is bounded: a list that would produce more than max
// items is refused before anything is allocated.
package hostlist

import (
	"fmt"
	"strconv"
	"strings"
)

// maxDigits bounds one number (so that it fits an int everywhere).
const maxDigits = 9

// Span is one item of a range list: Lo-Hi (Lo == Hi for a single number).
// Width is the zero-padded width of Lo as written ("008" is 3), 0 when Lo
// is not padded.
type Span struct {
	Lo, Hi int
	Width  int
}

// Len is how many numbers the span holds.
func (s Span) Len() int { return s.Hi - s.Lo + 1 }

// ParseRanges reads a comma-separated list of numbers and ranges ("0-3,5",
// " 1 - 2 " is "1-2"). It checks every item (a bad one is an error: no
// silent skipping) and refuses lists of more than max numbers.
func ParseRanges(s string, max int) ([]Span, error) {
	var spans []Span
	total := 0
	for _, item := range strings.Split(s, ",") {
		sp, err := parseSpan(item)
		if err != nil {
			return nil, err
		}
		total += sp.Len()
		if total > max {
			return nil, fmt.Errorf("range list %q holds more than %d numbers", clip(s), max)
		}
		spans = append(spans, sp)
	}
	return spans, nil
}

func parseSpan(item string) (Span, error) {
	a, b, isRange := strings.Cut(strings.TrimSpace(item), "-")
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	if !isRange {
		b = a
	}
	lo, err1 := number(a)
	hi, err2 := number(b)
	if err1 != nil || err2 != nil || hi < lo {
		return Span{}, fmt.Errorf("bad range %q", clip(strings.TrimSpace(item)))
	}
	w := 0
	if len(a) > 1 && a[0] == '0' {
		w = len(a)
	}
	return Span{Lo: lo, Hi: hi, Width: w}, nil
}

// number reads a non-negative decimal of at most maxDigits ASCII digits.
func number(s string) (int, error) {
	if s == "" || len(s) > maxDigits {
		return 0, strconv.ErrSyntax
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, strconv.ErrSyntax
		}
	}
	return strconv.Atoi(s)
}

// Ranges expands a range list into its numbers, in the order written.
func Ranges(s string, max int) ([]int, error) {
	spans, err := ParseRanges(s, max)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, sp := range spans {
		for x := sp.Lo; x <= sp.Hi; x++ {
			out = append(out, x)
		}
	}
	return out, nil
}

// Contains reports whether the range list s holds x, without expanding it
// (a Linux CPU list: "0-15,32-47"). A list that does not parse holds
// nothing.
func Contains(s string, x int) bool {
	spans, err := ParseRanges(s, 1<<30)
	if err != nil {
		return false
	}
	for _, sp := range spans {
		if x >= sp.Lo && x <= sp.Hi {
			return true
		}
	}
	return false
}

// Expand expands a Slurm host list: `a800-[0-7]`, `node[01-04,09]`,
// `gpu1,gpu2`, `10.0.0.[1-8]`, `a[1-2]b[1-2]`. Zero padding is kept;
// spaces around items are dropped. It refuses to produce more than max
// names before producing any.
func Expand(s string, max int) ([]string, error) {
	var out []string
	for _, item := range SplitOutside(s, '[', ']') {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		names, err := expandItem(item, max-len(out))
		if err != nil {
			return nil, err
		}
		out = append(out, names...)
	}
	return out, nil
}

// SplitOutside splits s on the commas outside open...close pairs:
// "n[1,2],m" with '[' and ']' is "n[1,2]" and "m".
func SplitOutside(s string, open, close rune) []string {
	var parts []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case open:
			depth++
		case close:
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

// expandItem expands one name with brackets: prefix[ranges]rest, rest
// expanded the same way.
func expandItem(item string, max int) ([]string, error) {
	open := strings.IndexByte(item, '[')
	if open < 0 {
		if strings.ContainsAny(item, "]") {
			return nil, fmt.Errorf("unbalanced ']' in %q", clip(item))
		}
		if max < 1 {
			return nil, fmt.Errorf("host list expands to more than its limit of names")
		}
		return []string{item}, nil
	}
	end := strings.IndexByte(item[open:], ']')
	if end < 0 {
		return nil, fmt.Errorf("unbalanced '[' in %q", clip(item))
	}
	end += open
	prefix, body, rest := item[:open], item[open+1:end], item[end+1:]
	if max < 1 {
		return nil, fmt.Errorf("host list %q expands to more than its limit of names", clip(item))
	}
	spans, err := ParseRanges(body, max)
	if err != nil {
		return nil, fmt.Errorf("host list %q: %w", clip(item), err)
	}
	total := 0
	for _, sp := range spans {
		total += sp.Len()
	}
	tails := []string{""}
	if rest != "" {
		if tails, err = expandItem(rest, max/total); err != nil {
			return nil, err
		}
	}
	if total*len(tails) > max {
		return nil, fmt.Errorf("host list %q expands to more than %d names", clip(item), max)
	}
	out := make([]string, 0, total*len(tails))
	for _, sp := range spans {
		for x := sp.Lo; x <= sp.Hi; x++ {
			for _, t := range tails {
				out = append(out, fmt.Sprintf("%s%0*d%s", prefix, sp.Width, x, t))
			}
		}
	}
	return out, nil
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
