package grammar

import (
	"fmt"
	"strconv"
	"strings"
)

// ExpandHostlist expands a Slurm-style host list: `a800-[0-7]`,
// `node[01-04,09]`, `gpu1,gpu2`, `10.0.0.[1-8]`. Zero padding is kept. It
// refuses to produce more than max names before producing any.
func ExpandHostlist(s string, max int) ([]string, error) {
	var out []string
	for _, item := range splitTop(s) {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		names, err := expandOne(item, max-len(out))
		if err != nil {
			return nil, err
		}
		out = append(out, names...)
	}
	return out, nil
}

// splitTop splits on commas outside brackets.
func splitTop(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '[':
			depth++
		case ']':
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

func expandOne(item string, max int) ([]string, error) {
	open := strings.IndexByte(item, '[')
	if open < 0 {
		if strings.ContainsAny(item, "]") {
			return nil, fmt.Errorf("unbalanced ']' in %q", item)
		}
		if max < 1 {
			return nil, fmt.Errorf("host list expands to too many names")
		}
		return []string{item}, nil
	}
	end := strings.IndexByte(item[open:], ']')
	if end < 0 {
		return nil, fmt.Errorf("unbalanced '[' in %q", item)
	}
	end += open
	prefix, body, rest := item[:open], item[open+1:end], item[end+1:]
	type span struct {
		lo, hi int
		width  int
	}
	var spans []span
	total := 0
	for _, r := range strings.Split(body, ",") {
		a, b, isRange := strings.Cut(strings.TrimSpace(r), "-")
		if !isRange {
			b = a
		}
		lo, err1 := strconv.Atoi(a)
		hi, err2 := strconv.Atoi(b)
		if err1 != nil || err2 != nil || lo < 0 || hi < lo || len(a) > 9 || len(b) > 9 {
			return nil, fmt.Errorf("bad range %q in %q", r, item)
		}
		total += hi - lo + 1
		if total > max {
			return nil, fmt.Errorf("host list %q expands to more than %d names", item, max)
		}
		w := 0
		if len(a) > 1 && a[0] == '0' {
			w = len(a)
		}
		spans = append(spans, span{lo, hi, w})
	}
	var tails []string
	if rest != "" {
		var err error
		if tails, err = expandOne(rest, max); err != nil {
			return nil, err
		}
	} else {
		tails = []string{""}
	}
	if total*len(tails) > max {
		return nil, fmt.Errorf("host list %q expands to more than %d names", item, max)
	}
	out := make([]string, 0, total*len(tails))
	for _, sp := range spans {
		for x := sp.lo; x <= sp.hi; x++ {
			for _, t := range tails {
				out = append(out, fmt.Sprintf("%s%0*d%s", prefix, sp.width, x, t))
			}
		}
	}
	return out, nil
}
