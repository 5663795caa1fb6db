package model

import (
	"strconv"
	"strings"
)

// RangeText renders sorted ranks compactly for messages: [0-3, 5].
func RangeText(r []int) string {
	return "[" + CompactRanks(r, ", ") + "]"
}

// CompactRanks joins sorted ranks as ranges with sep: "0-3,5" for ",".
func CompactRanks(r []int, sep string) string {
	var b strings.Builder
	for i := 0; i < len(r); {
		j := i
		for j+1 < len(r) && r[j+1] == r[j]+1 {
			j++
		}
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(strconv.Itoa(r[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(r[j]))
		}
		i = j + 1
	}
	return b.String()
}

// NumberSpan points at the start (or end) number of a part's resource
// range, so that a diagnostic marks the offending character.
func (s *Segment) NumberSpan(start bool) Span {
	sp := s.ResSpan
	if s.AllResources || sp.EndLine != sp.Line {
		return sp
	}
	if start {
		return sp.Sub(0, len(strconv.Itoa(s.ResStart)))
	}
	n := len(strconv.Itoa(s.ResEnd))
	w := sp.EndCol - sp.Col
	return sp.Sub(w-n, w)
}
